// Every real asset mesh bakes and drops onto the floor without NaN, and ends up resting on it.

import { describe, expect, it } from "vitest";
import { runScenario } from "../../server/scenarios/run-scenario";

const MESHES = ["spot", "cow", "stanford-bunny", "teapot", "suzanne", "woody"];

describe("asset meshes", () => {
  for (const name of MESHES) {
    it(`${name} bakes and drops without NaN`, async () => {
      const result = await runScenario({
        scenario: "drop", mesh: `../shared/assets/meshes/${name}.obj`, weights: "baseline", handles: 16, cubature: 256, size: 0.3,
        youngsModulus: 1e5, poissonRatio: 0.45, density: 1000, damping: 0.002, dt: 1 / 60, steps: 120,
      });
      for (const f of result.frames) {
        expect([...f.centroid, f.minY, f.energy.kinetic, f.energy.elastic, f.energy.potential].every(Number.isFinite)).toBe(true);
      }
      // It fell 0.5 m onto the floor and did not go through it.
      expect(result.final.minY).toBeGreaterThan(-0.02);
      expect(result.final.minY).toBeLessThan(0.05);
    });
  }
});
