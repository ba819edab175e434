// The full-FEM reference of eval:modes against beam theory, and the reduced model's modes: six rigid ones, and
// elastic ones that a Rayleigh-Ritz subspace cannot push below the full model's by much (only cubature can).

import { describe, expect, it } from "vitest";
import { boxMesh } from "../../shared/geometry";
import { femModes } from "../../server/modes/fem-modes";
import { reducedModes } from "../../server/modes/reduced-modes";
import { exactlyIntegrated } from "../../server/modes/exact-fields";
import { loadBody } from "../../server/scenarios/body-from-mesh";

const BEAM = { youngsModulus: 5e7, poissonRatio: 0.3, density: 1000 };

describe("eval:modes", () => {
  it("FEM: a free-free 1 x 0.1 x 0.1 m beam bends near Euler-Bernoulli and twists at Saint-Venant's frequency", async () => {
    const fem = await femModes(boxMesh(1, 0.1, 0.1), BEAM, 6, { maxTets: 1500 });
    expect(fem.mesher).toBe("tetgen");
    expect(fem.nearZero).toBe(6);
    // Euler-Bernoulli: f1 = 4.7300^2 / (2 pi L^2) sqrt(E I / (rho A)), I = h^4 / 12.
    const eulerBernoulli = (4.73004 ** 2 / (2 * Math.PI)) * Math.sqrt((BEAM.youngsModulus * 0.1 ** 4) / 12 / (BEAM.density * 0.01));
    expect(eulerBernoulli).toBeCloseTo(22.99, 1);
    // Two bending modes (y and z), lower than Euler-Bernoulli by shear and rotary inertia (Timoshenko: about 3.5%
    // at L / h = 10) but by no more than 4%.
    for (const f of fem.frequenciesHz.slice(0, 2)) {
      expect(f / eulerBernoulli).toBeLessThan(1);
      expect(f / eulerBernoulli).toBeGreaterThan(0.96);
    }
    // Torsion of a square bar, free-free: f = sqrt(G J / (rho I_p)) / (2 L), J = 0.1406 a^4, I_p = a^4 / 6.
    const shear = BEAM.youngsModulus / (2 * (1 + BEAM.poissonRatio));
    const torsion = Math.sqrt((shear * 0.1406 * 6) / BEAM.density) / 2;
    const nearest = fem.frequenciesHz.reduce((best, f) => (Math.abs(f - torsion) < Math.abs(best - torsion) ? f : best));
    expect(Math.abs(nearest / torsion - 1)).toBeLessThan(0.01);
  }, 120_000);

  it("reduced: six rigid modes, and elastic ones near the full model's", async () => {
    const loaded = await loadBody({ mesh: "box:1x0.1x0.1", weights: "baseline", handles: 16, cubature: 256, size: 1 });
    const reduced = reducedModes(loaded.subspace, BEAM);
    expect(reduced.nearZero).toBe(6);
    const fem = await femModes(boxMesh(1, 0.1, 0.1), BEAM, 2, { maxTets: 1500 });
    // A subspace is stiffer than the full model; 256 cubature points may soften it a little.
    for (let i = 0; i < 2; i++) {
      expect(reduced.frequenciesHz[i] / fem.frequenciesHz[i]).toBeGreaterThan(0.95);
      expect(reduced.frequenciesHz[i] / fem.frequenciesHz[i]).toBeLessThan(1.5);
    }
  }, 120_000);

  it("exactly integrated, a subspace is never softer than the full model (Rayleigh-Ritz)", async () => {
    const loaded = await loadBody({ mesh: "box:1x0.1x0.1", weights: "baseline", handles: 16, cubature: 256, size: 1 });
    const fem = await femModes(boxMesh(1, 0.1, 0.1), BEAM, 4, { maxTets: 1500, quadrature: true });
    expect(fem.volumes!.length).toBe(4 * fem.tets);
    const volume = fem.volumes!.reduce((a, b) => a + b, 0);
    expect(volume).toBeCloseTo(0.01, 6);
    const exact = reducedModes(await exactlyIntegrated(loaded.baked, loaded.size, fem.points!, fem.volumes!), BEAM);
    expect(exact.nearZero).toBe(6);
    // The FEM's own quadrature integrates the smooth fields almost exactly: allow it half a percent.
    for (let i = 0; i < 4; i++) expect(exact.frequenciesHz[i] / fem.frequenciesHz[i]).toBeGreaterThan(0.995);
  }, 120_000);
});
