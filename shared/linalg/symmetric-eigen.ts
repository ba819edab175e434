// Eigen-decomposition of a dense symmetric matrix: Householder reduction to tridiagonal form, then QL with
// implicit shifts. O(n^3) with a small constant, where cyclic Jacobi needs many sweeps (a 204 x 204 reduced
// stiffness: ~400 ms by Jacobi).

import { tridiagonalEigen } from "./tridiagonal-eigen";

/**
 * `a` (n x n, row-major) is destroyed. Eigenvalues go to `values` (ascending) and the matching eigenvectors to
 * the columns of `vectors` (n x n, row-major).
 */
export function symmetricEigenSorted(a: Float64Array, n: number, values: Float64Array, vectors: Float64Array): void {
  // q holds Q^T (its rows are the eigenvectors being formed): every update below runs along contiguous rows.
  const q = new Float64Array(n * n), v = new Float64Array(n), p = new Float64Array(n), w = new Float64Array(n);
  for (let i = 0; i < n; i++) q[i * n + i] = 1;
  const diagonal = new Float64Array(n), off = new Float64Array(n);
  for (let k = 0; k + 2 < n; k++) {
    // Reflect a[k+1.., k] onto its first entry: v = x - alpha e1, H = I - 2 v v^T / v^T v.
    let norm = 0;
    for (let i = k + 1; i < n; i++) norm += a[i * n + k] ** 2;
    norm = Math.sqrt(norm);
    if (norm === 0) continue;
    const alpha = a[(k + 1) * n + k] > 0 ? -norm : norm;
    let vv = 0;
    for (let i = k + 1; i < n; i++) {
      v[i] = a[i * n + k] - (i === k + 1 ? alpha : 0);
      vv += v[i] * v[i];
    }
    if (vv === 0) continue;
    const scale = 1 / Math.sqrt(vv);
    for (let i = k + 1; i < n; i++) v[i] *= scale;
    // The trailing block B becomes B - 2 v r^T - 2 r v^T with p = B v, r = p - (v . p) v.
    let vp = 0;
    for (let i = k + 1; i < n; i++) {
      let sum = 0;
      for (let j = k + 1; j < n; j++) sum += a[i * n + j] * v[j];
      p[i] = sum;
      vp += v[i] * sum;
    }
    for (let i = k + 1; i < n; i++) p[i] -= vp * v[i];
    for (let i = k + 1; i < n; i++) {
      const vi = 2 * v[i], pi = 2 * p[i];
      for (let j = k + 1; j < n; j++) a[i * n + j] -= vi * p[j] + pi * v[j];
    }
    a[(k + 1) * n + k] = a[k * n + k + 1] = alpha;
    for (let i = k + 2; i < n; i++) a[i * n + k] = a[k * n + i] = 0;
    // Q^T <- H Q^T (q holds Q^T: row i is Q's column i): w = 2 Q v, then row i loses v_i w.
    w.fill(0);
    for (let i = k + 1; i < n; i++) {
      const vi = 2 * v[i];
      if (vi === 0) continue;
      for (let r = 0, o = i * n; r < n; r++) w[r] += vi * q[o + r];
    }
    for (let i = k + 1; i < n; i++) {
      const vi = v[i];
      if (vi === 0) continue;
      for (let r = 0, o = i * n; r < n; r++) q[o + r] -= vi * w[r];
    }
  }
  for (let i = 0; i < n; i++) {
    diagonal[i] = a[i * n + i];
    off[i] = i + 1 < n ? a[(i + 1) * n + i] : 0;
  }
  tridiagonalEigen(diagonal, off, n, q, true, true);
  const order = Array.from(diagonal.keys()).sort((x, y) => diagonal[x] - diagonal[y]);
  order.forEach((from, to) => {
    values[to] = diagonal[from];
    for (let r = 0, o = from * n; r < n; r++) vectors[r * n + to] = q[o + r];
  });
}
