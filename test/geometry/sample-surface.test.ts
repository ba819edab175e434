import { describe, expect, it } from "vitest";
import { MeshError, boxMesh, sampleSurface, sphereMesh } from "../../shared/geometry";
import { loadNormalisedAsset } from "./helpers";

describe("sampleSurface", () => {
  it("spreads samples over a 2 x 1 x 1 box's faces in proportion to their areas", () => {
    // Two segments a side: the end faces' triangles are half the size of the others', so picking
    // triangles uniformly instead of by area would give each axis 1/3 of the samples.
    const box = boxMesh(2, 1, 1, 1);
    const count = 40_000;
    const { points, normals } = sampleSurface(box, count, 3);
    // Faces by normal axis: the four 2 x 1 faces have 8 of the box's 10 area units, the two 1 x 1 ends 2.
    const perAxis = [0, 0, 0];
    let offFace = 0;
    for (let s = 0; s < count; s++) {
      const axis = [0, 1, 2].find((k) => Math.abs(normals[3 * s + k]) > 0.999)!;
      perAxis[axis]++;
      // The sample lies on the face its normal names.
      if (Math.abs(Math.abs(points[3 * s + axis]) - (axis === 0 ? 1 : 0.5)) > 1e-12) offFace++;
    }
    expect(offFace).toBe(0);
    expect(Math.abs(perAxis[0] / count - 0.2)).toBeLessThan(0.01);
    expect(Math.abs(perAxis[1] / count - 0.4)).toBeLessThan(0.01);
    expect(Math.abs(perAxis[2] / count - 0.4)).toBeLessThan(0.01);
  });

  it("is uniform within a face (no clustering at corners or on the diagonal)", () => {
    const box = boxMesh(1, 1, 1, 1); // 2 x 2 quads a face
    const count = 60_000;
    const { points, normals } = sampleSurface(box, count, 5);
    // On the +z face, 4 x 4 bins (each straddling triangle diagonals) should fill evenly.
    const bins = new Array<number>(16).fill(0);
    let onFace = 0;
    for (let s = 0; s < count; s++) {
      if (normals[3 * s + 2] < 0.999) continue;
      onFace++;
      const bx = Math.min(3, Math.floor((points[3 * s] + 0.5) * 4)), by = Math.min(3, Math.floor((points[3 * s + 1] + 0.5) * 4));
      bins[bx + 4 * by]++;
    }
    // Chi-square over 16 bins (15 degrees of freedom): 37.7 is the 0.1 % tail.
    const expected = onFace / 16;
    const chiSquare = bins.reduce((sum, bin) => sum + (bin - expected) ** 2 / expected, 0);
    expect(chiSquare).toBeLessThan(37.7);
  });

  it("returns unit, outward normals on a closed mesh, and the triangle each sample lies on", async () => {
    const spot = await loadNormalisedAsset("spot");
    const sphere = sphereMesh(1, 3);
    const { points, normals, triangle } = sampleSurface(sphere, 2000, 1);
    for (let s = 0; s < 2000; s++) {
      const n = [normals[3 * s], normals[3 * s + 1], normals[3 * s + 2]];
      expect(Math.hypot(n[0], n[1], n[2])).toBeCloseTo(1, 12);
      expect(n[0] * points[3 * s] + n[1] * points[3 * s + 1] + n[2] * points[3 * s + 2]).toBeGreaterThan(0.9);
      expect(triangle[s]).toBeLessThan(sphere.triangles.length / 3);
    }
    const spotSamples = sampleSurface(spot, 1000, 2);
    for (let s = 0; s < 1000; s++) {
      // The sample lies in the plane of its triangle.
      const t = spotSamples.triangle[s], a = 3 * spot.triangles[3 * t];
      const offset = [0, 1, 2].reduce((sum, k) => sum + (spotSamples.points[3 * s + k] - spot.positions[a + k]) * spotSamples.normals[3 * s + k], 0);
      expect(Math.abs(offset)).toBeLessThan(1e-12);
    }
  });

  it("is deterministic for a seed and differs between seeds", () => {
    const box = boxMesh(1, 2, 3);
    const a = sampleSurface(box, 500, 9), b = sampleSurface(box, 500, 9), c = sampleSurface(box, 500, 10);
    expect(b.points).toEqual(a.points);
    expect(b.triangle).toEqual(a.triangle);
    expect(c.points).not.toEqual(a.points);
  });

  it("rejects bad counts and zero-area surfaces", () => {
    const box = boxMesh(1, 1, 1);
    expect(() => sampleSurface(box, -1, 0)).toThrow(MeshError);
    expect(() => sampleSurface(box, 1.5, 0)).toThrow(/integer/);
    expect(sampleSurface(box, 0, 0).points.length).toBe(0);
    expect(() => sampleSurface({ positions: new Float64Array(9), triangles: new Uint32Array([0, 1, 2]) }, 10, 0)).toThrow(/total area/);
  });
});
