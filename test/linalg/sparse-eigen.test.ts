// The sparse Cholesky against a dense solve, and shift-invert Lanczos against the closed-form spectrum of a
// free-free chain (the 1D Neumann Laplacian with lumped mass), with the constant deflated.

import { describe, expect, it } from "vitest";
import { lowestEigenpairs } from "../../shared/linalg/shift-invert-lanczos";
import { SparseCholesky, SparseCholeskyError, type UpperCsc } from "../../shared/linalg/sparse-cholesky";
import { randoms } from "../sim/helpers";

/** Upper triangle by columns of a dense symmetric matrix (zeros dropped). */
function upperOf(a: Float64Array, n: number): UpperCsc {
  const columnStart = new Int32Array(n + 1), rows: number[] = [], values: number[] = [];
  for (let j = 0; j < n; j++) {
    for (let i = 0; i <= j; i++) if (a[i * n + j] !== 0) { rows.push(i); values.push(a[i * n + j]); }
    columnStart[j + 1] = rows.length;
  }
  return { n, columnStart, rows: Int32Array.from(rows), values: Float64Array.from(values) };
}

/** Springs between neighbours of a chain of n unit masses: stiffness tridiagonal [-1, 2, -1] with free ends. */
function chain(n: number): UpperCsc {
  const a = new Float64Array(n * n);
  for (let i = 0; i + 1 < n; i++) {
    a[i * n + i] += 1; a[(i + 1) * n + i + 1] += 1;
    a[i * n + i + 1] -= 1; a[(i + 1) * n + i] -= 1;
  }
  return upperOf(a, n);
}

describe("sparse linear algebra", () => {
  it("solves a sparse positive definite system as a dense solve does", () => {
    const n = 60, numbers = randoms(13 * n, 3), a = new Float64Array(n * n);
    let next = 0;
    const random = () => (numbers[next++] + 1) / 2;
    // A sparse random symmetric matrix made diagonally dominant.
    for (let k = 0; k < 4 * n; k++) {
      const i = Math.floor(random() * n), j = Math.floor(random() * n), v = random() - 0.5;
      a[i * n + j] += v; a[j * n + i] += v;
    }
    for (let i = 0; i < n; i++) {
      let row = 0;
      for (let j = 0; j < n; j++) if (j !== i) row += Math.abs(a[i * n + j]);
      a[i * n + i] = row + 1;
    }
    const x = Float64Array.from({ length: n }, () => random() - 0.5);
    const b = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) b[i] += a[i * n + j] * x[j];
    SparseCholesky.factor(upperOf(a, n)).solve(b);
    for (let i = 0; i < n; i++) expect(b[i]).toBeCloseTo(x[i], 10);
  });

  it("refuses a matrix that is not positive definite", () => {
    expect(() => SparseCholesky.factor(chain(10))).toThrow(SparseCholeskyError);
  });

  it("finds the lowest non-constant modes of a free chain", () => {
    const n = 400, count = 8, mass = new Float64Array(n).fill(1);
    const constant = new Float64Array(n).fill(1 / Math.sqrt(n));
    const { values, vectors } = lowestEigenpairs(chain(n), mass, count, { shift: 1e-3, deflate: [constant] });
    for (let k = 1; k <= count; k++) {
      expect(values[k - 1]).toBeCloseTo(2 - 2 * Math.cos((k * Math.PI) / n), 12);
      // The mode is cos(k pi (i + 1/2) / n), up to sign and scale.
      const v = vectors[k - 1];
      let dot = 0, norm = 0;
      for (let i = 0; i < n; i++) {
        const c = Math.cos((k * Math.PI * (i + 0.5)) / n);
        dot += c * v[i]; norm += c * c;
      }
      expect(Math.abs(dot) / Math.sqrt(norm)).toBeCloseTo(1, 9);
    }
  });
});
