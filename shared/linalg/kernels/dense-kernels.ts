// Dense Gram products on WebAssembly SIMD (dense.wat), for dense-blocks.ts's columnGram: the same sums as its JS
// tiles, two entries an instruction. One instance for the page's or process's life: the columns are copied into its
// memory on every call and the tiles' sums read back. Its memory only grows, so later bakes touch pages already
// mapped. Null where WebAssembly SIMD is missing: the caller runs its JS loop.

import { reserveMemory, SimdModule, type WasmMemory } from "../simd-module";
import { DENSE_WASM_BASE64 } from "./dense-wasm";

interface DenseExports {
  memory: WasmMemory;
  gramTiles(a: number, aCount: number, b: number, bCount: number, length: number, symmetric: number, out: number): void;
}

const denseModule = new SimdModule(DENSE_WASM_BASE64);
let instance: DenseExports | null | undefined;

const align = (bytes: number) => Math.ceil(bytes / 16) * 16;

/**
 * The sixteen sums of every 4 x 4 tile of columnGram's product (a's columns r .. r + 3 against b's c .. c + 3; from
 * the diagonal tile on when `symmetric`): tile (tr, tc)'s sum (x, y) at 16 (tr tilesB + tc) + 4 x + y of the returned
 * view, tilesB = ceil(bCount / 4), valid until the next call. Null (nothing done) where the kernels do not run.
 */
export function simdGramTiles(a: Float64Array, aCount: number, b: Float64Array, bCount: number, length: number, symmetric: boolean): Float64Array | null {
  if (instance === undefined) instance = denseModule.instantiate<DenseExports>();
  if (!instance) return null;
  const same = a === b && aCount === bCount, aBytes = align(8 * aCount * length), bBytes = same ? 0 : align(8 * bCount * length);
  const tiles = Math.ceil(aCount / 4) * Math.ceil(bCount / 4) * 16;
  try {
    reserveMemory(instance.memory, aBytes + bBytes + 8 * tiles);
  } catch {
    return null; // no memory for these columns: the JS loop needs none
  }
  const buffer = instance.memory.buffer, bAt = same ? 0 : aBytes, outAt = aBytes + bBytes;
  new Float64Array(buffer, 0, aCount * length).set(a.subarray(0, aCount * length));
  if (!same) new Float64Array(buffer, bAt, bCount * length).set(b.subarray(0, bCount * length));
  instance.gramTiles(0, aCount, bAt, bCount, length, symmetric ? 1 : 0, outAt);
  return new Float64Array(buffer, outAt, tiles);
}
