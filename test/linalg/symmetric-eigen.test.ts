// Dense symmetric eigen-decompositions against matrices built from a known spectrum, A = U diag(lambda) U^T with
// U a product of random reflections: every eigenvalue back, and vectors that satisfy A v = lambda v and are
// orthonormal, also inside repeated and nearly repeated eigenvalues (where any basis of the eigenspace is right,
// so the test checks residuals and orthogonality, not the vectors themselves).

import { describe, expect, it } from "vitest";
import { simdTridiagonalise } from "../../shared/linalg/kernels/dense-kernels";
import { householderStepsInJs, LowestEigenpairs, symmetricEigenSorted } from "../../shared/linalg/symmetric-eigen";

function noise(count: number, seed: number): Float64Array {
  let state = seed >>> 0;
  return Float64Array.from({ length: count }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  });
}

/** U diag(spectrum) U^T (row-major), U the product of a few random reflections. */
function withSpectrum(spectrum: number[], seed: number): Float64Array {
  const n = spectrum.length, u = new Float64Array(n * n);
  for (let i = 0; i < n; i++) u[i * n + i] = 1;
  for (let reflection = 0; reflection < 4; reflection++) {
    const v = noise(n, seed + reflection);
    const norm = Math.hypot(...v);
    for (let c = 0; c < n; c++) {
      let dot = 0;
      for (let r = 0; r < n; r++) dot += v[r] * u[r * n + c];
      for (let r = 0; r < n; r++) u[r * n + c] -= (2 * dot * v[r]) / (norm * norm);
    }
  }
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let sum = 0;
    for (let k = 0; k < n; k++) sum += u[i * n + k] * spectrum[k] * u[j * n + k];
    a[i * n + j] = sum;
  }
  return a;
}

/** Largest |A v - lambda v| over the columns, and largest |V^T V - I|. */
function quality(a: Float64Array, n: number, values: Float64Array, vectors: Float64Array, columns: number): { residual: number; orthogonality: number } {
  let residual = 0, orthogonality = 0;
  for (let c = 0; c < columns; c++) {
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let k = 0; k < n; k++) sum += a[i * n + k] * vectors[k * columns + c];
      residual = Math.max(residual, Math.abs(sum - values[c] * vectors[i * columns + c]));
    }
    for (let d = 0; d < columns; d++) {
      let dot = 0;
      for (let k = 0; k < n; k++) dot += vectors[k * columns + c] * vectors[k * columns + d];
      orthogonality = Math.max(orthogonality, Math.abs(dot - (c === d ? 1 : 0)));
    }
  }
  return { residual, orthogonality };
}

// Repeated (0 three times, 2 twice), nearly repeated (5, 5 + 1e-9) and spread-out eigenvalues, unsorted.
const SPECTRUM = [7, 0, 2, 0, 5, 40, 2, 5 + 1e-9, 0, 13, 1, 300, 0.5, 80, 3, 9, 21, 0.25, 150, 60];

describe("dense symmetric eigen-decomposition", () => {
  it("symmetricEigenSorted finds every eigenpair, ascending and orthonormal", () => {
    const n = SPECTRUM.length, a = withSpectrum(SPECTRUM, 11), values = new Float64Array(n), vectors = new Float64Array(n * n);
    symmetricEigenSorted(a.slice(), n, values, vectors);
    const sorted = [...SPECTRUM].sort((x, y) => x - y);
    sorted.forEach((value, i) => expect(values[i]).toBeCloseTo(value, 9));
    const { residual, orthogonality } = quality(a, n, values, vectors, n);
    expect(residual).toBeLessThan(1e-10 * 300);
    expect(orthogonality).toBeLessThan(1e-12);
  });

  it("LowestEigenpairs finds every eigenvalue and the lowest vectors, orthonormal inside repeated eigenvalues", () => {
    const n = SPECTRUM.length, a = withSpectrum(SPECTRUM, 23);
    for (const keep of [1, 3, 4, 9, n]) {
      const pairs = new LowestEigenpairs(a.slice(), n), values = pairs.values, vectors = pairs.vectors(keep);
      const sorted = [...SPECTRUM].sort((x, y) => x - y);
      sorted.forEach((value, i) => expect(values[i]).toBeCloseTo(value, 9));
      const { residual, orthogonality } = quality(a, n, values, vectors, keep);
      expect(residual).toBeLessThan(1e-10 * 300);
      expect(orthogonality).toBeLessThan(1e-10);
    }
  });

  it("agrees with the full decomposition on a stiffness-like matrix of the cubature fit's size", () => {
    // A Gram matrix of random vectors (positive semi-definite, a spread of 1e6 like a reduced stiffness).
    const n = 204, rows = 600, b = noise(rows * n, 5), a = new Float64Array(n * n);
    for (let r = 0; r < rows; r++) {
      const weight = 10 ** (6 * (r / rows));
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] += weight * b[r * n + i] * b[r * n + j];
    }
    const keep = 96, full = new Float64Array(n), fullVectors = new Float64Array(n * n);
    symmetricEigenSorted(a.slice(), n, full, fullVectors);
    const pairs = new LowestEigenpairs(a.slice(), n), lowest = pairs.values, lowestVectors = pairs.vectors(keep);
    // Ascending, and summing to the trace.
    let trace = 0, sum = 0;
    for (let i = 0; i < n; i++) {
      trace += a[i * n + i];
      sum += lowest[i];
      if (i > 0) expect(lowest[i]).toBeGreaterThanOrEqual(lowest[i - 1]);
    }
    expect(Math.abs(sum - trace)).toBeLessThan(1e-10 * trace);
    const { residual, orthogonality } = quality(a, n, lowest, lowestVectors, keep);
    expect(residual).toBeLessThan(1e-9 * full[n - 1]);
    expect(orthogonality).toBeLessThan(1e-9);
    // Distinct eigenvalues: the same vectors up to sign.
    for (let c = 0; c < keep; c++) {
      let dot = 0;
      for (let k = 0; k < n; k++) dot += fullVectors[k * n + c] * lowestVectors[k * keep + c];
      expect(Math.abs(dot)).toBeCloseTo(1, 8);
    }
  });

  it("handles the smallest sizes, a zero matrix and a matrix of tiny units", () => {
    const cases = [[4], [3, -1], [2, 2], [0], [0, 0, 0, 0, 0], [1e-150, 2e-150, 2e-150, 5e-150, 3e-149]];
    for (const spectrum of cases) {
      const n = spectrum.length, a = withSpectrum(spectrum, 3), top = Math.max(...spectrum.map(Math.abs), Number.MIN_VALUE);
      const pairs = new LowestEigenpairs(a.slice(), n);
      const lowest = quality(a, n, pairs.values, pairs.vectors(n), n);
      expect(lowest.residual).toBeLessThanOrEqual(1e-12 * top);
      expect(lowest.orthogonality).toBeLessThan(1e-12);
      const values = new Float64Array(n), vectors = new Float64Array(n * n);
      symmetricEigenSorted(a.slice(), n, values, vectors);
      const full = quality(a, n, values, vectors, n);
      expect(full.residual).toBeLessThanOrEqual(1e-12 * top);
      expect(full.orthogonality).toBeLessThan(1e-12);
    }
  });

  it("the Householder reduction on the SIMD kernel leaves the JS steps' numbers to the last bit (odd and even sizes)", () => {
    for (const n of [2, 3, 7, 64, 205]) {
      const base = noise(n * n, n);
      for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) base[i * n + j] = base[j * n + i];
      const simd = Float64Array.from(base), js = Float64Array.from(base);
      const d1 = new Float64Array(n), o1 = new Float64Array(n), d2 = new Float64Array(n), o2 = new Float64Array(n);
      expect(simdTridiagonalise(simd, n, d1, o1)).toBe(true);
      householderStepsInJs(js, n, d2, o2);
      expect(simd).toEqual(js);
      expect(d1).toEqual(d2);
      expect(o1).toEqual(o2);
    }
  });
});
