// Rayleigh-Ritz without factorisation, against the closed-form spectrum of a free-free chain (the 1D Neumann
// Laplacian with unit lumped masses: eigenvalues 2 - 2 cos(pi k / n), eigenvectors cos(pi k (i + 1/2) / n)):
// a span that contains exact eigenvectors gives them back exactly, whatever else (dependent or not) it holds;
// Ritz values never fall below the eigenvalues; the Chebyshev filter damps the upper spectrum; conjugate
// gradients solve the screened system.

import { describe, expect, it } from "vitest";
import { solveShiftedCg } from "../../shared/linalg/conjugate-gradient";
import { stiffnessTimesBlock } from "../../shared/linalg/block-product";
import { chebyshevFilter, rayleighRitz, spectrumUpperBound } from "../../shared/linalg/rayleigh-ritz";
import type { UpperCsc } from "../../shared/linalg/sparse-cholesky";

function chain(n: number): UpperCsc {
  const columnStart = new Int32Array(n + 1), rows: number[] = [], values: number[] = [];
  for (let j = 0; j < n; j++) {
    if (j > 0) { rows.push(j - 1); values.push(-1); }
    rows.push(j);
    values.push(j === 0 || j === n - 1 ? 1 : 2);
    columnStart[j + 1] = rows.length;
  }
  return { n, columnStart, rows: Int32Array.from(rows), values: Float64Array.from(values) };
}

const eigenvalue = (k: number, n: number) => 2 - 2 * Math.cos((Math.PI * k) / n);
const eigenvector = (k: number, n: number) => Float64Array.from({ length: n }, (_, i) => Math.cos((Math.PI * k * (i + 0.5)) / n));

/** Deterministic pseudo-random numbers in [-1, 1]. */
function noise(count: number, seed: number): Float64Array {
  let state = seed >>> 0;
  return Float64Array.from({ length: count }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state / 0x100000000) * 2 - 1;
  });
}

/** Columns side by side, node-major. */
function block(columns: Float64Array[]): Float64Array {
  const n = columns[0].length, p = columns.length, out = new Float64Array(n * p);
  columns.forEach((c, j) => c.forEach((v, i) => (out[i * p + j] = v)));
  return out;
}

const n = 200;
const k = chain(n), mass = new Float64Array(n).fill(1);
const constant = new Float64Array(n).fill(1 / Math.sqrt(n));

describe("Rayleigh-Ritz", () => {
  it("returns exact eigenpairs contained in the span, with dependent and noisy columns beside them", () => {
    const v1 = eigenvector(1, n), v2 = eigenvector(2, n), v3 = eigenvector(3, n), r = noise(n, 7);
    // A constant offset (deflated), a sum of two eigenvectors, a duplicate and a noise column.
    const shifted = v2.map((v) => v + 5);
    const sum = v1.map((v, i) => v + 0.3 * v3[i]);
    const columns = [sum, shifted, v3, r, Float64Array.from(v3), eigenvector(40, n)];
    const pairs = rayleighRitz(k, mass, block(columns), columns.length, { deflate: [constant], keep: 3, stiffnessTimes: true });
    expect(pairs.rank).toBe(5);
    for (let j = 0; j < 3; j++) expect(pairs.values[j]).toBeCloseTo(eigenvalue(j + 1, n), 12);
    // The vectors: M-orthonormal, and the eigenvectors themselves up to sign.
    for (let j = 0; j < 3; j++) {
      const exact = eigenvector(j + 1, n);
      let dot = 0, exactNorm = 0, own = 0;
      for (let i = 0; i < n; i++) { dot += exact[i] * pairs.vectors[i * 3 + j]; exactNorm += exact[i] ** 2; own += pairs.vectors[i * 3 + j] ** 2; }
      expect(own).toBeCloseTo(1, 12);
      expect(Math.abs(dot) / Math.sqrt(exactNorm)).toBeCloseTo(1, 10);
    }
    // K times the vectors comes back too: the residuals of exact pairs vanish.
    for (let i = 0; i < n; i++) for (let j = 0; j < 3; j++) {
      expect(Math.abs(pairs.stiffnessTimes![i * 3 + j] - pairs.values[j] * pairs.vectors[i * 3 + j])).toBeLessThan(1e-10);
    }
  });

  it("never goes below the eigenvalues, and a Chebyshev-filtered iteration closes in on them", () => {
    // A short chain (its spectrum's width against its lowest gap sets the filter's power), and a smooth but wrong
    // start: low polynomials in the position, which are not the chain's cosines.
    const n = 40, k = chain(n), mass = new Float64Array(n).fill(1), constant = new Float64Array(n).fill(1 / Math.sqrt(n));
    const columns = [1, 2, 3, 4].map((d) => Float64Array.from({ length: n }, (_, i) => ((i + 0.5) / n - 0.5) ** d));
    let pairs = rayleighRitz(k, mass, block(columns), 4, { deflate: [constant], keep: 4 });
    const before = Array.from(pairs.values.subarray(0, 2), (v, j) => v / eigenvalue(j + 1, n) - 1);
    before.forEach((e) => expect(e).toBeGreaterThan(-1e-12));
    const high = spectrumUpperBound(k, mass);
    expect(high).toBeGreaterThanOrEqual(eigenvalue(n - 1, n));
    for (let it = 0; it < 3; it++) {
      const filtered = chebyshevFilter(k, mass, pairs.vectors, 4, 12, pairs.values[3], high, pairs.values[0]);
      const both = new Float64Array(n * 8);
      for (let i = 0; i < n; i++) for (let j = 0; j < 4; j++) { both[i * 8 + j] = pairs.vectors[i * 4 + j]; both[i * 8 + 4 + j] = filtered[i * 4 + j]; }
      pairs = rayleighRitz(k, mass, both, 8, { deflate: [constant], keep: 4 });
    }
    const after = Array.from(pairs.values.subarray(0, 2), (v, j) => v / eigenvalue(j + 1, n) - 1);
    after.forEach((e, j) => {
      expect(e).toBeGreaterThan(-1e-12);
      expect(e).toBeLessThan(before[j] / 100);
    });
  });

  it("the Chebyshev filter damps components above its interval's lower end against those below", () => {
    const low = eigenvalue(20, n), high = spectrumUpperBound(k, mass);
    const x = block([eigenvector(2, n), eigenvector(60, n)]);
    const y = chebyshevFilter(k, mass, x, 2, 10, low, high, eigenvalue(1, n));
    const norm = (c: number) => Math.sqrt(Array.from({ length: n }, (_, i) => y[i * 2 + c] ** 2).reduce((a, b) => a + b, 0) / n * 2);
    // |T_10| <= 1 on [low, high] (scaled by its value at the target, >> 1), and grows below low.
    expect(norm(1)).toBeLessThan(norm(0) / 10);
    expect(norm(0)).toBeGreaterThan(0.1);
  });

  it("conjugate gradients solve (K + s M) x = b for several right-hand sides at once", () => {
    const b = noise(3 * n, 3), x = Float64Array.from(b);
    const result = solveShiftedCg(k, mass, 0.5, x, 3, 1e-12);
    expect(result.residual).toBeLessThan(1e-12);
    const kx = new Float64Array(3 * n);
    stiffnessTimesBlock(k, x, 3, kx);
    for (let i = 0; i < 3 * n; i++) expect(kx[i] + 0.5 * x[i]).toBeCloseTo(b[i], 9);
  });
});
