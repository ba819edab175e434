// Inertia: 1/2 (q - x_hat)^T M (q - x_hat), M = I3 (x) (density * massBlock).

import type { Subspace } from "../subspace";
import type { StepState } from "../step-state";
import type { EnergyTerm, HessianTerm } from "./term";

export class InertiaTerm implements EnergyTerm, HessianTerm {
  density = 0;
  private readonly dq: Float64Array;

  constructor(private readonly subspace: Subspace, private readonly state: StepState) {
    this.dq = new Float64Array(subspace.n);
  }

  accumulate(q: Float64Array, g: Float64Array): number {
    const dq = this.dq, xh = this.state.xHat;
    for (let i = 0; i < dq.length; i++) dq[i] = q[i] - xh[i];
    const m = this.subspace.m, mb = this.subspace.massBlock, rho = this.density;
    let energy = 0;
    for (let a = 0; a < 3; a++) {
      const off = a * m;
      for (let i = 0; i < m; i++) {
        let row = 0;
        const r = i * m;
        for (let k = 0; k < m; k++) row += mb[r + k] * dq[off + k];
        row *= rho;
        g[off + i] += row;
        energy += 0.5 * dq[off + i] * row;
      }
    }
    return energy;
  }

  addHessian(matrix: Float64Array, _h: number): void {
    const m = this.subspace.m, n = this.subspace.n, mb = this.subspace.massBlock;
    for (let a = 0; a < 3; a++) {
      for (let i = 0; i < m; i++) {
        const row = (a * m + i) * n + a * m;
        for (let k = 0; k < m; k++) matrix[row + k] += this.density * mb[i * m + k];
      }
    }
  }

  /** |x|_M^2 = x^T M x (kg m^2 for a displacement). */
  massNorm2(x: Float64Array): number {
    const m = this.subspace.m, mb = this.subspace.massBlock;
    let total = 0;
    for (let a = 0; a < 3; a++) {
      const off = a * m;
      for (let i = 0; i < m; i++) {
        const xi = x[off + i];
        if (xi === 0) continue;
        let row = 0;
        const r = i * m;
        for (let k = 0; k < m; k++) row += mb[r + k] * x[off + k];
        total += xi * row;
      }
    }
    return total * this.density;
  }
}
