// A low-rank Woodbury correction that adds the contacts' Hessian C to a factored preconditioner P without
// refactoring it: C is replaced by its Nystrom approximation on the body's affine motions A (the constant
// channel's 12 coordinates), C A (A^T C A)^+ A^T C = U U^T, and (P + U U^T)^-1 b = y - Z (I + U^T Z)^-1 Z^T b
// with y = P^-1 b and Z = P^-1 U. Setting up costs 12 solves with P; each solve after that 2 x 12 n more.

import { allocate } from "./kernels/allocate";
import type { SolverKernels } from "./kernels/solver-kernels";
import { choleskyFactor, symmetricEigen } from "./linalg";
import type { ContactSnapshot } from "./energy/contact";

/** The constant channel's affine coordinates: 4 an axis (the correction's rank at most). */
export const AFFINE_RANK = 12;

export class AffineContactCorrection {
  /** C A (n x 12, column-major: column c at c * n), then U, then Z = P^-1 U. */
  private readonly v: Float64Array;
  private readonly u: Float64Array;
  private readonly z: Float64Array;
  private readonly s = new Float64Array(AFFINE_RANK * AFFINE_RANK);
  private readonly values = new Float64Array(AFFINE_RANK);
  private readonly vectors = new Float64Array(AFFINE_RANK * AFFINE_RANK);
  private readonly t = new Float64Array(AFFINE_RANK * AFFINE_RANK);
  private readonly coefficients = new Float64Array(AFFINE_RANK);
  private readonly rhs: Float64Array;
  private rank = 0;

  /** With kernels, the right-hand side and C A live in their memory (`rows` must too): C A is summed there. */
  constructor(readonly n: number, readonly m: number, private readonly rows: Float64Array, private readonly kernels: SolverKernels | null = null) {
    if (kernels && !kernels.holds(rows)) throw new Error("the contacts' correction on kernels needs the basis rows in their memory");
    this.v = allocate(kernels, AFFINE_RANK * n);
    this.u = new Float64Array(AFFINE_RANK * n);
    this.z = new Float64Array(AFFINE_RANK * n);
    this.rhs = allocate(kernels, n);
  }

  /** Sets the correction up for these contacts (body-frame normals), given solves with P (b <- P^-1 b). */
  build(contacts: ContactSnapshot, solveP: (b: Float64Array) => void): void {
    const n = this.n, m = this.m, v = this.v, rows = this.rows;
    v.fill(0);
    // Column (a, j) of C: the affine coordinate j (x, y, z, 1 of the constant channel) of component a.
    for (let i = 0; i < contacts.count; i++) {
      const r = contacts.sample[i] * m, wn = contacts.normalWeight[i], wt = contacts.tangentWeight[i];
      const nx = contacts.normal[3 * i], ny = contacts.normal[3 * i + 1], nz = contacts.normal[3 * i + 2];
      if (this.kernels) {
        this.kernels.contactAffineColumns(m, rows, contacts.sample[i], nx, ny, nz, wn, wt, v);
        continue;
      }
      for (let a = 0; a < 3; a++) {
        const na = a === 0 ? nx : a === 1 ? ny : nz;
        for (let c = 0; c < 3; c++) {
          const nc = c === 0 ? nx : c === 1 ? ny : nz;
          const w = wn * nc * na + wt * ((a === c ? 1 : 0) - nc * na);
          if (w === 0) continue;
          for (let j = 0; j < 4; j++) {
            const wb = w * rows[r + j];
            if (wb === 0) continue;
            const column = (4 * a + j) * n + c * m;
            for (let k = 0; k < m; k++) v[column + k] += wb * rows[r + k];
          }
        }
      }
    }
    // S = A^T C A, and its eigenvectors: U = C A E diag(s)^-1/2 over the eigenvalues that are not ~0.
    const s = this.s;
    for (let col = 0; col < AFFINE_RANK; col++) {
      for (let row = 0; row < AFFINE_RANK; row++) s[row * AFFINE_RANK + col] = v[col * n + affineIndex(row, m)];
    }
    symmetricEigen(s, AFFINE_RANK, this.values, this.vectors);
    let largest = 0;
    for (let k = 0; k < AFFINE_RANK; k++) largest = Math.max(largest, this.values[k]);
    this.rank = 0;
    const u = this.u, z = this.z;
    for (let k = 0; k < AFFINE_RANK; k++) {
      const value = this.values[k];
      if (!(value > 1e-9 * largest)) continue;
      const scale = 1 / Math.sqrt(value), out = this.rank * n;
      u.fill(0, out, out + n);
      for (let col = 0; col < AFFINE_RANK; col++) {
        const e = scale * this.vectors[col * AFFINE_RANK + k];
        if (e === 0) continue;
        for (let i = 0; i < n; i++) u[out + i] += e * v[col * n + i];
      }
      const column = this.rhs;
      for (let i = 0; i < n; i++) column[i] = u[out + i];
      solveP(column);
      for (let i = 0; i < n; i++) z[out + i] = column[i];
      this.rank++;
    }
    // T = I + U^T Z, factored.
    const rank = this.rank, t = this.t;
    for (let a = 0; a < rank; a++) {
      for (let b = 0; b < rank; b++) {
        let dot = a === b ? 1 : 0;
        for (let i = 0; i < n; i++) dot += u[a * n + i] * z[b * n + i];
        t[a * rank + b] = dot;
      }
    }
    if (rank > 0 && !choleskyFactor(t, rank)) this.rank = 0;
    else for (let a = 0; a < rank; a++) for (let b = a + 1; b < rank; b++) t[a * rank + b] = t[b * rank + a];
  }

  /** b <- (P + U U^T)^-1 b, given b <- P^-1 b (a solve with the factor the correction was built on). */
  solve(b: Float64Array, solveP: (b: Float64Array) => void): void {
    const n = this.n, rank = this.rank, z = this.z, c = this.coefficients, t = this.t;
    if (rank > 0) this.rhs.set(b);
    solveP(b);
    if (rank === 0) return;
    for (let k = 0; k < rank; k++) {
      let dot = 0;
      for (let i = 0; i < n; i++) dot += z[k * n + i] * this.rhs[i];
      c[k] = dot;
    }
    // The rank x rank solve with T's factor (both sweeps).
    for (let i = 0; i < rank; i++) {
      let sum = c[i];
      for (let k = 0; k < i; k++) sum -= t[i * rank + k] * c[k];
      c[i] = sum / t[i * rank + i];
    }
    for (let i = rank - 1; i >= 0; i--) {
      let sum = c[i];
      for (let k = i + 1; k < rank; k++) sum -= t[i * rank + k] * c[k];
      c[i] = sum / t[i * rank + i];
    }
    for (let k = 0; k < rank; k++) {
      const ck = c[k];
      for (let i = 0; i < n; i++) b[i] -= ck * z[k * n + i];
    }
  }
}

/** Index in q of affine coordinate `index` (component a = index / 4, entry j = index % 4 of the constant channel). */
function affineIndex(index: number, m: number): number {
  return Math.floor(index / 4) * m + (index % 4);
}
