// Dense products of tall blocks with few columns, the bake's most common linear algebra (Gram matrices of mode
// and field blocks, a block times a small matrix), one register-tiled 4 x 4 kernel: each pass over the data feeds sixteen
// running sums from eight loads, where one dot product at a time needs two loads a multiply (measured 2-3x faster
// in V8 for 40-70 columns). Out-of-range lanes of an edge tile repeat the last column and are not written. Where
// WebAssembly SIMD runs, the same tiles' sums come from kernels/dense.wat, two at a time.

import { simdGramTiles, simdNodeMajorGramTiles } from "./kernels/dense-kernels";

/**
 * out[r * bCount + c] = sum_i a[r * length + i] b[c * length + i] for the aCount columns of `a` and bCount of `b`,
 * each stored contiguously (column-major). `symmetric` (a and b the same columns, or a product known to be
 * symmetric) computes the upper tiles only and mirrors them.
 */
export function columnGram(a: Float64Array, aCount: number, b: Float64Array, bCount: number, length: number, out: Float64Array, symmetric = false): Float64Array {
  const tiles = simdGramTiles(a, aCount, b, bCount, length, symmetric);
  return tiles ? storeTiles(tiles, aCount, bCount, out, symmetric) : columnGramInJs(a, aCount, b, bCount, length, out, symmetric);
}

/**
 * X^T Y for node-major blocks X (n x p) and Y (n x q, each row times scale[row] when given): columnGram of their
 * transposes, the same numbers, transposed by the SIMD kernels where they run.
 */
export function nodeMajorGram(x: Float64Array, p: number, y: Float64Array, q: number, n: number, out: Float64Array, symmetric = false, scale?: Float64Array): Float64Array {
  const tiles = simdNodeMajorGramTiles(x, p, y, q, n, symmetric, scale);
  return tiles ? storeTiles(tiles, p, q, out, symmetric) : columnGramInJs(transposed(x, n, p), p, transposed(y, n, q, scale), q, n, out, symmetric);
}

/**
 * The kernel's tile sums stored as the JS tiles store theirs (in the same order: a symmetric product's diagonal
 * tiles keep their later rows' sums on both sides).
 */
function storeTiles(tiles: Float64Array, aCount: number, bCount: number, out: Float64Array, symmetric: boolean): Float64Array {
  const tilesB = Math.ceil(bCount / 4);
  for (let r = 0; r < aCount; r += 4) {
    for (let c = symmetric ? r : 0; c < bCount; c += 4) {
      const t = 16 * ((r / 4) * tilesB + c / 4);
      for (let x = 0; x < 4; x++) storeRow(out, bCount, aCount, r + x, c, tiles[t + 4 * x], tiles[t + 4 * x + 1], tiles[t + 4 * x + 2], tiles[t + 4 * x + 3], symmetric);
    }
  }
  return out;
}

/** columnGram by the JS tiles alone (where WebAssembly SIMD is missing; the kernel's reference in tests). */
export function columnGramInJs(a: Float64Array, aCount: number, b: Float64Array, bCount: number, length: number, out: Float64Array, symmetric = false): Float64Array {
  for (let r = 0; r < aCount; r += 4) {
    const a0 = r * length, a1 = Math.min(r + 1, aCount - 1) * length, a2 = Math.min(r + 2, aCount - 1) * length, a3 = Math.min(r + 3, aCount - 1) * length;
    for (let c = symmetric ? r : 0; c < bCount; c += 4) {
      const b0 = c * length, b1 = Math.min(c + 1, bCount - 1) * length, b2 = Math.min(c + 2, bCount - 1) * length, b3 = Math.min(c + 3, bCount - 1) * length;
      let s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
      let s20 = 0, s21 = 0, s22 = 0, s23 = 0, s30 = 0, s31 = 0, s32 = 0, s33 = 0;
      for (let i = 0; i < length; i++) {
        const x0 = a[a0 + i], x1 = a[a1 + i], x2 = a[a2 + i], x3 = a[a3 + i];
        const y0 = b[b0 + i], y1 = b[b1 + i], y2 = b[b2 + i], y3 = b[b3 + i];
        s00 += x0 * y0; s01 += x0 * y1; s02 += x0 * y2; s03 += x0 * y3;
        s10 += x1 * y0; s11 += x1 * y1; s12 += x1 * y2; s13 += x1 * y3;
        s20 += x2 * y0; s21 += x2 * y1; s22 += x2 * y2; s23 += x2 * y3;
        s30 += x3 * y0; s31 += x3 * y1; s32 += x3 * y2; s33 += x3 * y3;
      }
      storeRow(out, bCount, aCount, r, c, s00, s01, s02, s03, symmetric);
      storeRow(out, bCount, aCount, r + 1, c, s10, s11, s12, s13, symmetric);
      storeRow(out, bCount, aCount, r + 2, c, s20, s21, s22, s23, symmetric);
      storeRow(out, bCount, aCount, r + 3, c, s30, s31, s32, s33, symmetric);
    }
  }
  return out;
}

function storeRow(out: Float64Array, width: number, rows: number, r: number, c: number, v0: number, v1: number, v2: number, v3: number, mirror: boolean): void {
  if (r >= rows) return;
  const o = r * width;
  if (c < width) out[o + c] = v0;
  if (c + 1 < width) out[o + c + 1] = v1;
  if (c + 2 < width) out[o + c + 2] = v2;
  if (c + 3 < width) out[o + c + 3] = v3;
  if (!mirror) return;
  if (c < width) out[c * width + r] = v0;
  if (c + 1 < width) out[(c + 1) * width + r] = v1;
  if (c + 2 < width) out[(c + 2) * width + r] = v2;
  if (c + 3 < width) out[(c + 3) * width + r] = v3;
}

/** Rows a transpose reads before it moves to the next column: a cache line of the output written at once. */
const TRANSPOSE_ROWS = 8;

/**
 * Columns of a row-major block (rows x width) stored contiguously, each entry times scale[row] when given. By
 * TRANSPOSE_ROWS rows at a time: one row at a time writes `width` entries `rows` apart, and where rows is a multiple
 * of 512 they all fall in one set of the first-level cache and evict each other (4096 x 68: 3.7 ms against 0.7).
 */
export function transposed(x: Float64Array, rows: number, width: number, scale?: Float64Array, out = new Float64Array(rows * width)): Float64Array {
  for (let first = 0; first < rows; first += TRANSPOSE_ROWS) {
    const last = Math.min(first + TRANSPOSE_ROWS, rows);
    for (let c = 0; c < width; c++) {
      const o = c * rows;
      for (let i = first; i < last; i++) out[o + i] = (scale ? scale[i] : 1) * x[i * width + c];
    }
  }
  return out;
}

/**
 * X S (n x q) for a row-major block X (n x p) and a small row-major S (p x q): X's rows against S's columns, by the
 * same tiles (four rows by four columns at a time).
 */
export function blockTimesSmall(x: Float64Array, p: number, s: Float64Array, q: number): Float64Array {
  const n = x.length / p;
  return columnGram(x, n, transposed(s, p, q), q, p, new Float64Array(n * q));
}
