// The cubature fit's hot loops on WebAssembly SIMD (cubature.wat): the mode strains, and the NNLS's column dot
// products. One instance, kept for the page's or process's life, holds a fit's large arrays (the strains, the fit's
// matrix) as Float32Array views: its memory only grows, so later bakes write to pages already mapped (fresh pages
// fault on first touch, which costs more than the kernels themselves). Fits are synchronous, so no two share it.
// Where WebAssembly SIMD is missing, `create` returns null and the fit runs its JS loops.

import { reserveMemory, SimdModule, type WasmMemory } from "../../linalg/simd-module";
import { CUBATURE_WASM_BASE64 } from "./cubature-wasm";

interface CubatureExports {
  memory: WasmMemory;
  strains(points: number, m: number, groups: number, modes: number, jac: number, out: number): void;
  dots(a: number, length: number, first: number, step: number, count: number, v: number, out: number): void;
  normalise(a: number, length: number, count: number, out: number): void;
  columnDots(a: number, length: number, indices: number, count: number, c: number, out: number): void;
  residual(a: number, length: number, indices: number, weights: number, count: number, b: number, out: number): void;
  fitRows(
    points: number, width: number, used: number, paired: number, strains: number, shearScale: number, scale: number, trace: number,
    volumeScale: number, rows: number, columnLength: number, target: number, matrix: number,
  ): void;
}

export interface FitSizes {
  points: number;
  /** Basis functions per component (4 handles). */
  m: number;
  /** Modes whose strains are formed (padded to a multiple of four). */
  modes: number;
  /** Numbers in one column of the fit's matrix (a multiple of four). */
  columnLength: number;
}

const cubatureModule = new SimdModule(CUBATURE_WASM_BASE64);
/** The one instance (undefined: not made yet; null: SIMD does not run here). */
let instance: CubatureExports | null | undefined;

export class CubatureKernels {
  /** The strains, laid out as cubature-fit.ts's modeStrains: points x 6 components x `width` modes. */
  readonly strains: Float32Array;
  readonly width: number;
  /** The fit's matrix: points x columnLength, a column a point. */
  readonly matrix: Float32Array;
  private readonly modeLanes: Float32Array;
  /** The pool's Jacobian blocks (points x m x 3) in single precision, as modeStrains reads them. */
  readonly jacobians: Float32Array;
  private readonly vector: Float32Array;
  private readonly results: Float32Array;
  private readonly indices: Int32Array;
  private readonly weights: Float64Array;
  private readonly target: Float64Array;
  private readonly remainder: Float64Array;
  private readonly shearScale: Float64Array;
  private readonly rowScale: Float64Array;
  private readonly traces: Float64Array;
  private readonly rowTarget: Float64Array;

  /** Views for a fit of these sizes over the one instance's memory; those of an earlier fit are invalid after. */
  static create(sizes: FitSizes): CubatureKernels | null {
    if (instance === undefined) instance = cubatureModule.instantiate<CubatureExports>();
    const exports = instance;
    if (!exports) return null;
    try {
      return new CubatureKernels(exports, sizes);
    } catch {
      return null; // no memory for this pool: the JS loops need less
    }
  }

  private constructor(private readonly exports: CubatureExports, private readonly sizes: FitSizes) {
    const { points, m, modes, columnLength } = sizes;
    if (modes % 4 !== 0 || columnLength % 4 !== 0) throw new RangeError("modes and columnLength must be multiples of four");
    this.width = modes;
    // Doubles first, then singles and integers: every view starts 16-byte aligned.
    const doubles = [points, columnLength, columnLength, columnLength, columnLength, modes, columnLength], singles = [modes * m * 3, points * m * 3, points * 6 * modes, points * columnLength, columnLength, points, points];
    const aligned = (n: number) => Math.ceil(n / 2) * 2;
    reserveMemory(exports.memory, 8 * doubles.reduce((t, n) => t + aligned(n), 0) + 4 * singles.reduce((t, n) => t + 4 * Math.ceil(n / 4), 0));
    const buffer = exports.memory.buffer;
    let at = 0;
    const double = (n: number) => { const v = new Float64Array(buffer, at, n); at += 8 * aligned(n); return v; };
    const single = (n: number) => { const v = new Float32Array(buffer, at, n); at += 16 * Math.ceil(n / 4); return v; };
    [this.weights, this.target, this.remainder, this.shearScale, this.rowScale, this.traces, this.rowTarget] = doubles.map(double);
    [this.modeLanes, this.jacobians, this.strains, this.matrix, this.vector, this.results] = singles.slice(0, 6).map(single);
    this.indices = new Int32Array(buffer, at, points);
    // What a fit does not overwrite starts at zero, as new memory would: the modes past the count, the matrix's padding.
    this.modeLanes.fill(0);
    this.matrix.fill(0);
  }

  /**
   * Fills `strains` for `count` modes (rows of 3m, component a's m entries at a m) from the pool's Jacobian blocks
   * (points x m x 3): `jacobians` copied in when given, else those written into `this.jacobians`.
   */
  modeStrains(modes: Float64Array, count: number, jacobians?: Float64Array): void {
    const { points, m } = this.sizes, groups = this.width / 4;
    // (g, i, a) holds modes 4g .. 4g + 3's component a at basis function i, one lane each; modes past count are 0.
    for (let e = 0; e < count; e++) {
      const g = e >> 2, lane = e & 3, row = e * 3 * m;
      for (let i = 0; i < m; i++) for (let a = 0; a < 3; a++) this.modeLanes[((g * m + i) * 3 + a) * 4 + lane] = modes[row + a * m + i];
    }
    // A plain loop: TypedArray.prototype.set converting doubles to singles takes V8's slow element-wise path.
    const single = this.jacobians;
    if (jacobians) for (let i = 0, end = points * m * 3; i < end; i++) single[i] = jacobians[i];
    this.exports.strains(points, m, groups, this.modeLanes.byteOffset, this.jacobians.byteOffset, this.strains.byteOffset);
  }

  /** Column (first + k step) of the matrix dotted with v, for k < count (a view, valid until the next call). */
  dots(v: Float64Array, first: number, step: number, count: number): Float32Array {
    for (let r = 0; r < v.length; r++) this.vector[r] = v[r];
    this.exports.dots(this.matrix.byteOffset, this.sizes.columnLength, first, step, count, this.vector.byteOffset, this.results.byteOffset);
    return this.results.subarray(0, count);
  }

  /** Scales every column of the matrix to unit length; returns their lengths before (a view, valid until the next call). */
  normalise(): Float32Array {
    const { points, columnLength } = this.sizes;
    this.exports.normalise(this.matrix.byteOffset, columnLength, points, this.results.byteOffset);
    return this.results.subarray(0, points);
  }

  /**
   * The fit's matrix (into `matrix`) and its rows' sums over the pool (returned), from the strains `modeStrains` left:
   * cubature-fit.ts's fitRows, term by term (cubature.wat says how). shearScale and scale by pair, in fitRowPairs's
   * order (`used` modes, all pairs among the first `paired`).
   */
  fitRows(used: number, paired: number, shearScale: Float64Array, scale: Float64Array, volumeScale: number, rows: number): Float64Array {
    const { points, columnLength } = this.sizes;
    this.shearScale.set(shearScale);
    this.rowScale.set(scale);
    this.exports.fitRows(
      points, this.width, used, paired, this.strains.byteOffset, this.shearScale.byteOffset, this.rowScale.byteOffset, this.traces.byteOffset,
      volumeScale, rows, columnLength, this.rowTarget.byteOffset, this.matrix.byteOffset,
    );
    return Float64Array.from(this.rowTarget);
  }

  /** Column `c` dotted with the first `count` columns listed (a view, valid until the next call). */
  columnDots(listed: ArrayLike<number>, count: number, c: number): Float32Array {
    for (let k = 0; k < count; k++) this.indices[k] = listed[k];
    this.exports.columnDots(this.matrix.byteOffset, this.sizes.columnLength, this.indices.byteOffset, count, c, this.results.byteOffset);
    return this.results.subarray(0, count);
  }

  /** out = b - sum over the listed columns of x[column] times the column, in double precision. */
  residual(listed: ArrayLike<number>, count: number, x: Float64Array, b: Float64Array, out: Float64Array): void {
    for (let k = 0; k < count; k++) {
      this.indices[k] = listed[k];
      this.weights[k] = x[listed[k]];
    }
    this.target.set(b);
    this.exports.residual(this.matrix.byteOffset, this.sizes.columnLength, this.indices.byteOffset, this.weights.byteOffset, count, this.target.byteOffset, this.remainder.byteOffset);
    out.set(this.remainder);
  }
}
