// Elasticity: h~^2 sum_c V_c Psi(F_c(q)) over the cubature points, stable Neo-Hookean (material.ts).
// Its preconditioner part is the rest Hessian h^2 K in the body's frame: exact for any rigid rotation.
// The pass runs on the WebAssembly SIMD kernel where the platform has it (kernels/), else in the JS loop below.

import { allocate } from "../kernels/allocate";
import type { SolverKernels } from "../kernels/solver-kernels";
import { neoHookeanEnergy, neoHookeanEnergyAndStress } from "../material";
import type { Subspace } from "../subspace";
import type { StepState } from "../step-state";
import type { EnergyTerm, HessianTerm } from "./term";

export class ElasticTerm implements EnergyTerm, HessianTerm {
  mu = 0;
  lambdaStable = 0;
  /** Smallest volume ratio J = det F over the cubature points at the last accumulate. */
  minJ = 1;
  /** Rest stiffness K = mu K_mu + lambda K_lambda (n x n). */
  readonly stiffness: Float64Array;
  private readonly f = new Float64Array(9);
  private readonly p = new Float64Array(9);
  private readonly simd: SimdElasticPass | null;

  /** With `kernels`, the pass runs on them (and the stiffness lives in their memory, for the damping product). */
  constructor(private readonly subspace: Subspace, private readonly state: StepState, kernels: SolverKernels | null = null) {
    this.stiffness = allocate(kernels, subspace.n * subspace.n);
    this.simd = kernels ? new SimdElasticPass(kernels, subspace) : null;
  }

  setLame(mu: number, lambda: number, lambdaStable: number): void {
    this.mu = mu;
    this.lambdaStable = lambdaStable;
    this.subspace.restStiffness(mu, lambda, this.stiffness);
  }

  accumulate(q: Float64Array, g: Float64Array): number {
    return this.accumulateScaled(q, g, this.state.hTilde * this.state.hTilde);
  }

  /** scale * elastic energy at q, adding scale * its gradient into g. */
  accumulateScaled(q: Float64Array, g: Float64Array, scale: number): number {
    if (this.simd) {
      const energy = this.simd.run(q, g, this.mu, this.lambdaStable, scale);
      this.minJ = this.simd.minJ;
      return energy;
    }
    const m = this.subspace.m, s = this.subspace, jac = s.cubatureJacobians, f = this.f, p = this.p;
    let energy = 0, minJ = Infinity;
    for (let c = 0; c < s.cubatureCount; c++) {
      this.deformationGradient(q, c, f);
      const j = f[0] * (f[4] * f[8] - f[5] * f[7]) - f[1] * (f[3] * f[8] - f[5] * f[6]) + f[2] * (f[3] * f[7] - f[4] * f[6]);
      if (j < minJ) minJ = j;
      const vol = scale * s.cubatureVolumes[c];
      energy += vol * neoHookeanEnergyAndStress(f, this.mu, this.lambdaStable, p);
      const p00 = vol * p[0], p01 = vol * p[1], p02 = vol * p[2];
      const p10 = vol * p[3], p11 = vol * p[4], p12 = vol * p[5];
      const p20 = vol * p[6], p21 = vol * p[7], p22 = vol * p[8];
      const base = c * m * 3;
      for (let i = 0; i < m; i++) {
        const oo = base + 3 * i;
        const d0 = jac[oo], d1 = jac[oo + 1], d2 = jac[oo + 2];
        g[i] += p00 * d0 + p01 * d1 + p02 * d2;
        g[m + i] += p10 * d0 + p11 * d1 + p12 * d2;
        g[2 * m + i] += p20 * d0 + p21 * d1 + p22 * d2;
      }
    }
    this.minJ = minJ;
    return energy;
  }

  /** Elastic energy at q, J. */
  energy(q: Float64Array): number {
    const s = this.subspace;
    let total = 0;
    for (let c = 0; c < s.cubatureCount; c++) {
      this.deformationGradient(q, c, this.f);
      total += s.cubatureVolumes[c] * neoHookeanEnergy(this.f, this.mu, this.lambdaStable);
    }
    return total;
  }

  addHessian(matrix: Float64Array, h: number): void {
    const k = this.stiffness, h2 = h * h;
    for (let i = 0; i < k.length; i++) matrix[i] += h2 * k[i];
  }

  /** Deformation gradient at cubature point c for coordinates q (row-major into f). */
  deformationGradient(q: Float64Array, c: number, f: Float64Array): void {
    const m = this.subspace.m, jac = this.subspace.cubatureJacobians, base = c * m * 3;
    let f00 = 1, f01 = 0, f02 = 0, f10 = 0, f11 = 1, f12 = 0, f20 = 0, f21 = 0, f22 = 1;
    for (let i = 0; i < m; i++) {
      const o = base + 3 * i;
      const d0 = jac[o], d1 = jac[o + 1], d2 = jac[o + 2];
      const qx = q[i], qy = q[m + i], qz = q[2 * m + i];
      f00 += qx * d0; f01 += qx * d1; f02 += qx * d2;
      f10 += qy * d0; f11 += qy * d1; f12 += qy * d2;
      f20 += qz * d0; f21 += qz * d1; f22 += qz * d2;
    }
    f[0] = f00; f[1] = f01; f[2] = f02; f[3] = f10; f[4] = f11; f[5] = f12; f[6] = f20; f[7] = f21; f[8] = f22;
  }
}

/**
 * The pass on the SIMD kernel, cubature points in pairs (one per f64x2 lane): each pair's positions and volumes,
 * then each handle's weight and weight gradient, from which the kernel forms the Jacobian's rows as it goes.
 */
class SimdElasticPass {
  minJ = 1;
  private readonly handles: number;
  private readonly pairs: number;
  private readonly pts: Float64Array;
  private readonly q: Float64Array;
  private readonly acc: Float64Array;
  private readonly out: Float64Array;

  constructor(private readonly kernels: SolverKernels, subspace: Subspace) {
    const m = subspace.m, count = subspace.cubatureCount, handles = (this.handles = subspace.handles);
    const pairs = (this.pairs = Math.ceil(count / 2));
    // Per pair, f64x2 each: X0 X1 X2 V, then w gx gy gz for every handle.
    const stride = 8 * (handles + 1);
    this.pts = kernels.alloc(pairs * stride);
    this.q = kernels.alloc(3 * m);
    this.acc = kernels.alloc(6 * m);
    this.out = kernels.alloc(3 * m + 1);
    const { cubaturePositions: x, cubatureWeights: w, cubatureGradients: g } = subspace;
    for (let c = 0; c < 2 * pairs; c++) {
      // An odd count's last lane repeats the last point with no volume: it adds nothing, and its J is a real one.
      const from = Math.min(c, count - 1), lane = c & 1, base = (c >> 1) * stride + lane;
      for (let axis = 0; axis < 3; axis++) this.pts[base + 2 * axis] = x[3 * from + axis];
      this.pts[base + 6] = c < count ? subspace.cubatureVolumes[c] : 0;
      for (let h = 0; h < handles; h++) {
        const at = base + 8 * (h + 1), k = from * handles + h;
        this.pts[at] = w[k];
        for (let axis = 0; axis < 3; axis++) this.pts[at + 2 * (axis + 1)] = g[3 * k + axis];
      }
    }
  }

  /** scale * sum_c V_c Psi(F_c(q)); adds scale * its gradient into g. */
  run(q: Float64Array, g: Float64Array, mu: number, lambdaStable: number, scale: number): number {
    this.q.set(q);
    const energy = this.kernels.elastic(this.handles, this.pairs, this.pts, this.q, this.acc, this.out, mu, lambdaStable, scale);
    const out = this.out, n = this.q.length;
    for (let i = 0; i < n; i++) g[i] += out[i];
    this.minJ = out[n];
    return energy;
  }
}
