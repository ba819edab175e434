// Skinning eigenmodes: on a box they are the Laplacian's Neumann eigenfunctions (known in closed form); their
// subspace vibrates closer to full FEM than the baseline's; they survive their description (what a browser gets).

import { describe, expect, it } from "vitest";
import { boxMesh, createInsideTest, meshBounds, normaliseMesh, sampleInterior, type TriangleMesh } from "../../shared/geometry";
import { createEigenFields, fieldsFromDescription } from "../../shared/skinning";
import { femModes } from "../../server/modes/fem-modes";
import { reducedModes } from "../../server/modes/reduced-modes";
import { loadBody } from "../../server/scenarios/body-from-mesh";

function correlation(a: Float64Array, stride: number, field: number, b: number[]): number {
  let ab = 0, aa = 0, bb = 0, ma = 0, mb = 0;
  const n = b.length;
  for (let i = 0; i < n; i++) { ma += a[i * stride + field] / n; mb += b[i] / n; }
  for (let i = 0; i < n; i++) {
    const x = a[i * stride + field] - ma, y = b[i] - mb;
    ab += x * y; aa += x * x; bb += y * y;
  }
  return ab / Math.sqrt(aa * bb);
}

function solidOf(mesh: TriangleMesh) {
  return { inside: createInsideTest(mesh), ...meshBounds(mesh.positions) };
}

/** An axis-aligned box from min to max corner. */
function box(min: number[], max: number[]): TriangleMesh {
  const mesh = boxMesh(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  const positions = mesh.positions.map((v, i) => v + (min[i % 3] + max[i % 3]) / 2);
  return { ...mesh, positions };
}

/** Overlapping closed boxes as one triangle soup: the winding-number inside test sees their union. */
function union(parts: TriangleMesh[]): TriangleMesh {
  const positions: number[] = [], triangles: number[] = [];
  for (const part of parts) {
    const offset = positions.length / 3;
    positions.push(...part.positions);
    triangles.push(...Array.from(part.triangles, (t) => t + offset));
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}

describe("eigen fields", () => {
  it("on a box are its Laplacian's lowest Neumann eigenfunctions, and survive their description", async () => {
    // Normalised, the 1 x 0.4 x 0.3 box spans [-1, 1] in x: its lowest modes are sin(pi x / 2) (eigenvalue
    // pi^2 / 4), then cos(pi x) (pi^2), then the y mode sin(pi y / 0.8) (pi^2 / 0.64).
    const mesh = normaliseMesh(boxMesh(1, 0.4, 0.3)).mesh;
    const interior = sampleInterior(mesh, { count: 256, seed: 5 }).candidates;
    const fields = createEigenFields(solidOf(mesh), 4, { localFields: 0 });
    const exact = [Math.PI ** 2 / 4, Math.PI ** 2, Math.PI ** 2 / 0.64];
    exact.forEach((value, i) => expect(Math.abs(fields.eigenvalues[i] / value - 1)).toBeLessThan(0.03));
    const count = 2000, points = new Float64Array(3 * count);
    for (let i = 0; i < count; i++) points.set(interior.subarray(3 * i * 3, 3 * i * 3 + 3), 3 * i);
    const weights = new Float64Array(count * 4);
    await fields.evaluate(points, weights);
    const xs = Array.from({ length: count }, (_, i) => points[3 * i]);
    expect(Math.abs(correlation(weights, 4, 0, xs.map((x) => Math.sin((Math.PI * x) / 2))))).toBeGreaterThan(0.995);
    expect(Math.abs(correlation(weights, 4, 1, xs.map((x) => Math.cos(Math.PI * x))))).toBeGreaterThan(0.99);
    const again = fieldsFromDescription(fields.describe!());
    const rebuilt = new Float64Array(count * 4);
    await again.evaluate(points, rebuilt);
    for (let i = 0; i < rebuilt.length; i++) expect(rebuilt[i]).toBeCloseTo(weights[i], 12);
  });

  it("follow the solid, not straight lines: the tips of a U's two legs, close across its gap, move apart", async () => {
    // Two legs 0.1 apart, joined only at the top: along the solid the tips are ~3 apart, so the lowest mode
    // swings them against each other (opposite values), which fields built on straight-line distance cannot do.
    const u = union([box([-0.55, -1, -0.2], [-0.05, 0.6, 0.2]), box([0.05, -1, -0.2], [0.55, 0.6, 0.2]), box([-0.55, 0.5, -0.2], [0.55, 1, 0.2])]);
    const fields = createEigenFields(solidOf(u), 2, { localFields: 0 });
    const tips = Float64Array.of(-0.1, -0.95, 0, 0.1, -0.95, 0, 0, 0.9, 0);
    const w = new Float64Array(6);
    await fields.evaluate(tips, w);
    // Fields are M-orthonormal: RMS over the solid's volume (~1.7) is ~0.77; the tips sit near the extremes.
    expect(w[0] * w[2]).toBeLessThan(0);
    expect(Math.abs(w[0] - w[2])).toBeGreaterThan(1.5);
  });

  it("vibrate closer to full FEM than the baseline's on a beam", async () => {
    const material = { youngsModulus: 5e7, poissonRatio: 0.3, density: 1000 };
    const fem = await femModes(boxMesh(1, 0.1, 0.1), material, 4, { maxTets: 1500 });
    const ratio = async (weights: "baseline" | "eigen") => {
      const loaded = await loadBody({ mesh: "box:1x0.1x0.1", weights, handles: 16, cubature: 256, size: 1 });
      const reduced = reducedModes(loaded.subspace, material).frequenciesHz;
      return fem.frequenciesHz.map((f, i) => reduced[i] / f).reduce((a, b) => a + b, 0) / fem.frequenciesHz.length;
    };
    const eigen = await ratio("eigen"), baseline = await ratio("baseline");
    expect(eigen).toBeLessThan(baseline);
    expect(eigen).toBeLessThan(1.1);
  }, 120_000);
});
