// Solves with a lower-triangular factor L kept row by row (`stride` numbers a row), in place: the cubature fit's NNLS
// (a factor that grows and shrinks) and linalg's choleskySolve (only L's lower triangle is read). Several rows at a
// time, each row's terms still added in the order a row alone adds them: the same numbers as the plain loops, with the
// chains of dependent operations overlapped.

/**
 * x <- L^-1 x for the lower-triangular L (rows `stride` apart) over the first n entries. Four rows at a time: each
 * row's sum is the one a row alone would add, in the same order (the block's own earlier rows last), and the four
 * chains of dependent subtractions overlap.
 */
export function forwardSubstitute(l: Float64Array, stride: number, x: Float64Array, n: number): void {
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const r0 = i * stride, r1 = r0 + stride, r2 = r1 + stride, r3 = r2 + stride;
    let s0 = x[i], s1 = x[i + 1], s2 = x[i + 2], s3 = x[i + 3];
    for (let k = 0; k < i; k++) {
      const xk = x[k];
      s0 -= l[r0 + k] * xk; s1 -= l[r1 + k] * xk; s2 -= l[r2 + k] * xk; s3 -= l[r3 + k] * xk;
    }
    x[i] = s0 = s0 / l[r0 + i];
    s1 -= l[r1 + i] * s0;
    x[i + 1] = s1 = s1 / l[r1 + i + 1];
    s2 -= l[r2 + i] * s0; s2 -= l[r2 + i + 1] * s1;
    x[i + 2] = s2 = s2 / l[r2 + i + 2];
    s3 -= l[r3 + i] * s0; s3 -= l[r3 + i + 1] * s1; s3 -= l[r3 + i + 2] * s2;
    x[i + 3] = s3 / l[r3 + i + 3];
  }
  for (; i < n; i++) {
    const row = i * stride;
    let sum = x[i];
    for (let k = 0; k < i; k++) sum -= l[row + k] * x[k];
    x[i] = sum / l[row + i];
  }
}

/**
 * x <- L^-T x for the lower-triangular L (rows `stride` apart) over the first n entries, column by column so that L
 * is read along its rows. Four rows of L a pass over x: each entry loses the rows' terms in the same order as one row
 * a pass (the highest row first), with a quarter of the loads and stores of x.
 */
export function backSubstitute(l: Float64Array, stride: number, x: Float64Array, n: number): void {
  let i = n - 1;
  for (; i >= 3; i -= 4) {
    const r0 = i * stride, r1 = r0 - stride, r2 = r1 - stride, r3 = r2 - stride;
    const x0 = (x[i] /= l[r0 + i]);
    x[i - 1] -= l[r0 + i - 1] * x0; x[i - 2] -= l[r0 + i - 2] * x0; x[i - 3] -= l[r0 + i - 3] * x0;
    const x1 = (x[i - 1] /= l[r1 + i - 1]);
    x[i - 2] -= l[r1 + i - 2] * x1; x[i - 3] -= l[r1 + i - 3] * x1;
    const x2 = (x[i - 2] /= l[r2 + i - 2]);
    x[i - 3] -= l[r2 + i - 3] * x2;
    const x3 = (x[i - 3] /= l[r3 + i - 3]);
    for (let k = 0; k < i - 3; k++) {
      let v = x[k];
      v -= l[r0 + k] * x0; v -= l[r1 + k] * x1; v -= l[r2 + k] * x2; v -= l[r3 + k] * x3;
      x[k] = v;
    }
  }
  for (; i >= 0; i--) {
    const row = i * stride, xi = (x[i] /= l[row + i]);
    for (let k = 0; k < i; k++) x[k] -= l[row + k] * xi;
  }
}
