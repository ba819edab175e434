// A symmetric sparse matrix times a block of vectors on WebAssembly SIMD (sparse.wat). One instance for the page's
// or process's life: the matrix is copied into its memory when a product asks for another matrix than the last
// (a finish multiplies the same one a few hundred times), the block in and the product out on every call. Its
// memory only grows, so later bakes touch pages already mapped. Null where WebAssembly SIMD is missing: the caller
// runs its JS loop.

import type { UpperCsc } from "../sparse-cholesky";
import { reserveMemory, SimdModule, type WasmMemory } from "../simd-module";
import { SPARSE_WASM_BASE64 } from "./sparse-wasm";

interface SparseExports {
  memory: WasmMemory;
  symmetricProduct(n: number, p: number, start: number, rows: number, values: number, x: number, y: number): void;
}

const sparseModule = new SimdModule(SPARSE_WASM_BASE64);
let instance: SparseExports | null | undefined;
/** The matrix in the instance's memory now, and where its arrays and the blocks start. */
let bound: { matrix: UpperCsc; start: number; rows: number; values: number; blocks: number } | undefined;

const align = (bytes: number) => Math.ceil(bytes / 16) * 16;

/**
 * y = K x for K's upper triangle by columns and node-major blocks x, y of p vectors, on the kernels; false (nothing
 * done) where they do not run or p is odd.
 */
export function simdSymmetricProduct(k: UpperCsc, x: Float64Array, p: number, y: Float64Array): boolean {
  if (p % 2 !== 0) return false;
  if (instance === undefined) instance = sparseModule.instantiate<SparseExports>();
  if (!instance) return false;
  const n = k.n, entries = k.columnStart[n], blockBytes = align(8 * n * p);
  try {
    if (bound?.matrix !== k) {
      const start = 0, rows = align(4 * (n + 1)), values = rows + align(4 * entries), blocks = values + align(8 * entries);
      reserveMemory(instance.memory, blocks + 2 * blockBytes);
      const buffer = instance.memory.buffer;
      new Int32Array(buffer, start, n + 1).set(k.columnStart.subarray(0, n + 1));
      new Int32Array(buffer, rows, entries).set(k.rows.subarray(0, entries));
      new Float64Array(buffer, values, entries).set(k.values.subarray(0, entries));
      bound = { matrix: k, start, rows, values, blocks };
    } else {
      reserveMemory(instance.memory, bound.blocks + 2 * blockBytes);
    }
  } catch {
    bound = undefined;
    return false; // no memory for this block: the JS loop needs none
  }
  const buffer = instance.memory.buffer, xAt = bound.blocks, yAt = bound.blocks + blockBytes;
  new Float64Array(buffer, xAt, n * p).set(x.subarray(0, n * p));
  instance.symmetricProduct(n, p, bound.start, bound.rows, bound.values, xAt, yAt);
  y.set(new Float64Array(buffer, yAt, n * p));
  return true;
}
