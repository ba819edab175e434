// Fitted cubature: a body vibrates as its own fields do when integrated densely (the cubature adds no softness),
// where centroids of clusters, sitting on a thin part's neutral axis, make it bend far too easily.

import { describe, expect, it } from "vitest";
import { boxMesh, normaliseMesh, sampleInterior } from "../../shared/geometry";
import { exactlyIntegrated } from "../../server/modes/exact-fields";
import { reducedModes } from "../../server/modes/reduced-modes";
import { loadBody } from "../../server/scenarios/body-from-mesh";

const material = { youngsModulus: 1e5, poissonRatio: 0.35, density: 1000 };

/** Dense, volume-uniform quadrature of the 1 x 0.1 x 0.1 m beam (metres), independent of the bake's samples. */
function denseBeamQuadrature(): { points: Float64Array; volumes: Float64Array } {
  const normalised = normaliseMesh(boxMesh(1, 0.1, 0.1));
  const samples = sampleInterior(normalised.mesh, { count: 8, seed: 41, candidates: 20_000, iterations: 0 });
  const s = 0.5, n = samples.candidates.length / 3;
  return { points: samples.candidates.map((v) => v * s), volumes: new Float64Array(n).fill(samples.candidateVolume * s ** 3) };
}

describe("fitted cubature", () => {
  it("vibrates a thin beam as its fields integrated densely do, and clusters do not", async () => {
    const dense = denseBeamQuadrature();
    for (const weights of ["eigen", "baseline"] as const) {
      const fitted = await loadBody({ mesh: "box:1x0.1x0.1", weights, handles: 16, cubature: 256, size: 1, fitCubature: true });
      const clusters = await loadBody({ mesh: "box:1x0.1x0.1", weights, handles: 16, cubature: 256, size: 1, fitCubature: false });
      expect(fitted.baked.cubatureVolumes.length).toBeLessThanOrEqual(256);
      const exact = reducedModes(await exactlyIntegrated(fitted.baked, 1, dense.points, dense.volumes), material).frequenciesHz.slice(0, 6);
      const ratios = (loaded: typeof fitted) => reducedModes(loaded.subspace, material).frequenciesHz.slice(0, 6).map((f, i) => f / exact[i]);
      const fit = ratios(fitted), centroid = ratios(clusters);
      expect(Math.min(...fit), `${weights} fitted ${fit}`).toBeGreaterThanOrEqual(0.98);
      expect(Math.abs(fit.reduce((a, b) => a + b, 0) / 6 - 1), `${weights} fitted ${fit}`).toBeLessThan(0.03);
      expect(Math.min(...centroid), `${weights} clusters ${centroid}`).toBeLessThan(0.95);
    }
  }, 120_000);

  it("weighs what the solid does, so that a uniform squash costs the whole body's energy", async () => {
    // The 0.2 m box is [-1, 1]^3 in the bake's normalised units. A fit that matched only the modes once gave it
    // 1.2-3.6x that volume: nothing in the modes it matched stopped it.
    for (const weights of ["model", "eigen"] as const) {
      const box = await loadBody({ mesh: "box:0.2x0.2x0.2", weights, handles: 16, cubature: 256, size: 0.2, fitCubature: true });
      const volume = box.baked.cubatureVolumes.reduce((a, b) => a + b, 0);
      expect(volume / 8, `${weights}: the cubature's volume against the box's`).toBeCloseTo(1, 2);
    }
  }, 120_000);
});
