// The flesh's linearised complementary dynamics: the solver's equations (character-body.ts) with the rest stiffness
// K, Rayleigh damping beta K and an implicit Euler step, minimised on the rig's complement at the current pose:
//   v' = argmin over complementary v of 1/2 v^T A v - b^T v,  A = M + (h beta + h^2) K,  b = M v + h (f - K q)
// A is factored once; the constraint turns with the pose, so each step runs a few conjugate-gradient iterations
// preconditioned by A^-1 and kept on the constraint by its projection (a projected PCG). No training: it is the
// body's own physics for the small strains a clip stirs, so it holds for any rig and any clip. Solving without the
// constraint and projecting afterwards is not the same: the rig's directions soak up the force through K (on the
// fox's held-out Run, 1.06x the error of no soft part at all, against 0.43x with three iterations).

import { choleskyFactor, choleskyMirror, choleskySolve, dotRange } from "../sim/linalg";
import { lameParameters, type Material } from "../sim/material";
import type { Subspace } from "../sim/subspace";
import type { ComplementaryProjection } from "./complementary-projection";

/** Conjugate-gradient iterations a step on the constraint (past three, the fox's Run gained 0.1 mm of 2.4). */
export const LINEAR_FLESH_ITERATIONS = 3;
/** A's ridge, of its largest diagonal: directions the mass samples cannot see (no mass, no stiffness) stay still. */
const RIDGE = 1e-10;

export class LinearFlesh {
  /** The soft part's coordinates and their rate (3m each). */
  readonly q: Float64Array;
  readonly velocity: Float64Array;
  readonly n: number;
  private readonly mass: Float64Array;
  private readonly stiffness: Float64Array;
  /** A, and its Cholesky factor (L below the diagonal, L^T above). */
  private readonly matrix: Float64Array;
  private readonly factor: Float64Array;
  private readonly b: Float64Array;
  private readonly residual: Float64Array;
  private readonly direction: Float64Array;
  private readonly preconditioned: Float64Array;
  private readonly product: Float64Array;

  /** The material's density (the rig's inertial force scales with it). */
  readonly density: number;

  constructor(subspace: Subspace, material: Material, damping: number, readonly dt: number) {
    const n = (this.n = subspace.n), m = subspace.m, { mu, lambda } = lameParameters(material);
    this.density = material.density;
    this.stiffness = new Float64Array(n * n);
    for (let i = 0; i < n * n; i++) this.stiffness[i] = mu * subspace.stiffnessMu[i] + lambda * subspace.stiffnessLambda[i];
    this.mass = new Float64Array(n * n);
    for (let a = 0; a < 3; a++) for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) this.mass[(a * m + i) * n + a * m + j] = material.density * subspace.massBlock[i * m + j];
    const matrix = (this.matrix = new Float64Array(n * n)), c = dt * damping + dt * dt;
    let largest = 0;
    for (let i = 0; i < n * n; i++) matrix[i] = this.mass[i] + c * this.stiffness[i];
    for (let i = 0; i < n; i++) largest = Math.max(largest, matrix[i * n + i]);
    for (let i = 0; i < n; i++) matrix[i * n + i] += RIDGE * largest;
    this.factor = Float64Array.from(matrix);
    if (!choleskyFactor(this.factor, n)) throw new Error("the flesh's step matrix is not positive definite");
    choleskyMirror(this.factor, n);
    this.q = new Float64Array(n);
    this.velocity = new Float64Array(n);
    this.b = new Float64Array(n);
    this.residual = new Float64Array(n);
    this.direction = new Float64Array(n);
    this.preconditioned = new Float64Array(n);
    this.product = new Float64Array(n);
  }

  reset(): void {
    this.q.fill(0);
    this.velocity.fill(0);
  }

  /** One step under the generalised force `force` (3m), on the constraint as `projection` holds it now. */
  advance(force: ArrayLike<number>, projection: ComplementaryProjection): void {
    const { n, q, velocity: v, b, residual: r, direction: p, preconditioned: z, product: ap, factor, dt: h } = this;
    for (let i = 0; i < n; i++) b[i] = dotRange(this.mass, i * n, v, 0, n) + h * (force[i] - dotRange(this.stiffness, i * n, q, 0, n));
    // Start from the unconstrained solution, projected; then conjugate gradients on the constraint.
    v.set(b);
    choleskySolve(factor, n, v);
    projection.project(v);
    this.timesA(v, ap);
    for (let i = 0; i < n; i++) r[i] = b[i] - ap[i];
    projection.projectGradient(r);
    z.set(r);
    choleskySolve(factor, n, z);
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
      choleskySolve(factor, n, z);
      projection.project(z);
      const next = dotRange(r, 0, z, 0, n), beta = next / rz;
      for (let i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
      rz = next;
    }
    for (let i = 0; i < n; i++) q[i] += h * v[i];
    // q was complementary at the last pose; the pose has moved on.
    projection.project(q);
    projection.project(v);
  }

  private timesA(x: Float64Array, out: Float64Array): void {
    for (let i = 0; i < this.n; i++) out[i] = dotRange(this.matrix, i * this.n, x, 0, this.n);
  }
}
