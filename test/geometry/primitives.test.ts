import { describe, expect, it } from "vitest";
import { MeshError, boxMesh, meshBounds, meshFormatFromName, normaliseMesh, signedVolume, sphereMesh, surfaceArea } from "../../shared/geometry";
import { edgeUseCounts } from "./helpers";

describe("boxMesh", () => {
  it("is closed, outward-wound and centred, with the right volume and area", () => {
    const box = boxMesh(2, 1, 0.5);
    expect([...edgeUseCounts(box.triangles).values()].every((uses) => uses === 2)).toBe(true);
    expect(signedVolume(box)).toBeCloseTo(1, 12);
    expect(surfaceArea(box)).toBeCloseTo(2 * (2 + 1 + 0.5), 12);
    expect(meshBounds(box.positions)).toEqual({ min: [-1, -0.5, -0.25], max: [1, 0.5, 0.25] });
  });

  it("gives a 1 x 0.1 x 0.1 beam vertex columns at both ends and along its length", () => {
    const beam = boxMesh(1, 0.1, 0.1);
    const xs = new Set<number>(), ys = new Set<number>();
    for (let i = 0; i < beam.positions.length; i += 3) {
      xs.add(beam.positions[i]);
      ys.add(beam.positions[i + 1]);
    }
    expect(xs.size).toBeGreaterThanOrEqual(21); // >= 20 segments along the length
    expect(ys.size).toBeGreaterThanOrEqual(3); // >= 2 across
    expect(xs.has(-0.5) && xs.has(0.5)).toBe(true);
    const atEnd = (x: number) => Array.from({ length: beam.positions.length / 3 }, (_, v) => v).filter((v) => beam.positions[3 * v] === x).length;
    expect(atEnd(0.5)).toBeGreaterThanOrEqual(9); // a 3 x 3 grid on each end face
    expect(atEnd(-0.5)).toBe(atEnd(0.5));
  });

  it("follows segmentsPerMetre and rejects bad sizes", () => {
    const dense = boxMesh(1, 1, 1, 40);
    const xs = new Set<number>();
    for (let i = 0; i < dense.positions.length; i += 3) xs.add(dense.positions[i]);
    expect(xs.size).toBe(41);
    expect(() => boxMesh(1, 0, 1)).toThrow(MeshError);
    expect(() => boxMesh(1, Number.NaN, 1)).toThrow(/positive finite/);
    expect(() => boxMesh(1, 1, 1, -2)).toThrow(/segmentsPerMetre/);
    expect(() => boxMesh(100, 100, 100, 100)).toThrow(/the limit is/);
  });
});

describe("sphereMesh", () => {
  it("is closed and outward, with volume approaching 4/3 pi r^3", () => {
    const sphere = sphereMesh(2, 4);
    expect([...edgeUseCounts(sphere.triangles).values()].every((uses) => uses === 2)).toBe(true);
    expect(sphere.triangles.length / 3).toBe(20 * 4 ** 4);
    const exact = (4 / 3) * Math.PI * 8;
    expect(signedVolume(sphere) / exact).toBeGreaterThan(0.99);
    expect(signedVolume(sphere) / exact).toBeLessThan(1);
  });
});

describe("normaliseMesh", () => {
  it("centres the box and maps the largest extent to [-1, 1], keeping the aspect ratio", () => {
    const box = boxMesh(4, 2, 1);
    const moved = { positions: box.positions.map((value, i) => value + [10, -3, 7][i % 3]), triangles: box.triangles };
    const { mesh, center, scale } = normaliseMesh(moved);
    expect(center).toEqual([10, -3, 7]);
    expect(scale).toBe(2);
    expect(meshBounds(mesh.positions)).toEqual({ min: [-1, -0.5, -0.25], max: [1, 0.5, 0.25] });
    expect(moved.positions[0]).toBe(box.positions[0] + 10); // input untouched
  });

  it("rejects a mesh with no extent", () => {
    expect(() => normaliseMesh({ positions: new Float64Array(9), triangles: new Uint32Array([0, 1, 2]) })).toThrow(MeshError);
  });
});

describe("meshFormatFromName", () => {
  it("recognises obj, gltf and glb by extension, in any case", () => {
    expect(meshFormatFromName("spot.obj")).toBe("obj");
    expect(meshFormatFromName("scene.GLTF")).toBe("gltf");
    expect(meshFormatFromName("my.model.v2.Glb")).toBe("glb");
  });

  it("throws MeshError naming the supported extensions otherwise", () => {
    expect(() => meshFormatFromName("bunny.ply")).toThrow(MeshError);
    expect(() => meshFormatFromName("bunny.ply")).toThrow(/\.ply.*\.obj, \.gltf, \.glb and \.stl/);
    expect(meshFormatFromName("part.STL")).toBe("stl");
    expect(() => meshFormatFromName("README")).toThrow(/no extension/);
    expect(() => meshFormatFromName("assets.v2/README")).toThrow(/no extension/);
    expect(meshFormatFromName("C:\\models.old\\cow.OBJ")).toBe("obj");
  });
});
