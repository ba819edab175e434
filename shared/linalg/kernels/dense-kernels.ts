// Dense Gram products on WebAssembly SIMD (dense.wat), for dense-blocks.ts's columnGram: the same sums as its JS
// tiles, two entries an instruction. One instance for the page's or process's life: the columns are copied into its
// memory on every call and the tiles' sums read back. Its memory only grows, so later bakes touch pages already
// mapped. Null where WebAssembly SIMD is missing: the caller runs its JS loop.

import { reserveMemory, SimdModule, type WasmMemory } from "../simd-module";
import { DENSE_WASM_BASE64 } from "./dense-wasm";

interface DenseExports {
  memory: WasmMemory;
  gramTiles(a: number, aCount: number, b: number, bCount: number, length: number, symmetric: number, out: number): void;
  transpose(src: number, rows: number, width: number, scale: number, dst: number): void;
  tridiagonalise(a: number, n: number, diagonal: number, off: number, v: number, p: number): void;
}

const denseModule = new SimdModule(DENSE_WASM_BASE64);
let instance: DenseExports | null | undefined;

/**
 * The instance with at least `bytes` of memory; null where the kernels do not run or no memory is left (the JS
 * loops need none).
 */
function kernelsWith(bytes: number): DenseExports | null {
  if (instance === undefined) instance = denseModule.instantiate<DenseExports>();
  if (!instance) return null;
  try {
    reserveMemory(instance.memory, bytes);
  } catch {
    return null;
  }
  return instance;
}

const align = (bytes: number) => Math.ceil(bytes / 16) * 16;

/**
 * The sixteen sums of every 4 x 4 tile of columnGram's product (a's columns r .. r + 3 against b's c .. c + 3; from
 * the diagonal tile on when `symmetric`): tile (tr, tc)'s sum (x, y) at 16 (tr tilesB + tc) + 4 x + y of the returned
 * view, tilesB = ceil(bCount / 4), valid until the next call. Null (nothing done) where the kernels do not run.
 */
export function simdGramTiles(a: Float64Array, aCount: number, b: Float64Array, bCount: number, length: number, symmetric: boolean): Float64Array | null {
  const same = a === b && aCount === bCount, aBytes = align(8 * aCount * length), bBytes = same ? 0 : align(8 * bCount * length);
  const tiles = Math.ceil(aCount / 4) * Math.ceil(bCount / 4) * 16;
  const instance = kernelsWith(aBytes + bBytes + 8 * tiles);
  if (!instance) return null;
  const buffer = instance.memory.buffer, bAt = same ? 0 : aBytes, outAt = aBytes + bBytes;
  new Float64Array(buffer, 0, aCount * length).set(a.subarray(0, aCount * length));
  if (!same) new Float64Array(buffer, bAt, bCount * length).set(b.subarray(0, bCount * length));
  instance.gramTiles(0, aCount, bAt, bCount, length, symmetric ? 1 : 0, outAt);
  return new Float64Array(buffer, outAt, tiles);
}

/**
 * simdGramTiles for node-major blocks: x (n x p) and y (n x q, each row times scale[row] when given) are copied in
 * whole and transposed by the kernel (dense-blocks.ts's transposed, the same numbers), then multiplied as columns.
 */
export function simdNodeMajorGramTiles(x: Float64Array, p: number, y: Float64Array, q: number, n: number, symmetric: boolean, scale?: Float64Array): Float64Array | null {
  const sameRows = x === y && p === q, sameColumns = sameRows && !scale;
  // The scale first, at a non-zero address (0 tells the kernel there is none).
  const scaleAt = 16, xAt = scaleAt + align(8 * n), yAt = xAt + align(8 * n * p), xColumns = yAt + (sameRows ? 0 : align(8 * n * q));
  const yColumns = xColumns + align(8 * n * p), tilesAt = yColumns + (sameColumns ? 0 : align(8 * n * q));
  const tiles = Math.ceil(p / 4) * Math.ceil(q / 4) * 16;
  const instance = kernelsWith(tilesAt + 8 * tiles);
  if (!instance) return null;
  const buffer = instance.memory.buffer;
  if (scale) new Float64Array(buffer, scaleAt, n).set(scale.subarray(0, n));
  new Float64Array(buffer, xAt, n * p).set(x.subarray(0, n * p));
  if (!sameRows) new Float64Array(buffer, yAt, n * q).set(y.subarray(0, n * q));
  instance.transpose(xAt, n, p, 0, xColumns);
  if (!sameColumns) instance.transpose(sameRows ? xAt : yAt, n, q, scale ? scaleAt : 0, yColumns);
  instance.gramTiles(xColumns, p, sameColumns ? xColumns : yColumns, q, n, symmetric ? 1 : 0, tilesAt);
  return new Float64Array(buffer, tilesAt, tiles);
}

/**
 * symmetric-eigen.ts's Householder steps k < n - 2 on the kernel (the same numbers): `a` becomes what the JS steps
 * leave in it, diagonal and off get entries 0 .. n - 3. False (nothing done) where the kernels do not run.
 */
export function simdTridiagonalise(a: Float64Array, n: number, diagonal: Float64Array, off: Float64Array): boolean {
  const matrix = 8 * n * n, vector = align(8 * n), diagonalAt = align(matrix), offAt = diagonalAt + vector, vAt = offAt + vector, pAt = vAt + vector;
  const instance = kernelsWith(pAt + vector);
  if (!instance) return false;
  const buffer = instance.memory.buffer, inside = new Float64Array(buffer, 0, n * n);
  inside.set(a.subarray(0, n * n));
  instance.tridiagonalise(0, n, diagonalAt, offAt, vAt, pAt);
  a.set(inside);
  const steps = Math.max(0, n - 2);
  diagonal.set(new Float64Array(buffer, diagonalAt, steps));
  off.set(new Float64Array(buffer, offAt, steps));
  return true;
}
