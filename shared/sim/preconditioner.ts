// The matrix the quasi-Newton iterations are preconditioned with: the Hessian of the incremental potential at
// rest, rotated into the body's current frame (rotation-aware rest Hessian), plus penalty terms.
// Mass, stiffness and isotropic penalties (pins, grabs) give P0; a rigid rotation R of the whole body turns it
// into (R (x) I) P0 (R^T (x) I) exactly, so P0 is factored once and solves just rotate the right-hand side.
// Contacts are not isotropic (they push along a normal): while there are any, P0 rotated plus the contact
// term is assembled and factored, and refactored only when the contact set or the rotation changes.

import { choleskyFactor, choleskyMirror, choleskySolve } from "./linalg";

export class Preconditioner {
  /** Assembled P0 (kept to build the contact version). */
  readonly base: Float64Array;
  private readonly baseFactor: Float64Array;
  private readonly full: Float64Array;
  private readonly rotatedScratch: Float64Array;
  private readonly vectorScratch: Float64Array;
  private baseFactored = false;
  private fullFactored = false;
  private useFull = false;
  /** Rotation (row-major 3x3) the full factor was built with. */
  readonly fullRotation = new Float64Array(9);
  refactorCount = 0;

  constructor(readonly n: number, readonly m: number) {
    this.base = new Float64Array(n * n);
    this.baseFactor = new Float64Array(n * n);
    this.full = new Float64Array(n * n);
    this.rotatedScratch = new Float64Array(n * n);
    this.vectorScratch = new Float64Array(n);
  }

  /** Call after changing `base`: both factors are rebuilt on next use. */
  invalidate(): void {
    this.baseFactored = false;
    this.fullFactored = false;
  }

  /** Use the rotated P0 alone (no contacts). */
  useBase(): void {
    this.useFull = false;
    if (!this.baseFactored) {
      this.baseFactor.set(this.base);
      if (!choleskyFactor(this.baseFactor, this.n)) throw new Error("preconditioner is not positive definite");
      choleskyMirror(this.baseFactor, this.n);
      this.baseFactored = true;
      this.refactorCount++;
    }
  }

  /** Whether the contact factor must be rebuilt for this rotation (angle between rotations above ~10 degrees). */
  needsFullRefactor(rotation: Float64Array): boolean {
    if (!this.fullFactored) return true;
    // trace(R_old^T R) = 1 + 2 cos(angle)
    let trace = 0;
    for (let k = 0; k < 9; k++) trace += this.fullRotation[k] * rotation[k];
    return trace < 1 + 2 * Math.cos(0.175);
  }

  /**
   * Builds and factors (R (x) I) P0 (R^T (x) I) + contact term; `addContacts` adds the contact Hessian into the
   * matrix it is given.
   */
  factorWithContacts(rotation: Float64Array, addContacts: (matrix: Float64Array) => void): void {
    this.rotateMatrix(this.base, rotation, this.full);
    addContacts(this.full);
    this.factorFull(rotation);
  }

  /** Factors a matrix the caller fills in completely (the exact Newton matrix of a hard step). */
  factorAssembled(rotation: Float64Array, fill: (matrix: Float64Array) => void): void {
    fill(this.full);
    this.factorFull(rotation);
  }

  /** target = (R (x) I) source (R^T (x) I) for a symmetric n x n source. */
  rotateMatrix(source: Float64Array, rotation: Float64Array, target: Float64Array): void {
    const n = this.n, m = this.m, t = this.rotatedScratch;
    // t = (R (x) I) source: row block a = sum_c R[a][c] * row block c.
    for (let a = 0; a < 3; a++) {
      const r0 = rotation[3 * a], r1 = rotation[3 * a + 1], r2 = rotation[3 * a + 2];
      for (let i = 0; i < m; i++) {
        const dst = (a * m + i) * n, s0 = i * n, s1 = (m + i) * n, s2 = (2 * m + i) * n;
        for (let k = 0; k < n; k++) t[dst + k] = r0 * source[s0 + k] + r1 * source[s1 + k] + r2 * source[s2 + k];
      }
    }
    // target = t (R^T (x) I): column block a = sum_c R[a][c] * column block c.
    for (let row = 0; row < n; row++) {
      const o = row * n;
      for (let a = 0; a < 3; a++) {
        const r0 = rotation[3 * a], r1 = rotation[3 * a + 1], r2 = rotation[3 * a + 2];
        for (let j = 0; j < m; j++) target[o + a * m + j] = r0 * t[o + j] + r1 * t[o + m + j] + r2 * t[o + 2 * m + j];
      }
    }
  }

  private factorFull(rotation: Float64Array): void {
    if (!choleskyFactor(this.full, this.n)) throw new Error("contact preconditioner is not positive definite");
    choleskyMirror(this.full, this.n);
    this.fullRotation.set(rotation);
    this.fullFactored = true;
    this.useFull = true;
    this.refactorCount++;
  }

  /** Keep using the current contact factor. */
  reuseFull(): void {
    this.useFull = true;
  }

  /** x <- P^-1 x, with the body's current rotation (used only on the rotated-base path). */
  solve(x: Float64Array, rotation: Float64Array): void {
    if (this.useFull) {
      choleskySolve(this.full, this.n, x);
      return;
    }
    const m = this.m, tmp = this.vectorScratch;
    // tmp = (R^T (x) I) x
    for (let a = 0; a < 3; a++) {
      const r0 = rotation[a], r1 = rotation[3 + a], r2 = rotation[6 + a];
      for (let i = 0; i < m; i++) tmp[a * m + i] = r0 * x[i] + r1 * x[m + i] + r2 * x[2 * m + i];
    }
    choleskySolve(this.baseFactor, this.n, tmp);
    // x = (R (x) I) tmp
    for (let a = 0; a < 3; a++) {
      const r0 = rotation[3 * a], r1 = rotation[3 * a + 1], r2 = rotation[3 * a + 2];
      for (let i = 0; i < m; i++) x[a * m + i] = r0 * tmp[i] + r1 * tmp[m + i] + r2 * tmp[2 * m + i];
    }
  }
}
