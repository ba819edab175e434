import { describe, expect, it } from "vitest";
import { MeshError, cleanMesh } from "../../shared/geometry";

describe("cleanMesh", () => {
  it("merges vertices closer than the tolerance, drops degenerate triangles and unreferenced vertices", () => {
    const positions = new Float64Array([
      0, 0, 0, // 0
      1, 0, 0, // 1
      0, 1, 0, // 2
      1, 0, 1e-9, // 3: duplicate of 1 within 1e-7 x diagonal
      1, 1, 0, // 4
      5, 5, 5, // 5: unreferenced
      0.5, 0, 0, // 6: on the segment 0-1, makes a zero-area triangle
    ]);
    const triangles = new Uint32Array([
      0, 1, 2, // kept
      3, 4, 2, // kept, uses 1 after merging
      0, 3, 1, // repeated vertex after merging: dropped
      0, 6, 1, // collinear, zero area: dropped
    ]);
    const mesh = cleanMesh({ positions, triangles });
    expect(Array.from(mesh.triangles)).toEqual([0, 1, 2, 1, 3, 2]);
    expect(Array.from(mesh.positions)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]);
  });

  it("does not merge vertices that are merely close in a large mesh's units", () => {
    // 1e-4 apart in a 1 m mesh is 1e-4 of the diagonal: a real feature, not a duplicate.
    const positions = new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1e-4, 0, 0]);
    const mesh = cleanMesh({ positions, triangles: new Uint32Array([0, 1, 2, 3, 1, 2]) });
    expect(mesh.positions.length / 3).toBe(4);
  });

  it("merges duplicates regardless of which side of a hash-grid cell boundary they fall", () => {
    // A fan of n triangles over points on the x axis; each triangle uses the next point's near-duplicate.
    const n = 200;
    const positions = new Float64Array(3 * (2 * n + 1));
    for (let i = 0; i < n; i++) positions.set([i / n, 0, 0, i / n + 3e-8, 1e-8, 0], 6 * i); // diagonal ~1.4
    positions.set([0.5, 1, 0], 6 * n); // apex
    const triangles = new Uint32Array(3 * (n - 1));
    for (let i = 0; i + 1 < n; i++) triangles.set([2 * i, 2 * (i + 1) + 1, 2 * n], 3 * i);
    const mesh = cleanMesh({ positions, triangles });
    expect(mesh.positions.length / 3).toBe(n + 1);
    expect(mesh.triangles.length / 3).toBe(n - 1);
  });

  it("throws MeshError for malformed arrays, bad indices and non-finite coordinates", () => {
    expect(() => cleanMesh({ positions: new Float64Array(4), triangles: new Uint32Array(3) })).toThrow(/not a multiple of 3/);
    expect(() => cleanMesh({ positions: new Float64Array(9), triangles: new Uint32Array([0, 1, 3]) })).toThrow(
      /uses vertex 3, but the mesh has only 3 vertices/,
    );
    expect(() => cleanMesh({ positions: new Float64Array(9), triangles: new Uint32Array(0) })).toThrow(/no triangles/);
    const infinite = new Float64Array([0, 0, 0, 1, 0, 0, 0, Infinity, 0]);
    expect(() => cleanMesh({ positions: infinite, triangles: new Uint32Array([0, 1, 2]) })).toThrow(MeshError);
    expect(() => cleanMesh({ positions: infinite, triangles: new Uint32Array([0, 1, 2]) })).toThrow(/vertex 2 has a non-finite coordinate/);
  });

  it("throws MeshError when every triangle is degenerate", () => {
    const allSame = { positions: new Float64Array([1, 1, 1, 1, 1, 1, 1, 1, 1]), triangles: new Uint32Array([0, 1, 2]) };
    expect(() => cleanMesh(allSame)).toThrow(/degenerate/);
    const slivers = { positions: new Float64Array([0, 0, 0, 1, 0, 0, 2, 0, 1e-15]), triangles: new Uint32Array([0, 1, 2]) };
    expect(() => cleanMesh(slivers)).toThrow(/all 1 triangles are degenerate/);
  });

  it("enforces injected vertex and triangle limits", () => {
    const mesh = { positions: new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), triangles: new Uint32Array([0, 1, 2, 0, 2, 1]) };
    expect(() => cleanMesh(mesh, { limits: { maxTriangles: 1 } })).toThrow(/2 triangles; the limit is 1/);
    expect(() => cleanMesh(mesh, { limits: { maxVertices: 2 } })).toThrow(/3 vertices; the limit is 2/);
  });

  it("leaves its input untouched", () => {
    const positions = new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0]);
    const triangles = new Uint32Array([0, 1, 3, 0, 1, 2]);
    cleanMesh({ positions, triangles });
    expect(Array.from(triangles)).toEqual([0, 1, 3, 0, 1, 2]);
    expect(positions[10]).toBe(1);
  });
});
