// Stiffness-proportional (Rayleigh) damping in the body's rotated frame: h~/2 beta (q - q_c)^T D (q - q_c) with
// D = (R (x) I) K (R^T (x) I): rigid rotation dissipates nothing. In the body frame its Hessian is h beta K.

import { allocate } from "../kernels/allocate";
import type { SolverKernels } from "../kernels/solver-kernels";
import { dotRange } from "../linalg";
import type { Subspace } from "../subspace";
import type { StepState } from "../step-state";
import type { ElasticTerm } from "./elastic";
import type { EnergyTerm, HessianTerm } from "./term";

export class DampingTerm implements EnergyTerm, HessianTerm {
  /** beta, s. */
  beta = 0;
  private readonly e: Float64Array;
  private readonly y: Float64Array;

  /** With kernels, the elastic term's stiffness must live in their memory too (ElasticTerm does that). */
  constructor(private readonly subspace: Subspace, private readonly state: StepState, private readonly elastic: ElasticTerm, private readonly kernels: SolverKernels | null = null) {
    this.e = allocate(kernels, subspace.n);
    this.y = allocate(kernels, subspace.n);
  }

  accumulate(q: Float64Array, g: Float64Array): number {
    if (this.beta === 0) return 0;
    const n = this.subspace.n, m = this.subspace.m, r = this.state.rotation, k = this.elastic.stiffness, qc = this.state.qCentre;
    const coefficient = this.state.hTilde * this.beta;
    const e = this.e, y = this.y;
    // e = (R^T (x) I)(q - q_c)
    for (let a = 0; a < 3; a++) {
      const r0 = r[a], r1 = r[3 + a], r2 = r[6 + a];
      for (let i = 0; i < m; i++) e[a * m + i] = r0 * (q[i] - qc[i]) + r1 * (q[m + i] - qc[m + i]) + r2 * (q[2 * m + i] - qc[2 * m + i]);
    }
    let energy = 0;
    // This n^2 product is the hottest loop after elasticity.
    if (this.kernels) this.kernels.gemv(n, n, k, e, y, coefficient);
    else for (let i = 0; i < n; i++) y[i] = coefficient * dotRange(k, i * n, e, 0, n);
    for (let i = 0; i < n; i++) energy += 0.5 * e[i] * y[i];
    // g += (R (x) I) y
    for (let a = 0; a < 3; a++) {
      const r0 = r[3 * a], r1 = r[3 * a + 1], r2 = r[3 * a + 2];
      for (let i = 0; i < m; i++) g[a * m + i] += r0 * y[i] + r1 * y[m + i] + r2 * y[2 * m + i];
    }
    return energy;
  }

  addHessian(matrix: Float64Array, h: number): void {
    if (this.beta === 0) return;
    const k = this.elastic.stiffness, c = h * this.beta;
    for (let i = 0; i < k.length; i++) matrix[i] += c * k[i];
  }
}
