// The solver's hot loops on WebAssembly SIMD (solver.wat): one instance per body, whose memory holds the arrays
// those loops read (Jacobians, the stiffness, factors, basis rows) as Float64Array views, so a call passes
// addresses and copies nothing. Memory is reserved once, before any view exists (growing it would detach them).
// Where WebAssembly SIMD is missing (an old browser), `create` returns null and the JS loops run instead.

import { reserveMemory, SimdModule, type WasmMemory } from "../../linalg/simd-module";
import { SOLVER_WASM_BASE64 } from "./solver-wasm";
import { surfacePointCapacity } from "./surface-points";
import { CONTACT_NORMAL_GROUPS } from "../contact-hessian";
import { AFFINE_RANK } from "../affine-correction";
import { LBFGS_MEMORY } from "../minimiser";

interface SolverExports {
  memory: WasmMemory;
  elastic(handles: number, pairs: number, pts: number, q: number, acc: number, out: number, mu: number, lambda: number, scale: number): number;
  gemv(rows: number, cols: number, a: number, x: number, y: number, scale: number): void;
  choleskySolve(n: number, l: number, b: number): void;
  choleskyColumns(n: number, a: number, from: number, to: number): number;
  displacements(count: number, m: number, rows: number, q: number, out: number): void;
  displacementsOf(count: number, indices: number, m: number, rows: number, q: number, out: number): void;
  scatterForces(count: number, indices: number, m: number, rows: number, forces: number, out: number): void;
  contactGrams(m: number, b: number, wt: number, wd: number, tangent: number, difference: number): void;
  addScaledPair(m: number, n: number, dst: number, t: number, a: number, d: number, b: number): void;
  contactAffineColumns(m: number, b: number, nx: number, ny: number, nz: number, wn: number, wt: number, v: number): void;
  lbfgsFirstLoop(n: number, s: number, y: number, rho: number, alphas: number, memory: number, stored: number, newest: number, d: number): void;
  lbfgsSecondLoop(n: number, s: number, y: number, rho: number, alphas: number, memory: number, stored: number, newest: number, d: number): void;
}

/** What a body's kernels must hold room for (a Subspace has these). */
export interface KernelSizes {
  n: number;
  m: number;
  cubatureCount: number;
  surfaceCount: number;
}

/** Bytes an allocation may lose to alignment. */
const ALIGNMENT = 16;
const solverModule = new SimdModule(SOLVER_WASM_BASE64);

/**
 * Compiles the kernels asynchronously, before the first body needs them: a browser may refuse to compile a module
 * this size synchronously on its main thread, and the bodies would then run the JS loops. Resolves to whether the
 * kernels run here.
 */
export function prepareSolverKernels(): Promise<boolean> {
  return solverModule.prepare();
}

/** Whether this platform runs the SIMD kernels. */
export function simdAvailable(): boolean {
  return solverModule.module() !== null;
}

export class SolverKernels {
  private readonly exports: SolverExports;
  private readonly end: number;
  private next = 0;

  /**
   * Numbers (f64) one body allocates, by owner: the elastic pass (cubature point pairs, q, accumulators,
   * gradient), the damping product (K, two vectors), the inertia product (two vectors), the preconditioner (three
   * n x n factors, two vectors, the contacts' Hessian sums and C A), the contact gathering (two states, two outputs),
   * the surface points (basis rows; indices, displacements, forces, q, gradient of contacts or grabs), the minimiser
   * (its pairs and direction).
   */
  static numbersFor(s: KernelSizes): { numbers: number; allocations: number } {
    const pairs = Math.ceil(s.cubatureCount / 2);
    const elastic = pairs * (2 * s.m + 8) + 3 * s.m + 6 * s.m + 3 * s.m + 1;
    const damping = s.n * s.n + 2 * s.n;
    const inertia = s.m * s.m + 2 * s.n;
    // The contacts' Hessian sums: two m x m matrices a normal group (contact-hessian.ts); C A for the contacts'
    // low-rank correction (affine-correction.ts).
    const preconditioner = 3 * s.n * s.n + 2 * s.n + 2 * CONTACT_NORMAL_GROUPS * s.m * s.m + AFFINE_RANK * s.n;
    const gather = 2 * s.n + 6 * s.surfaceCount;
    // The surface samples' rows, and one list of samples (contacts or grabs: surface-points.ts), each an index, a
    // displacement and a force; q and the gradient.
    const points = s.surfaceCount * s.m + surfacePointCapacity(s.surfaceCount) * 7 + s.n + s.n;
    // L-BFGS's pairs, their two numbers each, and the direction (minimiser.ts).
    const minimiser = 2 * LBFGS_MEMORY * s.n + 2 * LBFGS_MEMORY + s.n;
    // 33 allocations today; each may lose up to 8 bytes to alignment.
    return { numbers: elastic + damping + inertia + preconditioner + gather + points + minimiser, allocations: 40 };
  }

  /** Kernels with room for one body of these sizes, or null where WebAssembly SIMD is not available. */
  static create(sizes: KernelSizes): SolverKernels | null {
    const { numbers, allocations } = SolverKernels.numbersFor(sizes);
    return SolverKernels.forArrays(numbers, allocations);
  }

  /**
   * Kernels with room for `numbers` f64 in at most `allocations` arrays (a user other than a body: the linearised
   * flesh's dense products and solves), or null where WebAssembly SIMD is not available.
   */
  static forArrays(numbers: number, allocations: number): SolverKernels | null {
    const exports = solverModule.instantiate<SolverExports>();
    if (!exports) return null;
    try {
      return new SolverKernels(exports, 8 * numbers + ALIGNMENT * allocations);
    } catch {
      return null;
    }
  }

  private constructor(exports: SolverExports, bytes: number) {
    this.exports = exports;
    reserveMemory(exports.memory, bytes);
    this.end = bytes;
  }

  /** A zeroed array in the kernels' memory (16-byte aligned); only these can be passed to the kernels. */
  alloc(length: number): Float64Array {
    const at = Math.ceil(this.next / ALIGNMENT) * ALIGNMENT;
    if (at + 8 * length > this.end) throw new Error("solver kernels: memory reservation exceeded (the sizes given to create or forArrays are out of date)");
    this.next = at + 8 * length;
    return new Float64Array(this.exports.memory.buffer, at, length);
  }

  /** Whether `array` lives in these kernels' memory (only such arrays can be passed to them). */
  holds(array: Float64Array): boolean {
    return array.buffer === this.exports.memory.buffer;
  }

  /** Elastic pass over `pairs` cubature point pairs (see solver.wat for the layout); returns scale * energy. */
  elastic(handles: number, pairs: number, pts: Float64Array, q: Float64Array, acc: Float64Array, out: Float64Array, mu: number, lambda: number, scale: number): number {
    return this.exports.elastic(handles, pairs, pts.byteOffset, q.byteOffset, acc.byteOffset, out.byteOffset, mu, lambda, scale);
  }

  /** y[i] = scale * A[i, :] . x for i < rows (A row-major, rows x cols); A, x, y from alloc. */
  gemv(rows: number, cols: number, a: Float64Array, x: Float64Array, y: Float64Array, scale: number): void {
    this.exports.gemv(rows, cols, a.byteOffset, x.byteOffset, y.byteOffset, scale);
  }

  /** linalg.choleskySolve on arrays from alloc. */
  choleskySolve(n: number, l: Float64Array, b: Float64Array): void {
    this.exports.choleskySolve(n, l.byteOffset, b.byteOffset);
  }

  /** linalg.choleskyColumns on an array from alloc. */
  choleskyColumns(n: number, a: Float64Array, from: number, to: number): boolean {
    return this.exports.choleskyColumns(n, a.byteOffset, from, to) === 1;
  }

  /** out[3i + a] = rows[i, :] . q_a (component-major q of 3m) for i < count; m even. */
  displacements(count: number, m: number, rows: Float64Array, q: Float64Array, out: Float64Array): void {
    this.exports.displacements(count, m, rows.byteOffset, q.byteOffset, out.byteOffset);
  }

  /** out[3i + a] = rows[s_i, :] . q_a for the points s_i listed in `indices` (point numbers, as f64). */
  displacementsOf(count: number, indices: Float64Array, m: number, rows: Float64Array, q: Float64Array, out: Float64Array): void {
    this.exports.displacementsOf(count, indices.byteOffset, m, rows.byteOffset, q.byteOffset, out.byteOffset);
  }

  /** out_a = sum_i forces[3i + a] rows[s_i, :] over the listed points (out: 3m, overwritten). */
  scatterForces(count: number, indices: Float64Array, m: number, rows: Float64Array, forces: Float64Array, out: Float64Array): void {
    this.exports.scatterForces(count, indices.byteOffset, m, rows.byteOffset, forces.byteOffset, out.byteOffset);
  }

  /**
   * One contact's share of the contacts' Hessian sums: tangent[j, k] += wt b_j b_k and difference[j, k] += wd b_j b_k
   * over the upper triangle, b = rows[sample, :] (m even; each m x m matrix starts at element `at` of its array).
   */
  contactGrams(m: number, rows: Float64Array, sample: number, wt: number, wd: number, tangent: Float64Array, difference: Float64Array, at: number): void {
    this.exports.contactGrams(m, rows.byteOffset + 8 * sample * m, wt, wd, tangent.byteOffset + 8 * at, difference.byteOffset + 8 * at);
  }

  /**
   * dst[(row + j) n + column + k] += t a[at + j m + k] + d b[at + j m + k] for j, k < m (a and b full m x m; m even): a
   * contact group's sums into one block of an n x n matrix.
   */
  addScaledPair(m: number, n: number, dst: Float64Array, row: number, column: number, t: number, a: Float64Array, d: number, b: Float64Array, at: number): void {
    this.exports.addScaledPair(m, n, dst.byteOffset + 8 * (row * n + column), t, a.byteOffset + 8 * at, d, b.byteOffset + 8 * at);
  }

  /**
   * One contact's share of C A (affine-correction.ts): for axes a, c and j < 4, column 4a + j of v (12 columns of
   * 3m), block c, gains W_ac b_j b with W = wn n n^T + wt (I - n n^T) and b = rows[sample, :] (m even).
   */
  contactAffineColumns(m: number, rows: Float64Array, sample: number, nx: number, ny: number, nz: number, wn: number, wt: number, v: Float64Array): void {
    this.exports.contactAffineColumns(m, rows.byteOffset + 8 * sample * m, nx, ny, nz, wn, wt, v.byteOffset);
  }

  /** The first loop of L-BFGS's two-loop recursion on `a.d`, newest pair first (minimiser.ts; arrays from alloc). */
  lbfgsFirstLoop(n: number, a: LbfgsArrays, memory: number, stored: number, newest: number): void {
    this.exports.lbfgsFirstLoop(n, a.s.byteOffset, a.y.byteOffset, a.rho.byteOffset, a.alphas.byteOffset, memory, stored, newest, a.d.byteOffset);
  }

  /** The second loop, oldest pair first, after the preconditioner. */
  lbfgsSecondLoop(n: number, a: LbfgsArrays, memory: number, stored: number, newest: number): void {
    this.exports.lbfgsSecondLoop(n, a.s.byteOffset, a.y.byteOffset, a.rho.byteOffset, a.alphas.byteOffset, memory, stored, newest, a.d.byteOffset);
  }
}

/** L-BFGS's pairs (s, y: `memory` vectors of n each, rho and alphas one number a pair) and direction, for the kernels. */
export interface LbfgsArrays {
  s: Float64Array;
  y: Float64Array;
  rho: Float64Array;
  alphas: Float64Array;
  d: Float64Array;
}
