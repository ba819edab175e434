// Everything a soft body's next step starts from, kept aside (SoftBody.saveState / restoreState): its state, the
// lagged normal forces friction uses, the BDF2 history and the warm starts. A client that runs a replay
// beside its live prediction swaps the two whole, so that neither restarts its integrator at every swap.

import type { SavedHistory } from "./integrator";

/** The arrays of a body a step starts from: its state, the lagged normal forces, the warm starts (of the solve, and of its rotation's polar decomposition). */
export interface StepStart {
  q: Float64Array;
  velocity: Float64Array;
  normalForce: Float64Array;
  lastCorrection: Float64Array;
  quat: Float64Array;
}

export interface SavedBodyState extends StepStart {
  lastConverged: boolean;
  history: SavedHistory;
}

export function copyStepStart(from: StepStart, into: StepStart): void {
  into.q.set(from.q);
  into.velocity.set(from.velocity);
  into.normalForce.set(from.normalForce);
  into.lastCorrection.set(from.lastCorrection);
  into.quat.set(from.quat);
}

/** Room for the state of a body of `n` coordinates and `surfaceCount` surface samples. */
export function savedBodyState(n: number, surfaceCount: number): SavedBodyState {
  const state = () => new Float64Array(n);
  return {
    q: state(), velocity: state(), normalForce: new Float64Array(surfaceCount), lastCorrection: state(), quat: Float64Array.of(0, 0, 0, 1), lastConverged: true,
    history: { qPrev: state(), velocityPrev: state(), hasPast: false },
  };
}
