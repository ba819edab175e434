import { describe, expect, it } from "vitest";
import { MESH_LIMITS, MeshError, meshBounds, normaliseMesh, parseMesh, signedVolume } from "../../shared/geometry";
import { ASSET_NAMES, edgeUseCounts, encodeText, loadAsset, readAsset } from "./helpers";
import { splitTextureSeams } from "../../shared/skinning";

// Unique vertices after merging exact duplicates (seams of per-corner UV/normal indices) and dropping
// unreferenced ones; triangles after fan-triangulating quads.
const EXPECTED = {
  spot: { vertices: 2930, triangles: 5856 },
  cow: { vertices: 2903, triangles: 5804 },
  "stanford-bunny": { vertices: 34834, triangles: 69451 },
  teapot: { vertices: 3241, triangles: 6320 },
  suzanne: { vertices: 505, triangles: 968 },
  woody: { vertices: 694, triangles: 1267 },
} as const;

describe("parseMesh on the asset OBJ files", () => {
  for (const name of ASSET_NAMES) {
    it(`${name}: parses, cleans and normalises into [-1, 1]^3 with largest extent 2`, async () => {
      const mesh = await loadAsset(name);
      expect(mesh.positions).toBeInstanceOf(Float64Array);
      expect(mesh.triangles).toBeInstanceOf(Uint32Array);
      expect(mesh.positions.length / 3).toBe(EXPECTED[name].vertices);
      expect(mesh.triangles.length / 3).toBe(EXPECTED[name].triangles);
      const vertexCount = mesh.positions.length / 3;
      expect(mesh.triangles.reduce((a, b) => Math.max(a, b), 0)).toBeLessThan(vertexCount);

      const { mesh: normalised, center, scale } = normaliseMesh(mesh);
      const { min, max } = meshBounds(normalised.positions);
      const extents = [0, 1, 2].map((k) => max[k] - min[k]);
      expect(Math.max(...extents)).toBeCloseTo(2, 12);
      for (let k = 0; k < 3; k++) {
        expect(min[k]).toBeGreaterThanOrEqual(-1 - 1e-12);
        expect(max[k]).toBeLessThanOrEqual(1 + 1e-12);
        expect(min[k] + max[k]).toBeCloseTo(0, 12); // centred
      }
      // (p - center) / scale maps back to the original.
      expect(normalised.positions[0] * scale + center[0]).toBeCloseTo(mesh.positions[0], 9);
    });
  }

  it("suzanne's quads become triangles (500 faces, 968 triangles) and her surface stays connected", async () => {
    const text = new TextDecoder().decode(readAsset("suzanne"));
    const faceLines = text.split("\n").filter((line) => line.startsWith("f "));
    const quadCount = faceLines.filter((line) => line.trim().split(/\s+/).length === 5).length;
    expect(quadCount).toBeGreaterThan(400);
    const mesh = await loadAsset("suzanne");
    expect(mesh.triangles.length / 3).toBe(faceLines.length + quadCount);
    // After merging, almost every edge is shared by two triangles (only eyes and the known open rim are not).
    const uses = [...edgeUseCounts(mesh.triangles).values()];
    expect(uses.filter((u) => u === 1).length).toBeLessThanOrEqual(42);
  });

  it("merges the teapot's seam duplicates, closing most of its boundary", async () => {
    const mesh = await loadAsset("teapot");
    const boundary = [...edgeUseCounts(mesh.triangles).values()].filter((u) => u === 1).length;
    expect(boundary).toBeLessThan(200); // 1,036 boundary edges before merging
  });

  it("spot and cow are closed and wound outward", async () => {
    for (const name of ["spot", "cow"] as const) {
      const mesh = await loadAsset(name);
      expect([...edgeUseCounts(mesh.triangles).values()].every((u) => u === 2)).toBe(true);
      expect(signedVolume(mesh)).toBeGreaterThan(0);
    }
  });

  it("the default limits accept the 70k-triangle bunny with room to spare", () => {
    expect(MESH_LIMITS.maxTriangles).toBeGreaterThanOrEqual(1_000_000);
    expect(MESH_LIMITS.maxVertices).toBeGreaterThanOrEqual(1_000_000);
    expect(MESH_LIMITS.maxBytes).toBeGreaterThanOrEqual(readAsset("stanford-bunny").byteLength * 10);
  });
});

describe("parseMesh on hand-written OBJ", () => {
  it("merges every object and group, triangulates polygons, ignores normals, UVs, lines and points", async () => {
    const obj = [
      "# two objects: a quad and a pentagon, plus a line and a point",
      "o first",
      "v 0 0 0", "v 1 0 0", "v 1 1 0", "v 0 1 0",
      "vt 0 0", "vn 0 0 1",
      "f 1/1/1 2/1/1 3/1/1 4/1/1",
      "o second",
      "g part",
      "v 0 0 1", "v 1 0 1", "v 1.5 0.5 1", "v 1 1 1", "v 0 1 1",
      "f -5 -4 -3 -2 -1",
      "l 1 5",
      "p 2",
    ].join("\r\n");
    const mesh = await parseMesh(encodeText(obj), "obj");
    expect(mesh.positions.length / 3).toBe(9);
    expect(mesh.triangles.length / 3).toBe(2 + 3);
  });

  it("keeps vertex colours (v x y z r g b, sRGB) as linear colours, one colour point per distinct colour", async () => {
    const obj = ["v 0 0 0 1 0 0", "v 1 0 0 1 0 0", "v 0 1 0 0.5 0.5 0.5", "v 0 0 1 1 0 0", "f 1 3 2", "f 1 2 4", "f 1 4 3", "f 2 3 4"].join("\n");
    const mesh = await parseMesh(encodeText(obj), "obj");
    expect(mesh.colors!.length / 3).toBe(2);
    const colourAt = (vertex: number) => {
      const k = Array.from(mesh.triangles).indexOf(vertex), c = mesh.colorTriangles![k];
      return Array.from(mesh.colors!.subarray(3 * c, 3 * c + 3));
    };
    // sRGB 0.5 is linear 0.214.
    const grey = mesh.positions.findIndex((_, i) => i % 3 === 0 && mesh.positions[i + 1] > 0.5) / 3;
    expect(colourAt(grey).map((v) => v.toFixed(3))).toEqual(["0.214", "0.214", "0.214"]);
    expect(colourAt(grey === 0 ? 1 : 0)).toEqual([1, 0, 0]);
    const plain = await parseMesh(encodeText(obj.replace(/ 1 0 0$| 0\.5 0\.5 0\.5$/gm, "")), "obj");
    expect(plain.colors).toBeUndefined();
  });

  it("rejects an empty file", async () => {
    await expect(parseMesh(new Uint8Array(0), "obj")).rejects.toThrow(MeshError);
    await expect(parseMesh(new Uint8Array(0), "obj")).rejects.toThrow(/empty/);
  });

  it("rejects OBJ text without faces", async () => {
    await expect(parseMesh(encodeText("v 0 0 0\nv 1 0 0\nv 0 1 0\n"), "obj")).rejects.toThrow(/no faces/);
    await expect(parseMesh(encodeText("this is not an OBJ file"), "obj")).rejects.toThrow(MeshError);
  });

  it("rejects NaN and Infinity coordinates, naming the vertex", async () => {
    const nan = "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n";
    await expect(parseMesh(encodeText(nan), "obj")).rejects.toThrow(MeshError);
    await expect(parseMesh(encodeText(nan), "obj")).rejects.toThrow(/non-finite coordinate \(NaN\)/);
    await expect(parseMesh(encodeText("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n"), "obj")).rejects.toThrow(/missing vertex/);
    const infinite = "v 0 0 0\nv 1e400 0 0\nv 0 1 0\nf 1 2 3\n";
    await expect(parseMesh(encodeText(infinite), "obj")).rejects.toThrow(/Infinity/);
  });

  it("rejects a file whose triangles are all degenerate", async () => {
    const collinear = "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 0 0\nf 1 2 3\nf 1 4 2\n";
    await expect(parseMesh(encodeText(collinear), "obj")).rejects.toThrow(/all 2 triangles are degenerate/);
  });

  it("rejects files over the byte, vertex or triangle limits, saying what the limit is", async () => {
    const bytes = readAsset("cow");
    await expect(parseMesh(bytes, "obj", { limits: { maxBytes: 1000 } })).rejects.toThrow(/180,177 bytes; the limit is 1,000/);
    await expect(parseMesh(bytes, "obj", { limits: { maxTriangles: 5000 } })).rejects.toThrow(/5,804 triangles; the limit is 5,000/);
    await expect(parseMesh(bytes, "obj", { limits: { maxVertices: 100 } })).rejects.toThrow(/2,903 vertices; the limit is 100/);
    // The vertex limit counts real vertices, not the three-per-triangle copies the loader emits.
    const fan = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n" + "f 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n".repeat(100);
    await expect(parseMesh(encodeText(fan), "obj", { limits: { maxVertices: 4 } })).resolves.toBeDefined();
    await expect(parseMesh(encodeText(fan), "obj", { limits: { maxVertices: 3 } })).rejects.toThrow(/4 vertices; the limit is 3/);
    // A single huge polygon line counts as its triangles before the loader expands it.
    const bigPolygon = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf " + Array.from({ length: 50 }, (_, i) => (i % 3) + 1).join(" ") + "\n";
    await expect(parseMesh(encodeText(bigPolygon), "obj", { limits: { maxTriangles: 40 } })).rejects.toThrow(/48 triangles; the limit is 40/);
  });

  it("rejects an unknown format value", async () => {
    await expect(parseMesh(encodeText("v 0 0 0"), "ply" as never)).rejects.toThrow(/unknown mesh format/);
  });
});

describe("texture coordinates", () => {
  it("spot keeps the file's UV of every triangle corner (a second index, the mesh stays welded), and the render mesh splits along the seams", async () => {
    const text = new TextDecoder().decode(await readAsset("spot"));
    const vt: number[][] = [], corners: { v: number; vt: number }[] = [];
    for (const line of text.split("\n")) {
      const [kind, ...rest] = line.trim().split(/\s+/);
      if (kind === "vt") vt.push(rest.slice(0, 2).map(Number));
      if (kind === "f") for (const corner of rest) corners.push({ v: Number(corner.split("/")[0]) - 1, vt: Number(corner.split("/")[1]) - 1 });
    }
    const mesh = await loadAsset("spot");
    expect(mesh.positions.length / 3).toBe(EXPECTED.spot.vertices); // welded as before
    expect(mesh.uvTriangles!.length).toBe(corners.length);
    for (let k = 0; k < corners.length; k++) {
      const uv = mesh.uvTriangles![k];
      expect(mesh.uvs![2 * uv]).toBeCloseTo(vt[corners[k].vt][0], 6);
      expect(mesh.uvs![2 * uv + 1]).toBeCloseTo(vt[corners[k].vt][1], 6);
    }
    // Split for drawing: one vertex per (vertex, UV point) pair the corners use, at its welded vertex's place.
    const n = mesh.positions.length / 3, table = {
      influences: 4, vertexCount: n, positions: Float32Array.from(mesh.positions), normals: new Float32Array(3 * n), triangles: mesh.triangles,
      handles: new Uint8Array(4 * n), weights: new Float32Array(4 * n), tangentDerivatives1: new Float32Array(4 * n), tangentDerivatives2: new Float32Array(4 * n),
    };
    const split = splitTextureSeams(table, { values: mesh.uvs!, corners: mesh.uvTriangles! });
    const pairs = new Set(corners.map((c) => `${c.v}/${c.vt}`));
    expect(split.vertexCount).toBe(pairs.size);
    expect(split.vertexCount).toBeGreaterThan(n);
    for (let k = 0; k < split.triangles.length; k++) {
      const a = split.triangles[k], b = mesh.triangles[k], uv = mesh.uvTriangles![k];
      for (let c = 0; c < 3; c++) expect(split.positions[3 * a + c]).toBe(table.positions[3 * b + c]);
      expect(split.uvs![2 * a]).toBe(Math.fround(mesh.uvs![2 * uv]));
      expect(split.uvs![2 * a + 1]).toBe(Math.fround(mesh.uvs![2 * uv + 1]));
    }
  });

  it("a mesh without texture coordinates has none; faces without them in a textured file get (0, 0)", async () => {
    const plain = await parseMesh(encodeText("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n"), "obj");
    expect(plain.uvs).toBeUndefined();
    const partly = await parseMesh(encodeText("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n"), "obj");
    expect(partly.triangles.length).toBe(12);
    const uvOf = (k: number) => [partly.uvs![2 * partly.uvTriangles![k]], partly.uvs![2 * partly.uvTriangles![k] + 1]];
    expect([0, 1, 2].map(uvOf)).toEqual([[0, 0], [1, 0], [0, 1]]);
    for (let k = 3; k < 12; k++) expect(uvOf(k)).toEqual([0, 0]);
  });
});
