// A sparse symmetric matrix times a block of vectors: the Krylov and subspace methods' one product with K.

import { simdSymmetricProduct } from "./kernels/sparse-kernels";
import type { UpperCsc } from "./sparse-cholesky";

/** y = K x for a block x (n x p, node-major), K given by its upper triangle; on WebAssembly SIMD where it runs. */
export function stiffnessTimesBlock(k: UpperCsc, x: Float64Array, p: number, y: Float64Array): void {
  if (simdSymmetricProduct(k, x, p, y)) return;
  y.fill(0, 0, k.n * p);
  const { columnStart, rows, values } = k;
  for (let j = 0; j < k.n; j++) {
    const xj = j * p;
    for (let at = columnStart[j]; at < columnStart[j + 1]; at++) {
      const i = rows[at], v = values[at], xi = i * p;
      if (i === j) {
        for (let c = 0; c < p; c++) y[xj + c] += v * x[xj + c];
      } else {
        for (let c = 0; c < p; c++) {
          y[xi + c] += v * x[xj + c];
          y[xj + c] += v * x[xi + c];
        }
      }
    }
  }
}
