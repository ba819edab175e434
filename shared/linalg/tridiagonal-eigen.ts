// Eigen-decomposition of a symmetric tridiagonal matrix by the QL algorithm with implicit Wilkinson shifts: the
// small problem inside the Lanczos iteration, cheap enough to solve again every few steps.

/**
 * `diagonal` (m) and `offDiagonal` (m, entry i coupling i and i + 1; the last is ignored) are destroyed;
 * eigenvalues end in `diagonal` (unsorted) and the eigenvectors in the columns of `vectors` (m x m, row-major).
 * With `transformed`, `vectors` already holds Q (the tridiagonal is Q^T A Q) and ends as A's eigenvectors. With
 * `rows`, the eigenvectors are the rows of `vectors` instead (Q^T in, rows out): each rotation then updates two
 * contiguous rows, several times faster on a large matrix than two strided columns. With `vectors` null, only
 * the eigenvalues are found (O(m^2)).
 */
export function tridiagonalEigen(diagonal: Float64Array, offDiagonal: Float64Array, m: number, vectors: Float64Array | null, transformed = false, rows = false): void {
  const d = diagonal, e = offDiagonal;
  if (vectors && !transformed) {
    vectors.fill(0, 0, m * m);
    for (let i = 0; i < m; i++) vectors[i * m + i] = 1;
  }
  e[m - 1] = 0;
  for (let l = 0; l < m; l++) {
    for (let iteration = 0; ; iteration++) {
      let end = l;
      while (end < m - 1 && Math.abs(e[end]) > Number.EPSILON * (Math.abs(d[end]) + Math.abs(d[end + 1]))) end++;
      if (end === l) break;
      if (iteration === 100) throw new Error("tridiagonal eigen-decomposition did not converge");
      // Wilkinson shift from the leading 2 x 2 block, then a QL sweep chasing the bulge up from `end`.
      let g = (d[l + 1] - d[l]) / (2 * e[l]);
      let r = Math.hypot(g, 1);
      g = d[end] - d[l] + e[l] / (g + (g >= 0 ? r : -r));
      let s = 1, c = 1, p = 0, underflow = false;
      for (let i = end - 1; i >= l; i--) {
        const f = s * e[i], b = c * e[i];
        r = Math.hypot(f, g);
        e[i + 1] = r;
        if (r === 0) {
          d[i + 1] -= p;
          e[end] = 0;
          underflow = true;
          break;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1] - p;
        r = (d[i] - g) * s + 2 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        if (!vectors) continue;
        if (rows) {
          for (let k = i * m, k1 = k + m, end = k + m; k < end; k++, k1++) {
            const zi = vectors[k], zi1 = vectors[k1];
            vectors[k1] = s * zi + c * zi1;
            vectors[k] = c * zi - s * zi1;
          }
        } else {
          for (let k = 0; k < m; k++) {
            const zi = vectors[k * m + i], zi1 = vectors[k * m + i + 1];
            vectors[k * m + i + 1] = s * zi + c * zi1;
            vectors[k * m + i] = c * zi - s * zi1;
          }
        }
      }
      if (underflow) continue;
      d[l] -= p;
      e[l] = g;
      e[end] = 0;
    }
  }
}
