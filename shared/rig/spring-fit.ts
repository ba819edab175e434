// Fits the spring layer's springs to the solver's own trajectories: per direction of the basis, the stiffness k,
// damping c and gain g whose spring, driven by the same forces from rest and stepped exactly as the layer steps it,
// comes closest to the solver's coordinate over every training run (least squares on the trajectory). The gain is
// linear in the trajectory, so it is solved for each (k, c); k and c are searched on a grid of natural frequencies
// and damping ratios, then on a finer grid around the best.
//
// A fit to the equation of motion itself (eta'' + c eta' + k eta = g F by finite differences) fails here: clips are
// keyframed, so the rig's acceleration is a train of spikes at the keys, while the flesh integrates them smoothly.

import type { ModalBasis } from "./modal-basis";
import { modalCoordinates, modalForce, springTransition, type SpringParameters } from "./spring-layer";

/** One run of the solver to fit on: its coordinates q and the generalised force f at every step (3m each). */
export interface SpringTrainingRun {
  q: ArrayLike<number>[];
  force: ArrayLike<number>[];
  dt: number;
}

/** Natural frequencies searched (rad/s) and damping ratios. */
const FREQUENCIES = geometric(2 * Math.PI * 0.3, 2 * Math.PI * 40, 36);
const DAMPING_RATIOS = geometric(0.02, 4, 16);
const REFINEMENTS = 8;

export function fitSprings(basis: ModalBasis, massBlock: Float64Array, density: number, runs: SpringTrainingRun[]): SpringParameters {
  const { count, n, vectors } = basis;
  // Every run's coordinates and forcing per direction.
  const data = runs.map((run) => {
    const steps = run.q.length, eta = new Float64Array(steps * count), forcing = new Float64Array(steps * count);
    const scratch = new Float64Array(n), row = new Float64Array(count);
    for (let s = 0; s < steps; s++) {
      modalCoordinates(basis, massBlock, density, run.q[s], row, scratch);
      eta.set(row, s * count);
      modalForce(vectors, count, n, run.force[s], row);
      forcing.set(row, s * count);
    }
    return { steps, dt: run.dt, eta, forcing };
  });
  const stiffness = new Float64Array(count), damping = new Float64Array(count), gain = new Float64Array(count);
  const transition = new Float64Array(4);
  // Residual of the best gain for a spring (k, c) on direction d, and that gain.
  const score = (d: number, k: number, c: number): { residual: number; gain: number } => {
    let cross = 0, unit2 = 0, data2 = 0;
    for (const run of data) {
      springTransition(k, c, run.dt, transition, 0);
      let e = 0, r = 0;
      for (let s = 0; s < run.steps; s++) {
        // The unit-gain spring's step, as SpringLayer.step takes it.
        const target = run.forcing[s * count + d] / k, x = e - target;
        e = target + transition[0] * x + transition[1] * r;
        r = transition[2] * x + transition[3] * r;
        const observed = run.eta[s * count + d];
        cross += e * observed; unit2 += e * e; data2 += observed * observed;
      }
    }
    const g = unit2 > 0 ? cross / unit2 : 0;
    return { residual: data2 - g * cross, gain: g };
  };
  for (let d = 0; d < count; d++) {
    let best = { residual: Infinity, gain: 0, w: FREQUENCIES[0], zeta: 1 };
    const search = (frequencies: number[], ratios: number[]) => {
      for (const w of frequencies) for (const zeta of ratios) {
        const result = score(d, w * w, 2 * zeta * w);
        if (result.residual < best.residual) best = { ...result, w, zeta };
      }
    };
    search(FREQUENCIES, DAMPING_RATIOS);
    // Each refinement spans the previous grid's step around the best, then halves it (in log terms).
    let wSpread = ratio(FREQUENCIES), zetaSpread = ratio(DAMPING_RATIOS);
    for (let refine = 0; refine < REFINEMENTS; refine++) {
      search(geometric(best.w / wSpread, best.w * wSpread, 7), geometric(best.zeta / zetaSpread, best.zeta * zetaSpread, 7));
      wSpread = Math.sqrt(wSpread);
      zetaSpread = Math.sqrt(zetaSpread);
    }
    stiffness[d] = best.w * best.w;
    damping[d] = 2 * best.zeta * best.w;
    gain[d] = best.gain;
  }
  return { stiffness, damping, gain };
}

function ratio(grid: number[]): number {
  return grid[1] / grid[0];
}

function geometric(from: number, to: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from * (to / from) ** (i / (count - 1)));
}
