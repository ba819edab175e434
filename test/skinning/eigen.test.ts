// Skinning eigenmodes: on a box they are the Laplacian's Neumann eigenfunctions (known in closed form); their
// subspace vibrates closer to full FEM than the baseline's; they survive their description (what a browser gets).

import { describe, expect, it } from "vitest";
import { boxMesh, normaliseMesh, sampleInterior } from "../../shared/geometry";
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

describe("eigen fields", () => {
  it("on a box are its Laplacian's lowest Neumann eigenfunctions, and survive their description", async () => {
    // Normalised, the 1 x 0.4 x 0.3 box spans [-1, 1] in x: its lowest modes are sin(pi x / 2) (eigenvalue
    // pi^2 / 4), then cos(pi x) (pi^2; the y mode's is pi^2 / 0.64).
    const mesh = normaliseMesh(boxMesh(1, 0.4, 0.3)).mesh;
    const interior = sampleInterior(mesh, { count: 256, seed: 5 }).candidates;
    const fields = createEigenFields(interior, 4);
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
