// Eigen-decomposition of a dense symmetric matrix: Householder reduction to tridiagonal form, then QL with
// implicit shifts. O(n^3) with a small constant, where cyclic Jacobi needs many sweeps (a 204 x 204 reduced
// stiffness: ~400 ms by Jacobi).

import { tridiagonalEigen } from "./tridiagonal-eigen";

/**
 * `a` (n x n, row-major) is destroyed. Eigenvalues go to `values` (ascending) and the matching eigenvectors to
 * the columns of `vectors` (n x n, row-major).
 */
export function symmetricEigenSorted(a: Float64Array, n: number, values: Float64Array, vectors: Float64Array): void {
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
    // Q <- Q H: each row of Q loses twice its component along v.
    for (let r = 0; r < n; r++) {
      let sum = 0;
      for (let i = k + 1; i < n; i++) sum += q[r * n + i] * v[i];
      w[r] = 2 * sum;
    }
    for (let r = 0; r < n; r++) {
      const wr = w[r];
      if (wr === 0) continue;
      for (let i = k + 1; i < n; i++) q[r * n + i] -= wr * v[i];
    }
  }
  for (let i = 0; i < n; i++) {
    diagonal[i] = a[i * n + i];
    off[i] = i + 1 < n ? a[(i + 1) * n + i] : 0;
  }
  tridiagonalEigen(diagonal, off, n, q, true);
  const order = Array.from(diagonal.keys()).sort((x, y) => diagonal[x] - diagonal[y]);
  order.forEach((from, to) => {
    values[to] = diagonal[from];
    for (let r = 0; r < n; r++) vectors[r * n + to] = q[r * n + from];
  });
}
