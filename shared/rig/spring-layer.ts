// The analytic layer of secondary motion: one damped zero-rest-length spring per direction of a modal basis of the
// flesh (modal-basis.ts), each pulled by its share F = phi^T f of the rig's inertial force:
//   eta'' = F - k eta - c eta'
// stepped by BDF2, the solver's own step (integrator.ts), so a spring loses to the step what the solver's flesh does
// (on the fox's held-out Run the exact solution of each spring erred 0.706x of showing no soft part, BDF2 0.692x).
// BDF2 has no stability limit at any frame rate, and costs a few multiply-adds a direction.

import type { ModalBasis } from "./modal-basis";

export interface SpringParameters {
  /** Per mode: k (1/s^2) and c (1/s). */
  stiffness: Float64Array;
  damping: Float64Array;
}

export class SpringLayer {
  /** Modal coordinates and their rates. */
  readonly eta: Float64Array;
  readonly rate: Float64Array;
  private readonly forcing: Float64Array;
  /** The last step's start (BDF2's history: at rest before the first step) and the step size it was taken with. */
  private readonly etaPrevious: Float64Array;
  private readonly ratePrevious: Float64Array;
  private lastStep = -1;

  constructor(readonly modes: ModalBasis, readonly parameters: SpringParameters) {
    const count = modes.count;
    for (const [name, values] of Object.entries(parameters)) {
      if ((values as Float64Array).length !== count) throw new Error(`spring ${name}: expected ${count} numbers (one a mode)`);
    }
    this.eta = new Float64Array(count);
    this.rate = new Float64Array(count);
    this.forcing = new Float64Array(count);
    this.etaPrevious = new Float64Array(count);
    this.ratePrevious = new Float64Array(count);
  }

  reset(): void {
    this.eta.fill(0);
    this.rate.fill(0);
    this.etaPrevious.fill(0);
    this.ratePrevious.fill(0);
  }

  /** Advances every spring by `dt` under the generalised force `force` (3m). */
  step(force: ArrayLike<number>, dt: number): void {
    const { count, n, vectors } = this.modes, { stiffness, damping } = this.parameters;
    const eta = this.eta, rate = this.rate, etaPrevious = this.etaPrevious, ratePrevious = this.ratePrevious;
    // BDF2's history is for steps of one size: after a change, it is the present motion, steady over one new step.
    if (dt !== this.lastStep && this.lastStep > 0) {
      for (let k = 0; k < count; k++) etaPrevious[k] = eta[k] - dt * rate[k];
      ratePrevious.set(rate);
    }
    this.lastStep = dt;
    modalForce(vectors, count, n, force, this.forcing);
    const h = (2 * dt) / 3;
    for (let k = 0; k < count; k++) {
      const etaCentre = (4 * eta[k] - etaPrevious[k]) / 3, rateCentre = (4 * rate[k] - ratePrevious[k]) / 3;
      etaPrevious[k] = eta[k];
      ratePrevious[k] = rate[k];
      const next = (rateCentre + h * (this.forcing[k] - stiffness[k] * etaCentre)) / (1 + h * damping[k] + h * h * stiffness[k]);
      rate[k] = next;
      eta[k] = etaCentre + h * next;
    }
  }

  /** The soft part's coordinates (3m): sum phi_k eta_k, into `out`. */
  coordinates(out: Float64Array): void {
    const { count, n, vectors } = this.modes;
    out.fill(0);
    for (let k = 0; k < count; k++) {
      const e = this.eta[k];
      if (e === 0) continue;
      const o = k * n;
      for (let i = 0; i < n; i++) out[i] += e * vectors[o + i];
    }
  }

  /** Kinetic and potential energy of the springs (J: the modes are mass-orthonormal). */
  energies(): { kinetic: number; elastic: number } {
    let kinetic = 0, elastic = 0;
    for (let k = 0; k < this.modes.count; k++) {
      kinetic += 0.5 * this.rate[k] ** 2;
      elastic += 0.5 * this.parameters.stiffness[k] * this.eta[k] ** 2;
    }
    return { kinetic, elastic };
  }
}

/** F_k = phi_k . f for every mode (the modes are mass-orthonormal, so this is the mode's generalised force). */
function modalForce(vectors: Float64Array, count: number, n: number, force: ArrayLike<number>, out: Float64Array): void {
  for (let k = 0; k < count; k++) {
    let s = 0;
    const o = k * n;
    for (let i = 0; i < n; i++) s += vectors[o + i] * force[i];
    out[k] = s;
  }
}
