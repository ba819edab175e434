// The cubature fit's hot loops on WebAssembly SIMD (cubature.wat): the mode strains, and the NNLS's column dot
// products. One instance per fit holds the fit's large arrays (the strains, the fit's matrix) as Float32Array
// views, sized once before any view exists (growing the memory would detach them) and released with the fit.
// Where WebAssembly SIMD is missing, `create` returns null and the fit runs its JS loops.

import { reserveMemory, SimdModule, type WasmMemory } from "../../linalg/simd-module";
import { CUBATURE_WASM_BASE64 } from "./cubature-wasm";

interface CubatureExports {
  memory: WasmMemory;
  strains(points: number, m: number, groups: number, modes: number, jac: number, out: number): void;
  dots(a: number, length: number, first: number, step: number, count: number, v: number, out: number): void;
  squares(a: number, length: number, count: number, out: number): void;
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

export class CubatureKernels {
  /** The strains, laid out as cubature-fit.ts's modeStrains: points x 6 components x `width` modes. */
  readonly strains: Float32Array;
  readonly width: number;
  /** The fit's matrix: points x columnLength, a column a point. */
  readonly matrix: Float32Array;
  private readonly modeLanes: Float32Array;
  private readonly jacobians: Float32Array;
  private readonly vector: Float32Array;
  private readonly results: Float32Array;

  static create(sizes: FitSizes): CubatureKernels | null {
    const exports = cubatureModule.instantiate<CubatureExports>();
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
    const lengths = [modes * m * 3, points * m * 3, points * 6 * modes, points * columnLength, columnLength, points];
    reserveMemory(exports.memory, 4 * lengths.reduce((a, b) => a + b, 0));
    let at = 0;
    const views = lengths.map((length) => {
      const view = new Float32Array(exports.memory.buffer, at, length);
      at += 4 * length;
      return view;
    });
    [this.modeLanes, this.jacobians, this.strains, this.matrix, this.vector, this.results] = views;
  }

  /**
   * Fills `strains` for `count` modes (rows of 3m, component a's m entries at a m) from the pool's Jacobian blocks
   * (points x m x 3).
   */
  modeStrains(modes: Float64Array, count: number, jacobians: Float64Array): void {
    const { points, m } = this.sizes, groups = this.width / 4;
    // (g, i, a) holds modes 4g .. 4g + 3's component a at basis function i, one lane each; modes past count stay 0.
    for (let e = 0; e < count; e++) {
      const g = e >> 2, lane = e & 3, row = e * 3 * m;
      for (let i = 0; i < m; i++) for (let a = 0; a < 3; a++) this.modeLanes[((g * m + i) * 3 + a) * 4 + lane] = modes[row + a * m + i];
    }
    this.jacobians.set(jacobians.subarray(0, points * m * 3));
    this.exports.strains(points, m, groups, this.modeLanes.byteOffset, this.jacobians.byteOffset, this.strains.byteOffset);
  }

  /** Column (first + k step) of the matrix dotted with v, for k < count (a view, valid until the next call). */
  dots(v: Float64Array, first: number, step: number, count: number): Float32Array {
    this.vector.set(v);
    this.exports.dots(this.matrix.byteOffset, this.sizes.columnLength, first, step, count, this.vector.byteOffset, this.results.byteOffset);
    return this.results.subarray(0, count);
  }

  /** Each column's squared length (a view, valid until the next call). */
  squares(): Float32Array {
    const { points, columnLength } = this.sizes;
    this.exports.squares(this.matrix.byteOffset, columnLength, points, this.results.byteOffset);
    return this.results.subarray(0, points);
  }
}
