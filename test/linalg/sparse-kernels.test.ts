// The sparse block product's WebAssembly SIMD kernel: the committed module is the compiled source, and it gives
// what the plain sums give, for one matrix and then another (the kernel copies a new matrix in when asked).

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compiledModule, generatedPath } from "../../server/cli/build-kernels";
import { simdSymmetricProduct } from "../../shared/linalg/kernels/sparse-kernels";
import type { UpperCsc } from "../../shared/linalg/sparse-cholesky";

function randoms(count: number, seed: number): Float64Array {
  let s = seed;
  return Float64Array.from({ length: count }, () => (s = (s * 16807) % 2147483647) / 2147483647 - 0.5);
}

/** A random symmetric matrix's upper triangle by columns (each column: a few rows above, then the diagonal). */
function randomUpper(n: number, seed: number): UpperCsc {
  const start = [0], rows: number[] = [], values: number[] = [];
  const r = randoms(4 * n, seed);
  for (let j = 0; j < n; j++) {
    for (let t = 0; t < 3; t++) {
      const i = Math.floor((r[4 * j + t] + 0.5) * j);
      if (i < j && !rows.slice(start[j]).includes(i)) { rows.push(i); values.push(r[4 * j + t]); }
    }
    rows.push(j);
    values.push(2 + r[4 * j + 3]);
    start.push(rows.length);
  }
  return { n, columnStart: Int32Array.from(start), rows: Int32Array.from(rows), values: Float64Array.from(values) };
}

function denseProduct(k: UpperCsc, x: Float64Array, p: number): Float64Array {
  const y = new Float64Array(k.n * p);
  for (let j = 0; j < k.n; j++) {
    for (let at = k.columnStart[j]; at < k.columnStart[j + 1]; at++) {
      const i = k.rows[at], v = k.values[at];
      for (let c = 0; c < p; c++) {
        y[i * p + c] += v * x[j * p + c];
        if (i !== j) y[j * p + c] += v * x[i * p + c];
      }
    }
  }
  return y;
}

describe("sparse kernels", () => {
  it("the committed module is the compiled sparse.wat", async () => {
    expect(readFileSync(generatedPath("sparse"), "utf8")).toBe(await compiledModule("sparse"));
  });

  it("a symmetric matrix times a block: the plain sums, for two matrices in turn; an odd block is left to JS", () => {
    for (const [n, p, seed] of [[300, 6, 3], [517, 20, 5], [300, 6, 7]] as const) {
      const k = randomUpper(n, seed), x = randoms(n * p, seed + 1), y = new Float64Array(n * p).fill(Number.NaN);
      expect(simdSymmetricProduct(k, x, p, y)).toBe(true);
      const want = denseProduct(k, x, p);
      y.forEach((v, i) => expect(v).toBeCloseTo(want[i], 12));
    }
    const k = randomUpper(50, 9);
    expect(simdSymmetricProduct(k, randoms(50 * 3, 1), 3, new Float64Array(150))).toBe(false);
  });
});
