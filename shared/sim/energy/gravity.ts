// Gravity and external point forces (a rigid prop pushing on the body): -h~^2 (f_g + f_ext) . q. Linear: no Hessian.

import { SimParameterError } from "../material";
import type { Subspace } from "../subspace";
import type { StepState } from "../step-state";
import type { EnergyTerm } from "./term";

export class ExternalForceTerm implements EnergyTerm {
  density = 0;
  /** Generalised external force for the next step (B^T f of point forces), cleared after it. */
  readonly pointForces: Float64Array;
  hasPointForces = false;

  constructor(private readonly subspace: Subspace, private readonly state: StepState, readonly gravity: readonly [number, number, number]) {
    this.pointForces = new Float64Array(subspace.n);
  }

  /** Adds a force (N, world axes) at point i of a set (basis rows) for the next step. */
  addPointForce(rows: Float64Array, i: number, fx: number, fy: number, fz: number): void {
    const m = this.subspace.m, r = i * m, f = this.pointForces;
    for (let k = 0; k < m; k++) {
      const b = rows[r + k];
      f[k] += b * fx;
      f[m + k] += b * fy;
      f[2 * m + k] += b * fz;
    }
    this.hasPointForces = true;
  }

  /** Adds a generalised force (n numbers, B^T f of a force field) for the next step. */
  addGeneralisedForce(force: ArrayLike<number>): void {
    const f = this.pointForces;
    // Checked whole first: a bad force changes nothing.
    for (let i = 0; i < f.length; i++) if (!Number.isFinite(force[i])) throw new SimParameterError("generalised force must be finite");
    for (let i = 0; i < f.length; i++) f[i] += force[i];
    this.hasPointForces = true;
  }

  clearPointForces(): void {
    if (!this.hasPointForces) return;
    this.pointForces.fill(0);
    this.hasPointForces = false;
  }

  accumulate(q: Float64Array, g: Float64Array): number {
    const m = this.subspace.m, s = this.subspace, h2 = this.state.hTilde * this.state.hTilde;
    let energy = 0;
    for (let a = 0; a < 3; a++) {
      const ga = this.gravity[a] * this.density * h2;
      if (ga === 0) continue;
      const off = a * m;
      for (let i = 0; i < m; i++) {
        energy -= ga * s.massMoment[i] * q[off + i];
        g[off + i] -= ga * s.massMoment[i];
      }
    }
    if (this.hasPointForces) {
      const f = this.pointForces;
      for (let i = 0; i < f.length; i++) {
        energy -= h2 * f[i] * q[i];
        g[i] -= h2 * f[i];
      }
    }
    return energy;
  }
}
