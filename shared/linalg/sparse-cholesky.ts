// Sparse Cholesky factorisation A = L L^T of a symmetric positive definite matrix, up-looking and simplicial
// (one row of L at a time along the elimination tree, as in Davis's CSparse). No reordering is done here: the
// caller numbers the unknowns in a fill-reducing order (a voxel grid's nested dissection, for instance).

export class SparseCholeskyError extends Error {
  override name = "SparseCholeskyError";
}

/** The upper triangle (row <= column) of a symmetric n x n matrix, by columns. */
export interface UpperCsc {
  n: number;
  /** n + 1 offsets into rows/values. */
  columnStart: Int32Array;
  rows: Int32Array;
  values: Float64Array;
}

export class SparseCholesky {
  private constructor(
    readonly n: number,
    private readonly columnStart: Int32Array,
    private readonly rows: Int32Array,
    private readonly values: Float64Array,
  ) {}

  static factor(a: UpperCsc): SparseCholesky {
    const { n, columnStart: ap, rows: ai, values: ax } = a;
    const parent = eliminationTree(a);
    // Column counts of L: row k's pattern is its reach in the tree, so one symbolic pass counts every column.
    const counts = new Int32Array(n), stack = new Int32Array(n), mark = new Int32Array(n).fill(-1);
    for (let k = 0; k < n; k++) {
      counts[k]++;
      for (let top = reach(a, k, parent, stack, mark); top < n; top++) counts[stack[top]]++;
    }
    const lp = new Int32Array(n + 1);
    for (let j = 0; j < n; j++) lp[j + 1] = lp[j] + counts[j];
    const li = new Int32Array(lp[n]), lx = new Float64Array(lp[n]);
    const next = Int32Array.from(lp.subarray(0, n)), x = new Float64Array(n);
    mark.fill(-1);
    for (let k = 0; k < n; k++) {
      const top = reach(a, k, parent, stack, mark);
      x[k] = 0;
      for (let p = ap[k]; p < ap[k + 1]; p++) if (ai[p] <= k) x[ai[p]] = ax[p];
      let diagonal = x[k];
      x[k] = 0;
      for (let t = top; t < n; t++) {
        const i = stack[t], lki = x[i] / lx[lp[i]];
        x[i] = 0;
        const end = next[i];
        for (let p = lp[i] + 1; p < end; p++) x[li[p]] -= lx[p] * lki;
        diagonal -= lki * lki;
        li[end] = k;
        lx[end] = lki;
        next[i] = end + 1;
      }
      if (!(diagonal > 0)) throw new SparseCholeskyError(`the matrix is not positive definite (pivot ${k} of ${n} is ${diagonal})`);
      li[next[k]] = k;
      lx[next[k]] = Math.sqrt(diagonal);
      next[k]++;
    }
    return new SparseCholesky(n, lp, li, lx);
  }

  /** Overwrites b with A^-1 b. */
  solve(b: Float64Array): void {
    const { n, columnStart: lp, rows: li, values: lx } = this;
    for (let j = 0; j < n; j++) {
      const yj = (b[j] /= lx[lp[j]]);
      for (let p = lp[j] + 1; p < lp[j + 1]; p++) b[li[p]] -= lx[p] * yj;
    }
    for (let j = n - 1; j >= 0; j--) {
      let sum = b[j];
      for (let p = lp[j] + 1; p < lp[j + 1]; p++) sum -= lx[p] * b[li[p]];
      b[j] = sum / lx[lp[j]];
    }
  }
}

/** parent[j]: the elimination tree of A's upper triangle (-1 at roots), with path compression through `ancestor`. */
function eliminationTree(a: UpperCsc): Int32Array {
  const { n, columnStart: ap, rows: ai } = a;
  const parent = new Int32Array(n).fill(-1), ancestor = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    for (let p = ap[k]; p < ap[k + 1]; p++) {
      let i = ai[p];
      while (i !== -1 && i < k) {
        const up = ancestor[i];
        ancestor[i] = k;
        if (up === -1) parent[i] = k;
        i = up;
      }
    }
  }
  return parent;
}

/**
 * The pattern of row k of L (columns < k), written to stack[top..n) in an order where each column comes after
 * every column it updates; returns top. `mark` must hold no k yet (it is stamped with k).
 */
function reach(a: UpperCsc, k: number, parent: Int32Array, stack: Int32Array, mark: Int32Array): number {
  const { n, columnStart: ap, rows: ai } = a;
  let top = n;
  mark[k] = k;
  for (let p = ap[k]; p < ap[k + 1]; p++) {
    let i = ai[p];
    if (i > k) continue;
    let length = 0;
    while (mark[i] !== k) {
      stack[length++] = i;
      mark[i] = k;
      i = parent[i];
    }
    while (length > 0) stack[--top] = stack[--length];
  }
  return top;
}
