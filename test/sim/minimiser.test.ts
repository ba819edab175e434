// The minimiser's line search where a trial lands past a hard limit (the step's floor on the volume ratio makes the
// energy infinite there): the trials left must still find the step the limit allows, or the step moves nothing and
// the same happens every step after it (a ratcheted dough body hung in the air, one point squeezed to 1% of its
// volume, its whole evaluation budget spent on trials past the floor).

import { describe, expect, it } from "vitest";
import { LbfgsMinimiser, type Objective } from "../../shared/sim/minimiser";

/** 1/2 |q - target|^2 while q[0] < limit, infinite past it; identity preconditioner. */
function walled(target: number[], limit: number): Objective {
  return {
    evaluate(q, g) {
      let energy = 0;
      for (let i = 0; i < q.length; i++) {
        g[i] = q[i] - target[i];
        energy += 0.5 * g[i] * g[i];
      }
      return q[0] < limit ? energy : Infinity;
    },
    precondition() {},
    stepNorm2: (d) => d.reduce((sum, v) => sum + v * v, 0),
    maxStep: Infinity,
  };
}

describe("minimiser", () => {
  it("a first trial 1e5 times past a hard limit: the line search still finds the step the limit allows", () => {
    // The full step to the target goes 1e5 times as far as the wall allows: halving from it, the 12th trial still
    // lands 49 times past the wall, and the iteration moves nothing.
    const objective = walled([100, 0], 1e-3), minimiser = new LbfgsMinimiser(2);
    const q = new Float64Array(2), g = new Float64Array(2);
    const result = minimiser.minimise(q, g, objective.evaluate(q, g), objective, 1e-9, 1, 14);
    expect(result.iterations).toBe(1);
    expect(q[0]).toBeGreaterThan(1e-5);
    expect(q[0]).toBeLessThan(1e-3);
  });

  it("and after it, iterations walk up to the wall", () => {
    const objective = walled([100, 0], 1e-3), minimiser = new LbfgsMinimiser(2);
    const q = new Float64Array(2), g = new Float64Array(2);
    minimiser.minimise(q, g, objective.evaluate(q, g), objective, 1e-9, 12, 60);
    expect(q[0]).toBeGreaterThan(0.5e-3);
    expect(q[0]).toBeLessThan(1e-3);
    expect(q[1]).toBe(0);
  });
});
