// Inertia: 1/2 (q - x_hat)^T M (q - x_hat), M = I3 (x) (density * massBlock).

import { allocate } from "../kernels/allocate";
import type { SolverKernels } from "../kernels/solver-kernels";
import type { Subspace } from "../subspace";
import type { StepState } from "../step-state";
import type { EnergyTerm, HessianTerm } from "./term";

export class InertiaTerm implements EnergyTerm, HessianTerm {
  density = 0;
  private readonly dq: Float64Array;
  /** With kernels: the mass block and M dq in their memory. */
  private readonly massBlock: Float64Array;
  private readonly product: Float64Array;
  /** The three components of dq and of the product (views made once: the hot path allocates nothing). */
  private readonly dqParts: Float64Array[];
  private readonly productParts: Float64Array[];

  constructor(private readonly subspace: Subspace, private readonly state: StepState, private readonly kernels: SolverKernels | null = null) {
    const m = subspace.m;
    this.dq = allocate(kernels, subspace.n);
    this.product = allocate(kernels, subspace.n);
    this.massBlock = allocate(kernels, m * m);
    this.massBlock.set(subspace.massBlock);
    this.dqParts = [0, 1, 2].map((a) => this.dq.subarray(a * m, (a + 1) * m));
    this.productParts = [0, 1, 2].map((a) => this.product.subarray(a * m, (a + 1) * m));
  }

  accumulate(q: Float64Array, g: Float64Array): number {
    const dq = this.dq, xh = this.state.xHat;
    for (let i = 0; i < dq.length; i++) dq[i] = q[i] - xh[i];
    const m = this.subspace.m, mb = this.massBlock, rho = this.density;
    if (this.kernels) return this.accumulateWithKernels(g);
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

  /** product <- M dq on the kernels: M = I3 (x) (rho massBlock), the block times each component. */
  private massTimesDq(kernels: SolverKernels): void {
    const m = this.subspace.m;
    for (let a = 0; a < 3; a++) kernels.gemv(m, m, this.massBlock, this.dqParts[a], this.productParts[a], this.density);
  }

  private accumulateWithKernels(g: Float64Array): number {
    const dq = this.dq, product = this.product;
    this.massTimesDq(this.kernels!);
    let energy = 0;
    for (let i = 0; i < dq.length; i++) {
      g[i] += product[i];
      energy += dq[i] * product[i];
    }
    return 0.5 * energy;
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
    if (this.kernels) {
      const dq = this.dq, product = this.product;
      dq.set(x);
      this.massTimesDq(this.kernels);
      let total = 0;
      for (let i = 0; i < dq.length; i++) total += dq[i] * product[i];
      return total;
    }
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
