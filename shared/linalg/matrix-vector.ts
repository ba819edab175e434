// A dense matrix (row-major) times a vector, four rows a pass over the vector: the vector's loads feed four running
// sums, and the four rows' chains of additions overlap (the linearised flesh's products with its 204 x 204 matrices).

/** out[i] = sum_k a[i * cols + k] x[k] for rows i in [0, rows). */
export function matrixTimesVector(a: Float64Array, rows: number, cols: number, x: ArrayLike<number>, out: Float64Array): void {
  let i = 0;
  for (; i + 3 < rows; i += 4) {
    const r0 = i * cols, r1 = r0 + cols, r2 = r1 + cols, r3 = r2 + cols;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (let k = 0; k < cols; k++) {
      const xk = x[k];
      s0 += a[r0 + k] * xk; s1 += a[r1 + k] * xk; s2 += a[r2 + k] * xk; s3 += a[r3 + k] * xk;
    }
    out[i] = s0; out[i + 1] = s1; out[i + 2] = s2; out[i + 3] = s3;
  }
  for (; i < rows; i++) {
    const row = i * cols;
    let s = 0;
    for (let k = 0; k < cols; k++) s += a[row + k] * x[k];
    out[i] = s;
  }
}
