// The Rayleigh-Ritz finish on a box's voxel solid, from a rough start (a few smooth fields that are not the
// box's modes, standing in for a network): its Ritz values never fall below the eigen provider's eigenvalues of
// the same solid (min-max), the enlarged span brings them close, and two filtered iterations reproduce them.
// Then the box's closed form (sin(pi x / 2) first, eigenvalue pi^2 / 4 in normalised units) and the grid
// description, as for the eigen fields.

import { describe, expect, it } from "vitest";
import { boxMesh, createInsideTest, meshBounds, normaliseMesh } from "../../shared/geometry";
import { bakeMesh, baselineProvider, createEigenFields, createRitzFields, fieldsFromDescription, ritzFinishProvider, SkinningError, type SkinningFieldProvider, type SkinningFields } from "../../shared/skinning";

/** K smooth fields sin(a . x + b) with fixed, arbitrary frequencies: a rough start, not the box's modes. */
function roughFields(count: number): SkinningFields {
  const a = Array.from({ length: count }, (_, f) => [0.7 + 0.13 * f, 0.4 * Math.cos(f), 0.3 * Math.sin(2 * f)]);
  return {
    count,
    async evaluate(points, weights) {
      const n = points.length / 3;
      for (let i = 0; i < n; i++) for (let f = 0; f < count; f++) {
        weights[i * count + f] = Math.sin(a[f][0] * points[3 * i] + a[f][1] * points[3 * i + 1] + a[f][2] * points[3 * i + 2] + 0.37 * f);
      }
    },
  };
}

describe("Rayleigh-Ritz finish", () => {
  const mesh = normaliseMesh(boxMesh(1, 0.6, 0.4)).mesh;
  const solid = { inside: createInsideTest(mesh), ...meshBounds(mesh.positions) };
  const options = { targetCells: 1500 };
  const exact = createEigenFields(solid, 16, options).eigenvalues;

  it("is never below the voxel eigenvalues, and two Chebyshev-filtered iterations reproduce them", async () => {
    const plain = await createRitzFields(solid, roughFields(16), 16, { ...options, coordinateProducts: false, polynomialDegree: 0, iterations: 0 });
    const enlarged = await createRitzFields(solid, roughFields(16), 16, { ...options, coordinateProducts: true, polynomialDegree: 2, iterations: 0 });
    // The default: the 16 fields as they are, two filtered iterations.
    const iterated = await createRitzFields(solid, roughFields(16), 16, options);
    const error = (values: Float64Array, i: number) => values[i] / exact[i] - 1;
    for (let i = 0; i < 12; i++) {
      expect(error(plain.eigenvalues, i)).toBeGreaterThan(-1e-9);
      expect(error(enlarged.eigenvalues, i)).toBeGreaterThan(-1e-9);
      expect(error(enlarged.eigenvalues, i)).toBeLessThanOrEqual(error(plain.eigenvalues, i) + 1e-9);
      expect(Math.abs(error(iterated.eigenvalues, i))).toBeLessThan(1e-3);
    }
    // The modes are M-orthonormal fields of the grid, 12 modes then 4 bumps, and survive their description.
    expect(iterated.count).toBe(16);
    const points = Float64Array.from([0.3, 0.1, -0.05, -0.8, 0.2, 0.1]), a = new Float64Array(32), b = new Float64Array(32);
    await iterated.evaluate(points, a);
    await fieldsFromDescription(iterated.describe()).evaluate(points, b);
    for (let i = 0; i < 32; i++) expect(b[i]).toBeCloseTo(a[i], 12);
  });

  it("finds the box's lowest Neumann mode, sin(pi x / 2), from the rough start", async () => {
    const fields = await createRitzFields(solid, roughFields(16), 16, { ...options, coordinateProducts: true, polynomialDegree: 2, iterations: 1 });
    expect(Math.abs(fields.eigenvalues[0] / (Math.PI ** 2 / 4) - 1)).toBeLessThan(0.03);
    const count = 200, points = new Float64Array(3 * count), weights = new Float64Array(count * 16);
    for (let i = 0; i < count; i++) points.set([-0.95 + (1.9 * i) / (count - 1), 0.1, -0.1], 3 * i);
    await fields.evaluate(points, weights);
    let ab = 0, aa = 0, bb = 0;
    for (let i = 0; i < count; i++) {
      const w = weights[i * 16], s = Math.sin((Math.PI * points[3 * i]) / 2);
      ab += w * s; aa += w * w; bb += s * s;
    }
    expect(Math.abs(ab) / Math.sqrt(aa * bb)).toBeGreaterThan(0.995);
  });

  it("grows its block to the guards even from a start no wider than the modes: two iterations within 5e-4", async () => {
    // 16 fields for 12 modes and 4 bumps leave 15 directions after the constant: kept at 15, the top modes stall
    // near 1e-3 after two iterations; grown to 12 + 8 guards they are within 5e-4 (2.2e-4 measured).
    const fields = await createRitzFields(solid, roughFields(16), 16, options);
    for (let i = 0; i < 12; i++) expect(Math.abs(fields.eigenvalues[i] / exact[i] - 1)).toBeLessThan(5e-4);
  });

  it("a network that fails on a shape gives way to the fallback provider, and the bake says so", async () => {
    const failing: SkinningFieldProvider = { name: "broken", fieldCount: 16, async fieldsFor() { throw new SkinningError("no latents for this shape"); } };
    const { body, fallback } = await bakeMesh(boxMesh(1, 0.6, 0.4), ritzFinishProvider(failing, baselineProvider), { handles: 8, cubature: 32, fitCubature: false });
    expect(fallback).toEqual({ provider: "baseline", reason: "no latents for this shape" });
    expect(body.provider).toBe("baseline");
    // Without a fallback the error is the bake's.
    await expect(bakeMesh(boxMesh(1, 0.6, 0.4), ritzFinishProvider(failing), { handles: 8, cubature: 32, fitCubature: false })).rejects.toThrow("no latents for this shape");
  });
});
