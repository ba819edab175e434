// The blocked triangular solves against the one-row-at-a-time loops they replace: the same numbers to the last bit
// (the cubature fit's choices depend on them), at sizes that leave partial blocks.

import { describe, expect, it } from "vitest";
import { backSubstitute, forwardSubstitute } from "../../shared/linalg/triangular-solves";

const random = (length: number, seed: number) => Float64Array.from({ length }, (_, i) => Math.sin(seed * 12.9898 + i * 78.233) * 43758.5453 % 1);

/** A lower-triangular factor (rows `stride` apart) with a dominant diagonal, and junk past each row's diagonal. */
function factor(n: number, stride: number, seed: number): Float64Array {
  const l = random(stride * stride, seed);
  for (let i = 0; i < n; i++) l[i * stride + i] = 2 + Math.abs(l[i * stride + i]);
  return l;
}

describe("triangular solves", () => {
  it("forward substitution: L x = b row by row, summed as one row alone sums", () => {
    for (const n of [1, 3, 4, 9, 130]) {
      const stride = n + 3, l = factor(n, stride, n), b = random(n, 2 * n);
      const want = Float64Array.from(b);
      for (let i = 0; i < n; i++) {
        let sum = want[i];
        for (let k = 0; k < i; k++) sum -= l[i * stride + k] * want[k];
        want[i] = sum / l[i * stride + i];
      }
      const got = Float64Array.from(b);
      forwardSubstitute(l, stride, got, n);
      expect(got).toEqual(want);
    }
  });

  it("back substitution: L^T x = b column by column, each entry losing the rows' terms highest row first", () => {
    for (const n of [1, 2, 5, 8, 131]) {
      const stride = n + 1, l = factor(n, stride, n + 7), b = random(n, 3 * n);
      const want = Float64Array.from(b);
      for (let i = n - 1; i >= 0; i--) {
        const xi = (want[i] /= l[i * stride + i]);
        for (let k = 0; k < i; k++) want[k] -= l[i * stride + k] * xi;
      }
      const got = Float64Array.from(b);
      backSubstitute(l, stride, got, n);
      expect(got).toEqual(want);
    }
  });
});
