// The cubature fit's WebAssembly SIMD kernels: the committed module is the compiled source, and each kernel gives
// what the plain sums give (single precision, as the fit's matrix keeps).

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compiledModule, generatedPath } from "../../server/cli/build-kernels";
import { fitRowsInJs } from "../../shared/skinning/cubature-fit";
import { CubatureKernels } from "../../shared/skinning/kernels/cubature-kernels";

function randoms(count: number, seed: number): Float64Array {
  let s = seed;
  return Float64Array.from({ length: count }, () => (s = (s * 16807) % 2147483647) / 2147483647 - 0.5);
}

describe("cubature kernels", () => {
  it("run here, and the committed module is the compiled cubature.wat", async () => {
    expect(readFileSync(generatedPath("cubature"), "utf8")).toBe(await compiledModule("cubature"));
    expect(CubatureKernels.create({ points: 4, m: 8, modes: 4, columnLength: 4 })).not.toBeNull();
  });

  it("mode strains: the symmetric part of each mode's displacement gradient at each point (a count not a multiple of four)", () => {
    const points = 37, m = 68, count = 10, width = 12;
    const modes = randoms(count * 3 * m, 3), jacobians = randoms(points * m * 3, 5);
    const kernels = CubatureKernels.create({ points, m, modes: width, columnLength: 8 })!;
    kernels.modeStrains(modes, count, jacobians);
    let worst = 0, largest = 0;
    for (let p = 0; p < points; p++) {
      for (let e = 0; e < width; e++) {
        const f = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
        if (e < count) for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) for (let i = 0; i < m; i++) f[a][b] += modes[e * 3 * m + a * m + i] * jacobians[(p * m + i) * 3 + b];
        const want = [f[0][0], f[1][1], f[2][2], Math.SQRT1_2 * (f[0][1] + f[1][0]), Math.SQRT1_2 * (f[0][2] + f[2][0]), Math.SQRT1_2 * (f[1][2] + f[2][1])];
        for (let c = 0; c < 6; c++) {
          const got = kernels.strains[(p * 6 + c) * width + e];
          if (e >= count) expect(got).toBe(0);
          worst = Math.max(worst, Math.abs(got - want[c]));
          largest = Math.max(largest, Math.abs(want[c]));
        }
      }
    }
    expect(worst / largest).toBeLessThan(1e-5);
  });

  it("dots with a vector and with listed columns, unit-length columns, and a residual in double precision", () => {
    const points = 50, length = 12;
    const kernels = CubatureKernels.create({ points, m: 4, modes: 4, columnLength: length })!;
    const a = kernels.matrix, original = Float32Array.from(randoms(points * length, 7));
    a.set(original);
    a.fill(0, 5 * length, 6 * length); // a zero column stays zero
    const column = (c: number) => Array.from(a.subarray(c * length, (c + 1) * length));
    const dot = (u: number[], v: ArrayLike<number>) => u.reduce((t, x, r) => t + x * v[r], 0);
    const v = randoms(length, 11);
    const dots = Array.from(kernels.dots(v, 3, 4, 12));
    expect(dots).toHaveLength(12);
    dots.forEach((got, k) => expect(got).toBeCloseTo(dot(column(3 + 4 * k), v), 5));
    const lengths = Array.from(kernels.normalise());
    lengths.forEach((got, c) => {
      const before = c === 5 ? 0 : Math.hypot(...original.subarray(c * length, (c + 1) * length));
      expect(got).toBeCloseTo(before, 5);
      expect(Math.hypot(...column(c))).toBeCloseTo(c === 5 ? 0 : 1, 6);
    });
    const listed = [7, 2, 40];
    Array.from(kernels.columnDots(listed, 3, 9)).forEach((got, k) => expect(got).toBeCloseTo(dot(column(listed[k]), column(9)), 6));
    const x = new Float64Array(points), b = randoms(length, 13), out = new Float64Array(length);
    x[7] = 0.5; x[2] = -2; x[40] = 3;
    kernels.residual(listed, 3, x, b, out);
    out.forEach((got, r) => expect(got).toBeCloseTo(b[r] - listed.reduce((t, c) => t + x[c] * column(c)[r], 0), 12));
  });

  it("the fit's rows: the kernel gives the JS loop's matrix and sums to the last bit (odd mode counts, lone pairs)", () => {
    for (const [used, paired] of [[11, 7], [64, 16], [6, 6], [9, 1]]) {
      const points = 23, width = 4 * Math.ceil(used / 4), pairs = (paired * (paired + 1)) / 2 + (used - paired), rows = 2 * pairs + 1;
      const columnLength = 4 * Math.ceil(rows / 4);
      const kernels = CubatureKernels.create({ points, m: 8, modes: width, columnLength })!;
      kernels.modeStrains(randoms(used * 3 * 8, 23), used, randoms(points * 8 * 3, 29));
      const scale = randoms(pairs, 31), shearScale = scale.map((v) => 2 * v);
      const target = kernels.fitRows(used, paired, shearScale, scale, 0.37, rows);
      const want = new Float64Array(columnLength);
      const matrix = fitRowsInJs(Float32Array.from(kernels.strains), width, used, paired, shearScale, scale, 0.37, rows, columnLength, points, want);
      expect(Array.from(kernels.matrix)).toEqual(Array.from(matrix));
      expect(Array.from(target)).toEqual(Array.from(want));
    }
  });

  it("dots four columns at a time give exactly what one column at a time gives (the fit's choices depend on it)", () => {
    const points = 64, length = 372;
    const kernels = CubatureKernels.create({ points, m: 4, modes: 4, columnLength: length })!;
    kernels.matrix.set(Float32Array.from(randoms(points * length, 17)));
    const v = randoms(length, 19);
    // 13 columns: three groups of four and one alone; each against the same column dotted on its own.
    const together = Array.from(kernels.dots(v, 1, 5, 13));
    together.forEach((got, k) => expect(got).toBe(kernels.dots(v, 1 + 5 * k, 1, 1)[0]));
    const listed = [9, 3, 60, 41, 0, 12, 33];
    const listedTogether = Array.from(kernels.columnDots(listed, listed.length, 20));
    listedTogether.forEach((got, k) => expect(got).toBe(kernels.columnDots([listed[k]], 1, 20)[0]));
  });
});
