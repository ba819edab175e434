// The flesh's linearised complementary dynamics: the solver's equations (character-body.ts) with the rest stiffness
// K, Rayleigh damping beta K and the solver's BDF2 step (integrator.ts), minimised on the rig's complement at the
// current pose:
//   v' = argmin over complementary v of 1/2 v^T A v - b^T v,  A = M + (h beta + h^2) K,  b = M v_c + h (f - K q_c)
// with h = 2 dt / 3, q_c = (4 q_n - q_n-1) / 3, v_c likewise, and q' = q_c + h v'. A is factored once; the
// constraint turns with the pose, so each step runs a few conjugate-gradient iterations preconditioned by A^-1 and
// kept on the constraint by its projection (a projected PCG). No training: it is the body's own physics for the
// small strains a clip stirs, so it holds for any rig and any clip. Solving without the constraint and projecting
// afterwards is not the same: the rig's directions soak up the force through K (on the fox's held-out Run, with an
// implicit Euler step, 1.06x the error of no soft part at all against 0.43x on the constraint; with BDF2, 0.40x
// playing and 0.22x after the stop). q_c's part along the new pose's rig directions is projected away after the
// step; damping it as a velocity, as the solver's equations would, measured 0.50x (0.41x undamped).
// The n x n products and solves (ten a step) run on the solver's WebAssembly SIMD kernels where the platform has
// them: 2.6-3.9x faster than the JS loops at n = 204 (the same sums, in another order: results agree to rounding).

import { choleskyFactor, dotRange } from "../sim/linalg";
import { allocate } from "../sim/kernels/allocate";
import { SolverKernels } from "../sim/kernels/solver-kernels";
import { matrixTimesVector } from "../linalg/matrix-vector";
import { backSubstitute, forwardSubstitute } from "../linalg/triangular-solves";
import { lameParameters, type Material } from "../sim/material";
import type { Subspace } from "../sim/subspace";
import type { ComplementaryProjection } from "./complementary-projection";

/**
 * Conjugate-gradient iterations a step on the constraint (the fox's held-out Run, the error of no soft part playing /
 * after the stop: none 0.88x / 0.83x, one 0.57x / 0.51x, two 0.44x / 0.36x, three 0.39x / 0.22x, ten 0.37x). Started
 * from the last step's velocity instead of the unconstrained solution, three gave 0.56x / 0.44x.
 */
export const LINEAR_FLESH_ITERATIONS = 3;
/** A's ridge, of its largest diagonal: directions the mass samples cannot see (no mass, no stiffness) stay still. */
const RIDGE = 1e-10;
/** What lives in the kernels' memory: K, A and A's factor (n x n each), and the vectors a product or solve touches. */
const KERNEL_MATRICES = 3;
const KERNEL_VECTORS = 5;

export class LinearFlesh {
  /** The soft part's coordinates and their rate (3m each). */
  readonly q: Float64Array;
  readonly velocity: Float64Array;
  readonly n: number;
  /** Per-unit-density mass block (m x m: M = I3 (x) density massBlock) and the rest stiffness K (n x n). */
  private readonly massBlock: Float64Array;
  private readonly m: number;
  private readonly stiffness: Float64Array;
  /** A, and its Cholesky factor L (below the diagonal). */
  private readonly matrix: Float64Array;
  private readonly factor: Float64Array;
  private readonly b: Float64Array;
  private readonly residual: Float64Array;
  private readonly direction: Float64Array;
  private readonly preconditioned: Float64Array;
  private readonly product: Float64Array;
  /** The last step's start (BDF2's history; at rest before the first, whose step is then BDF2's from rest) and its centre q_c, v_c. */
  private readonly qPrevious: Float64Array;
  private readonly velocityPrevious: Float64Array;
  private readonly qCentre: Float64Array;
  private readonly velocityCentre: Float64Array;
  private readonly h: number;
  /** v_c's and b's three components (views made once: a step allocates nothing). */
  private readonly velocityCentreParts: Float64Array[];
  private readonly bParts: Float64Array[];

  /** The material's density (the rig's inertial force scales with it). */
  readonly density: number;

  /** The SIMD kernels whose memory holds the matrices and the vectors they multiply (null: the JS loops). */
  private readonly kernels: SolverKernels | null;
  /** Whether the dense products and solves run on the SIMD kernels. */
  readonly usesSimd: boolean;

  /** `simd`: run the dense products and solves on the WebAssembly SIMD kernels where the platform has them. */
  constructor(subspace: Subspace, material: Material, damping: number, readonly dt: number, simd = true) {
    const n = (this.n = subspace.n), m = subspace.m, { mu, lambda } = lameParameters(material);
    const kernels = (this.kernels = simd ? SolverKernels.forArrays(KERNEL_MATRICES * n * n + KERNEL_VECTORS * n, KERNEL_MATRICES + KERNEL_VECTORS) : null);
    this.usesSimd = kernels !== null;
    this.density = material.density;
    this.m = m;
    this.massBlock = subspace.massBlock;
    this.stiffness = allocate(kernels, n * n);
    subspace.restStiffness(mu, lambda, this.stiffness);
    const h = (this.h = (2 * dt) / 3);
    const matrix = (this.matrix = allocate(kernels, n * n)), c = h * damping + h * h;
    let largest = 0;
    for (let i = 0; i < n * n; i++) matrix[i] = c * this.stiffness[i];
    for (let a = 0; a < 3; a++) for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) matrix[(a * m + i) * n + a * m + j] += material.density * subspace.massBlock[i * m + j];
    for (let i = 0; i < n; i++) largest = Math.max(largest, matrix[i * n + i]);
    for (let i = 0; i < n; i++) matrix[i * n + i] += RIDGE * largest;
    this.factor = allocate(kernels, n * n);
    this.factor.set(matrix);
    if (!choleskyFactor(this.factor, n)) throw new Error("the flesh's step matrix is not positive definite");
    this.q = new Float64Array(n);
    this.velocity = allocate(kernels, n);
    this.b = new Float64Array(n);
    this.residual = new Float64Array(n);
    this.direction = allocate(kernels, n);
    this.preconditioned = allocate(kernels, n);
    this.product = allocate(kernels, n);
    this.qPrevious = new Float64Array(n);
    this.velocityPrevious = new Float64Array(n);
    this.qCentre = allocate(kernels, n);
    this.velocityCentre = new Float64Array(n);
    this.velocityCentreParts = [0, 1, 2].map((a) => this.velocityCentre.subarray(a * m, (a + 1) * m));
    this.bParts = [0, 1, 2].map((a) => this.b.subarray(a * m, (a + 1) * m));
  }

  /**
   * Takes over a soft part moving so (another layer's): BDF2's history is that motion's, steady over the last step
   * (the last step started dt back along the velocity), so the first step goes on at its pace.
   */
  setState(q: ArrayLike<number>, velocity: ArrayLike<number>): void {
    this.q.set(q);
    this.velocity.set(velocity);
    for (let i = 0; i < this.n; i++) this.qPrevious[i] = q[i] - this.dt * velocity[i];
    this.velocityPrevious.set(velocity);
  }

  /** One step under the generalised force `force` (3m), on the constraint as `projection` holds it now. */
  advance(force: ArrayLike<number>, projection: ComplementaryProjection): void {
    const { n, q, velocity: v, b, residual: r, direction: p, preconditioned: z, product: ap, h } = this;
    const qc = this.qCentre, vc = this.velocityCentre, qPrevious = this.qPrevious, vPrevious = this.velocityPrevious;
    for (let i = 0; i < n; i++) {
      qc[i] = (4 * q[i] - qPrevious[i]) / 3;
      vc[i] = (4 * v[i] - vPrevious[i]) / 3;
    }
    qPrevious.set(q);
    vPrevious.set(v);
    // b = M v_c + h (f - K q_c), M block by block.
    const m = this.m, density = this.density, kq = this.product;
    for (let a = 0; a < 3; a++) matrixTimesVector(this.massBlock, m, m, this.velocityCentreParts[a], this.bParts[a]);
    if (this.kernels) this.kernels.gemv(n, n, this.stiffness, qc, kq, 1);
    else matrixTimesVector(this.stiffness, n, n, qc, kq);
    for (let i = 0; i < n; i++) b[i] = density * b[i] + h * (force[i] - kq[i]);
    // Start from the unconstrained solution, projected; then conjugate gradients on the constraint.
    v.set(b);
    this.solve(v);
    projection.project(v);
    this.timesA(v, ap);
    for (let i = 0; i < n; i++) r[i] = b[i] - ap[i];
    projection.projectGradient(r);
    z.set(r);
    this.solve(z);
    projection.project(z);
    p.set(z);
    let rz = dotRange(r, 0, z, 0, n);
    for (let iteration = 0; iteration < LINEAR_FLESH_ITERATIONS && rz > 0; iteration++) {
      this.timesA(p, ap);
      const curvature = dotRange(p, 0, ap, 0, n);
      if (!(curvature > 0)) break;
      const alpha = rz / curvature;
      for (let i = 0; i < n; i++) v[i] += alpha * p[i];
      projection.projectGradient(ap);
      for (let i = 0; i < n; i++) r[i] -= alpha * ap[i];
      z.set(r);
      this.solve(z);
      projection.project(z);
      const next = dotRange(r, 0, z, 0, n), beta = next / rz;
      for (let i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
      rz = next;
    }
    for (let i = 0; i < n; i++) q[i] = qc[i] + h * v[i];
    // q was complementary at the last pose; the pose has moved on. (v is: it is made of projected vectors.)
    projection.project(q);
  }

  /** out = A x (x and out: the kernels' arrays). */
  private timesA(x: Float64Array, out: Float64Array): void {
    if (this.kernels) this.kernels.gemv(this.n, this.n, this.matrix, x, out, 1);
    else matrixTimesVector(this.matrix, this.n, this.n, x, out);
  }

  /** x <- A^-1 x (x: one of the kernels' arrays). */
  private solve(x: Float64Array): void {
    if (this.kernels) {
      this.kernels.choleskySolve(this.n, this.factor, x);
      return;
    }
    forwardSubstitute(this.factor, this.n, x, this.n);
    backSubstitute(this.factor, this.n, x, this.n);
  }
}
