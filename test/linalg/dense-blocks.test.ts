// The tiled dense products against plain sums, at sizes that leave edge tiles partly filled.

import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { compiledModule, generatedPath } from "../../server/cli/build-kernels";
import { blockTimesSmall, columnGram, columnGramInJs, nodeMajorGram, transposed } from "../../shared/linalg/dense-blocks";
import { simdGramTiles } from "../../shared/linalg/kernels/dense-kernels";

const random = (length: number, seed: number) => Float64Array.from({ length }, (_, i) => Math.sin(seed * 12.9898 + i * 78.233) * 43758.5453 % 1);

describe("dense blocks", () => {
  it("columnGram is A^T B, and its symmetric form mirrors the upper tiles", () => {
    for (const [rows, ac, bc] of [[37, 5, 7], [8, 4, 4], [101, 9, 1], [3, 1, 6]]) {
      const a = random(rows * ac, 1), b = random(rows * bc, 2), out = new Float64Array(ac * bc);
      columnGram(a, ac, b, bc, rows, out);
      for (let r = 0; r < ac; r++) for (let c = 0; c < bc; c++) {
        let sum = 0;
        for (let i = 0; i < rows; i++) sum += a[r * rows + i] * b[c * rows + i];
        expect(out[r * bc + c]).toBeCloseTo(sum, 12);
      }
      const self = columnGram(a, ac, a, ac, rows, new Float64Array(ac * ac), true);
      const full = columnGram(a, ac, a, ac, rows, new Float64Array(ac * ac));
      for (let i = 0; i < ac * ac; i++) expect(self[i]).toBeCloseTo(full[i], 12);
    }
  });

  it("columnGram's SIMD kernel gives the JS tiles' products to the last bit, symmetric ones' diagonal tiles included", async () => {
    expect(readFileSync(generatedPath("dense"), "utf8")).toBe(await compiledModule("dense"));
    expect(simdGramTiles(random(8, 1), 2, random(8, 2), 2, 4, false)).not.toBeNull();
    for (const [rows, ac, bc] of [[37, 5, 7], [512, 68, 68], [101, 9, 1], [3, 1, 6], [4000, 40, 40]]) {
      const a = random(rows * ac, 7), b = random(rows * bc, 8);
      expect(columnGram(a, ac, b, bc, rows, new Float64Array(ac * bc))).toEqual(columnGramInJs(a, ac, b, bc, rows, new Float64Array(ac * bc)));
      // A symmetric product of two different blocks (a Gram against a scaled copy): each side of the diagonal tiles
      // is what the JS tiles leave there.
      const scaled = a.map((x, i) => x * (1 + (i % 3)));
      expect(columnGram(a, ac, scaled, ac, rows, new Float64Array(ac * ac), true)).toEqual(columnGramInJs(a, ac, scaled, ac, rows, new Float64Array(ac * ac), true));
      expect(columnGram(a, ac, a, ac, rows, new Float64Array(ac * ac), true)).toEqual(columnGramInJs(a, ac, a, ac, rows, new Float64Array(ac * ac), true));
    }
  });

  it("nodeMajorGram is columnGram of the blocks' transposes, to the last bit (scaled rows, the same block twice)", () => {
    for (const [n, p, q] of [[37, 5, 7], [4096, 68, 68], [501, 20, 20], [6, 1, 3]]) {
      const x = random(n * p, 9), y = random(n * q, 10), scale = random(n, 11);
      const want = (b: Float64Array, width: number, s?: Float64Array, symmetric = false) =>
        columnGramInJs(transposed(x, n, p), p, transposed(b, n, width, s), width, n, new Float64Array(p * width), symmetric);
      expect(nodeMajorGram(x, p, y, q, n, new Float64Array(p * q))).toEqual(want(y, q));
      expect(nodeMajorGram(x, p, y, q, n, new Float64Array(p * q), false, scale)).toEqual(want(y, q, scale));
      expect(nodeMajorGram(x, p, x, p, n, new Float64Array(p * p), true, scale)).toEqual(want(x, p, scale, true));
      expect(nodeMajorGram(x, p, x, p, n, new Float64Array(p * p), true)).toEqual(want(x, p, undefined, true));
    }
  });

  it("transposed stores columns contiguously, scaled by row", () => {
    const x = random(6 * 3, 3), scale = random(6, 4), t = transposed(x, 6, 3, scale);
    for (let i = 0; i < 6; i++) for (let c = 0; c < 3; c++) expect(t[c * 6 + i]).toBe(scale[i] * x[i * 3 + c]);
  });

  it("blockTimesSmall is X S", () => {
    for (const [n, p, q] of [[13, 5, 3], [4, 4, 4], [1, 7, 9], [22, 2, 5]]) {
      const x = random(n * p, 5), s = random(p * q, 6), out = blockTimesSmall(x, p, s, q);
      expect(out.length).toBe(n * q);
      for (let i = 0; i < n; i++) for (let c = 0; c < q; c++) {
        let sum = 0;
        for (let r = 0; r < p; r++) sum += x[i * p + r] * s[r * q + c];
        expect(out[i * q + c]).toBeCloseTo(sum, 12);
      }
    }
  });
});
