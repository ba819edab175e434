// The analytic layer of secondary motion: one damped zero-rest-length spring per direction of a modal basis of the
// flesh (modal-basis.ts), each pulling its coordinate eta towards the quasi-static target the rig's inertia sets,
// eta* = g F / k (F = phi^T f, the direction's share of the rig's inertial force, f as the constraint leaves it):
//   eta'' = -k (eta - eta*) - c eta'
// With F held over a frame, the step is the exact solution, e = eta - eta* evolving by exp(A h) with
// A = [[0, 1], [-k, -c]]: no stability limit at any frame rate, and a few multiply-adds a direction. Stiffness k,
// damping c and gain g per direction are fitted to the solver's own trajectories (spring-fit.ts).

import type { ModalBasis } from "./modal-basis";

export interface SpringParameters {
  /** Per mode: k (1/s^2), c (1/s), g (the forcing's gain). */
  stiffness: Float64Array;
  damping: Float64Array;
  gain: Float64Array;
}

export class SpringLayer {
  /** Modal coordinates and their rates. */
  readonly eta: Float64Array;
  readonly rate: Float64Array;
  private readonly forcing: Float64Array;
  /** Per mode, exp(A h) for the last step size h: [e_e, e_r, r_e, r_r]. */
  private readonly transition: Float64Array;
  private transitionStep = -1;

  constructor(readonly modes: ModalBasis, readonly parameters: SpringParameters) {
    const count = modes.count;
    for (const [name, values] of Object.entries(parameters)) {
      if ((values as Float64Array).length !== count) throw new Error(`spring ${name}: expected ${count} numbers (one a mode)`);
    }
    this.eta = new Float64Array(count);
    this.rate = new Float64Array(count);
    this.forcing = new Float64Array(count);
    this.transition = new Float64Array(4 * count);
  }

  reset(): void {
    this.eta.fill(0);
    this.rate.fill(0);
  }

  /** Advances every spring by `dt` under the generalised force `force` (3m), held over the step. */
  step(force: ArrayLike<number>, dt: number): void {
    if (dt !== this.transitionStep) this.prepare(dt);
    const { count, n, vectors } = this.modes, { stiffness, gain } = this.parameters, t = this.transition;
    modalForce(vectors, count, n, force, this.forcing);
    for (let k = 0; k < count; k++) {
      const target = (gain[k] * this.forcing[k]) / stiffness[k];
      const e = this.eta[k] - target, r = this.rate[k], o = 4 * k;
      this.eta[k] = target + t[o] * e + t[o + 1] * r;
      this.rate[k] = t[o + 2] * e + t[o + 3] * r;
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

  private prepare(h: number): void {
    const { stiffness, damping } = this.parameters;
    for (let i = 0; i < this.modes.count; i++) springTransition(stiffness[i], damping[i], h, this.transition, 4 * i);
    this.transitionStep = h;
  }
}

/**
 * exp(A h) for A = [[0, 1], [-k, -c]] (a damped spring's state (e, e')), into out[o..o+4] row by row:
 * e^(sigma h) [C I + S (A - sigma I)] with sigma = -c/2 and C, S by the kind of damping.
 */
export function springTransition(k: number, c: number, h: number, out: Float64Array, o: number): void {
  const sigma = -c / 2, discriminant = (c * c) / 4 - k, decay = Math.exp(sigma * h);
  let cosine: number, sine: number;
  if (discriminant < 0) {
    const w = Math.sqrt(-discriminant);
    cosine = Math.cos(w * h); sine = Math.sin(w * h) / w;
  } else if (discriminant > 0) {
    const g = Math.sqrt(discriminant);
    cosine = Math.cosh(g * h); sine = Math.sinh(g * h) / g;
  } else {
    cosine = 1; sine = h;
  }
  out[o] = decay * (cosine + (sine * c) / 2);
  out[o + 1] = decay * sine;
  out[o + 2] = -decay * sine * k;
  out[o + 3] = decay * (cosine - (sine * c) / 2);
}

/** F_k = phi_k . f for every mode (the modes are mass-orthonormal, so this is the mode's generalised force). */
export function modalForce(vectors: Float64Array, count: number, n: number, force: ArrayLike<number>, out: Float64Array): void {
  for (let k = 0; k < count; k++) {
    let s = 0;
    const o = k * n;
    for (let i = 0; i < n; i++) s += vectors[o + i] * force[i];
    out[k] = s;
  }
}

/** eta_k = phi_k^T M q for coordinates q (M = density x the mass block, per component). */
export function modalCoordinates(modes: ModalBasis, massBlock: Float64Array, density: number, q: ArrayLike<number>, out: Float64Array, scratch: Float64Array): void {
  const { count, n, vectors } = modes, m = n / 3;
  // scratch = M q.
  for (let a = 0; a < 3; a++) {
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let j = 0; j < m; j++) s += massBlock[i * m + j] * q[a * m + j];
      scratch[a * m + i] = density * s;
    }
  }
  modalForce(vectors, count, n, scratch, out);
}

