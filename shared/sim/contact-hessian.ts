// The contacts' Hessian for the preconditioner's contact factor (preconditioner.ts), assembled a slice at a time:
// sum_i W_i (x) b_i b_i^T with W_i = w_n n n^T + w_t (I - n n^T). Contacts with (nearly) the same normal n share
// W's structure, so a group's sum is I (x) G_t + n n^T (x) G_d with two m x m Grams G_t = sum w_t b b^T and
// G_d = sum (w_n - w_t) b b^T: m^2 multiply-adds a contact instead of 9 m^2. The group's normal stands for its
// members' (within ~25 degrees): a preconditioner need not be exact. With kernels, the sums run on them (three to
// four times faster than the JS loops, which keep the same numbers).

import type { ContactSnapshot } from "./energy/contact";
import type { SolverKernels } from "./kernels/solver-kernels";

/** Normal directions the preconditioner tells apart at most: contacts beyond them join the nearest. */
export const CONTACT_NORMAL_GROUPS = 6;

export class ContactHessianAssembler {
  /** Each group's G_t and G_d (m x m, row-major; the upper triangle while adding, both once finished). */
  private readonly tangent: Float64Array;
  private readonly difference: Float64Array;
  private readonly groupNormal = new Float64Array(3 * CONTACT_NORMAL_GROUPS);
  private readonly group: Int32Array;
  private groups = 0;

  /** With `kernels`, `rows` (the surface samples' basis rows) and the matrices finished into must be in their memory. */
  constructor(readonly m: number, capacity: number, private readonly rows: Float64Array, private readonly kernels: SolverKernels | null = null) {
    if (kernels && !kernels.holds(rows)) throw new Error("the contacts' Hessian sums on kernels need the basis rows in their memory");
    const size = CONTACT_NORMAL_GROUPS * m * m;
    this.tangent = kernels ? kernels.alloc(size) : new Float64Array(size);
    this.difference = kernels ? kernels.alloc(size) : new Float64Array(size);
    this.group = new Int32Array(capacity);
  }

  /** Multiply-adds of one contact, and of finishing a group. */
  get contactCost(): number {
    return this.m * this.m;
  }

  get finishCost(): number {
    return 9 * this.m * this.m * Math.max(1, this.groups);
  }

  /** Sorts the snapshot's contacts into normal groups and clears the sums. */
  begin(snapshot: ContactSnapshot): void {
    this.groups = 0;
    for (let i = 0; i < snapshot.count; i++) {
      const nx = snapshot.normal[3 * i], ny = snapshot.normal[3 * i + 1], nz = snapshot.normal[3 * i + 2];
      let best = -1, bestDot = -Infinity;
      for (let g = 0; g < this.groups; g++) {
        const d = nx * this.groupNormal[3 * g] + ny * this.groupNormal[3 * g + 1] + nz * this.groupNormal[3 * g + 2];
        if (d > bestDot) { bestDot = d; best = g; }
      }
      if (bestDot < 0.9 && this.groups < CONTACT_NORMAL_GROUPS) {
        best = this.groups++;
        this.groupNormal[3 * best] = nx;
        this.groupNormal[3 * best + 1] = ny;
        this.groupNormal[3 * best + 2] = nz;
      }
      this.group[i] = best;
    }
    const size = this.m * this.m * Math.max(1, this.groups);
    this.tangent.fill(0, 0, size);
    this.difference.fill(0, 0, size);
  }

  /** Adds contacts [from, to) into their groups' sums (upper triangles). */
  add(snapshot: ContactSnapshot, from: number, to: number): void {
    const m = this.m, rows = this.rows, kernels = this.kernels;
    for (let i = from; i < to; i++) {
      const sample = snapshot.sample[i], wt = snapshot.tangentWeight[i], wd = snapshot.normalWeight[i] - wt, o = this.group[i] * m * m;
      if (kernels) {
        kernels.contactGrams(m, rows, sample, wt, wd, this.tangent, this.difference, o);
        continue;
      }
      const r = sample * m;
      for (let j = 0; j < m; j++) {
        const bj = rows[r + j];
        if (bj === 0) continue;
        const tj = wt * bj, dj = wd * bj, row = o + j * m;
        for (let k = j; k < m; k++) {
          const bk = rows[r + k];
          this.tangent[row + k] += tj * bk;
          this.difference[row + k] += dj * bk;
        }
      }
    }
  }

  /** Adds the groups' sums into the n x n matrix (all nine blocks, both triangles). */
  finish(matrix: Float64Array): void {
    const m = this.m, n = 3 * m, nn = this.groupNormal, kernels = this.kernels;
    for (let g = 0; g < this.groups; g++) {
      const o = g * m * m;
      mirrorUpper(this.tangent, o, m);
      mirrorUpper(this.difference, o, m);
      for (let a = 0; a < 3; a++) {
        for (let b = 0; b < 3; b++) {
          const d = nn[3 * g + a] * nn[3 * g + b], t = a === b ? 1 : 0;
          if (kernels) {
            kernels.addScaledPair(m, n, matrix, a * m, b * m, t, this.tangent, d, this.difference, o);
            continue;
          }
          for (let j = 0; j < m; j++) {
            const row = (a * m + j) * n + b * m, from = o + j * m;
            for (let k = 0; k < m; k++) matrix[row + k] += t * this.tangent[from + k] + d * this.difference[from + k];
          }
        }
      }
    }
  }
}

/** Copies the upper triangle of the m x m matrix at a[o..] onto its lower one. */
function mirrorUpper(a: Float64Array, o: number, m: number): void {
  for (let j = 1; j < m; j++) for (let k = 0; k < j; k++) a[o + j * m + k] = a[o + k * m + j];
}
