// The WebAssembly SIMD kernels (shared/sim/kernels) against the JS loops they stand in for (those are checked
// against finite differences in energy-terms.test.ts), the committed bytes against their source, and a whole
// body stepped on each path.

import { describe, expect, it } from "vitest";
import { compiledModule, generatedPath } from "../../server/cli/build-kernels";
import { readFileSync } from "node:fs";
import { FloorContact } from "../../shared/sim";
import { AffineContactCorrection } from "../../shared/sim/affine-correction";
import { ContactHessianAssembler } from "../../shared/sim/contact-hessian";
import { LbfgsMinimiser } from "../../shared/sim/minimiser";
import { ContactSnapshot } from "../../shared/sim/energy/contact";
import { ElasticTerm } from "../../shared/sim/energy/elastic";
import { SpringTerm } from "../../shared/sim/energy/springs";
import { GrabSet } from "../../shared/sim/grabs";
import { SurfacePointKernels } from "../../shared/sim/kernels/surface-points";
import { simdAvailable, SolverKernels } from "../../shared/sim/kernels/solver-kernels";
import { choleskyColumns, choleskySolve } from "../../shared/sim/linalg";
import { StepState } from "../../shared/sim/step-state";
import { bodyFor, JELLY, makeBody, randoms, relativeDifference, renderPositions } from "./helpers";
import { lameParameters } from "../../shared/sim/material";



const SIZES = { n: 48, m: 16, cubatureCount: 0, surfaceCount: 40 };

describe("solver kernels", () => {
  it("run here, and the committed module is the compiled solver.wat", async () => {
    expect(simdAvailable()).toBe(true);
    expect(readFileSync(generatedPath("solver"), "utf8")).toBe(await compiledModule("solver"));
  });

  it("elastic pass: the same energy, gradient and smallest J as the JS loop (odd cubature count)", async () => {
    const loaded = await bodyFor("box:0.2x0.12x0.1", 4, 47);
    const subspace = loaded.subspace;
    expect(subspace.cubatureCount % 2).toBe(1);
    const state = new StepState(subspace.n, 1 / 60);
    const lame = lameParameters(JELLY);
    const js = new ElasticTerm(subspace, state);
    const simd = new ElasticTerm(subspace, state, SolverKernels.create(subspace));
    for (const term of [js, simd]) term.setLame(lame.mu, lame.lambda, lame.lambdaStable);
    for (const [seed, amplitude] of [[1, 0.02], [2, 0.3], [3, 1.5]]) {
      const q = randoms(subspace.n, seed).map((v) => amplitude * v);
      const gJs = new Float64Array(subspace.n), gSimd = new Float64Array(subspace.n);
      const eJs = js.accumulateScaled(q, gJs, 0.7), eSimd = simd.accumulateScaled(q, gSimd, 0.7);
      expect(Math.abs(eSimd - eJs) / Math.abs(eJs)).toBeLessThan(1e-12);
      expect(relativeDifference(gSimd, gJs)).toBeLessThan(1e-12);
      expect(Math.abs(simd.minJ - js.minJ)).toBeLessThan(1e-12 * Math.abs(js.minJ));
    }
  });

  it("gemv, Cholesky columns and solve (the lower triangle only), displacements, point forces: the JS loops' results", () => {
    const kernels = SolverKernels.create(SIZES)!;
    const n = 37, cols = 37;
    const a = kernels.alloc(n * cols), x = kernels.alloc(cols), y = kernels.alloc(n);
    a.set(randoms(n * cols, 4));
    x.set(randoms(cols, 5));
    kernels.gemv(n, cols, a, x, y, 1.5);
    const expected = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let k = 0; k < cols; k++) expected[i] += 1.5 * a[i * cols + k] * x[k];
    expect(relativeDifference(y, expected)).toBeLessThan(1e-13);

    // An SPD matrix, factored in two slices by the kernel and at once in JS.
    const spd = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) spd[i * n + j] += a[i * n + k] * a[j * n + k];
    for (let i = 0; i < n; i++) spd[i * n + i] += 1;
    const factor = kernels.alloc(n * n);
    factor.set(spd);
    expect(kernels.choleskyColumns(n, factor, 0, 11)).toBe(true);
    expect(kernels.choleskyColumns(n, factor, 11, n)).toBe(true);
    const reference = Float64Array.from(spd);
    expect(choleskyColumns(reference, n, 0, n)).toBe(true);
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) expect(Math.abs(factor[i * n + j] - reference[i * n + j])).toBeLessThan(1e-12 * Math.abs(reference[i * n + i]));
    // The solves read only the lower triangle: what lies above it must not matter.
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) factor[i * n + j] = reference[i * n + j] = NaN;
    const b = kernels.alloc(n);
    b.set(randoms(n, 6));
    const bJs = Float64Array.from(b);
    kernels.choleskySolve(n, factor, b);
    choleskySolve(reference, n, bJs);
    expect(relativeDifference(b, bJs)).toBeLessThan(1e-12);
    const notSpd = kernels.alloc(4);
    notSpd.set([1, 2, 2, 1]);
    expect(kernels.choleskyColumns(2, notSpd, 0, 2)).toBe(false);

    const m = 6, count = 5;
    const rows = kernels.alloc(count * m), q = kernels.alloc(3 * m), out = kernels.alloc(3 * count);
    rows.set(randoms(count * m, 7));
    q.set(randoms(3 * m, 8));
    kernels.displacements(count, m, rows, q, out);
    for (let i = 0; i < count; i++) {
      for (let axis = 0; axis < 3; axis++) {
        let sum = 0;
        for (let k = 0; k < m; k++) sum += rows[i * m + k] * q[axis * m + k];
        expect(Math.abs(out[3 * i + axis] - sum)).toBeLessThan(1e-14);
      }
    }
    // The same through a list of points (repeats allowed), and forces on listed points as generalised forces.
    const indices = kernels.alloc(3), listed = kernels.alloc(9), forces = kernels.alloc(9), generalised = kernels.alloc(3 * m);
    indices.set([4, 0, 4]);
    forces.set(randoms(9, 9));
    kernels.displacementsOf(3, indices, m, rows, q, listed);
    kernels.scatterForces(3, indices, m, rows, forces, generalised);
    for (let l = 0; l < 3; l++) for (let axis = 0; axis < 3; axis++) expect(listed[3 * l + axis]).toBe(out[3 * indices[l] + axis]);
    for (let axis = 0; axis < 3; axis++) {
      for (let k = 0; k < m; k++) {
        let sum = 0;
        for (let l = 0; l < 3; l++) sum += forces[3 * l + axis] * rows[indices[l] * m + k];
        expect(Math.abs(generalised[axis * m + k] - sum)).toBeLessThan(1e-14);
      }
    }
  });

  it("grab springs: the same energy and gradient on the kernels as the JS loop, several hands at once", async () => {
    const loaded = await bodyFor("box:0.2x0.12x0.1", 4, 47);
    const subspace = loaded.subspace, state = new StepState(subspace.n, 1 / 60);
    const origin = new Float64Array([0.1, 0.8, -0.3]), grabs = new GrabSet(subspace);
    // Three hands on different corners, one turned, with different stiffnesses.
    for (const [x, k] of [[-0.1, 400], [0.1, 900], [0, 2500]] as const) {
      const id = grabs.grabNearest(subspace.surfaceRest, x, 0.06, 0.05, 0.08, k);
      expect(id).toBeGreaterThanOrEqual(0);
      grabs.move(id, x + 0.03, 0.1, 0.02, id === 2 ? [0, -1, 0, 1, 0, 0, 0, 0, 1] : undefined);
    }
    const js = new SpringTerm(subspace, state, grabs, origin);
    const simd = new SpringTerm(subspace, state, grabs, origin, new SurfacePointKernels(SolverKernels.create(subspace)!, subspace));
    for (const seed of [1, 2]) {
      const q = randoms(subspace.n, seed).map((v) => 0.05 * v);
      const gJs = new Float64Array(subspace.n), gSimd = new Float64Array(subspace.n);
      const eJs = js.accumulate(q, gJs), eSimd = simd.accumulate(q, gSimd);
      expect(eJs).toBeGreaterThan(0);
      expect(Math.abs(eSimd - eJs) / eJs).toBeLessThan(1e-12);
      expect(relativeDifference(gSimd, gJs)).toBeLessThan(1e-12);
    }
  });

  it("the contacts' Hessian sums and low-rank correction: the same bits on the kernels as in JS, over several normal groups and slices", async () => {
    const loaded = await bodyFor("box:0.2x0.12x0.1", 4, 47);
    const subspace = loaded.subspace, m = subspace.m, n = subspace.n, count = 9;
    const kernels = SolverKernels.create(subspace)!;
    const rows = kernels.alloc(subspace.surfaceRows.length);
    rows.set(subspace.surfaceRows);
    const snapshot = new ContactSnapshot(count), weights = randoms(2 * count, 31);
    // Floor, wall and slope normals: three groups, their contacts interleaved.
    const normals = [[0, 1, 0], [1, 0, 0], [0, 0.6, 0.8]];
    for (let i = 0; i < count; i++) {
      snapshot.sample[i] = (7 * i + 3) % subspace.surfaceCount;
      snapshot.normal.set(normals[i % 3], 3 * i);
      snapshot.normalWeight[i] = 1000 * (2 + weights[i]);
      snapshot.tangentWeight[i] = 100 * (1.5 + weights[count + i]);
    }
    snapshot.count = count;
    const start = randoms(n * n, 32);
    const finished = [];
    for (const k of [null, kernels]) {
      const assembler = new ContactHessianAssembler(m, count, k ? rows : subspace.surfaceRows, k);
      const matrix = k ? k.alloc(n * n) : new Float64Array(n * n);
      matrix.set(start);
      assembler.begin(snapshot);
      assembler.add(snapshot, 0, 4);
      assembler.add(snapshot, 4, count);
      assembler.finish(matrix);
      finished.push(matrix);
    }
    const [js, simd] = finished;
    expect(relativeDifference(js, start)).toBeGreaterThan(1e-3);
    for (let i = 0; i < n * n; i++) expect(simd[i]).toBe(js[i]);

    // The contacts' low-rank correction on the same contacts, set up on the kernels and in JS: the same solves.
    const p = new Float64Array(n * n);
    for (let i = 0; i < n; i++) p[i * n + i] = 1e4 * (1 + i / n);
    choleskyColumns(p, n, 0, n);
    const solveP = (b: Float64Array) => choleskySolve(p, n, b);
    const solved = [];
    for (const k of [null, kernels]) {
      const correction = new AffineContactCorrection(n, m, k ? rows : subspace.surfaceRows, k);
      correction.build(snapshot, solveP);
      const b = k ? k.alloc(n) : new Float64Array(n);
      b.set(randoms(n, 33));
      correction.solve(b, solveP);
      solved.push(b);
    }
    expect(relativeDifference(solved[0], randoms(n, 33))).toBeGreaterThan(1e-3);
    for (let i = 0; i < n; i++) expect(solved[1][i]).toBe(solved[0][i]);
  });

  it("L-BFGS's two-loop recursion on the kernels: the JS loops' iterates, to rounding", () => {
    // An ill-conditioned quadratic, so that the curvature pairs carry the solve (the preconditioner only scales).
    const n = 24, a = new Float64Array(n * n), b = randoms(n, 41), scale = randoms(n, 42);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      let sum = i === j ? 1 + 50 * (1 + scale[i]) : 0;
      for (let k = 0; k < 4; k++) sum += 3 * Math.sin(i * (k + 1)) * Math.sin(j * (k + 1));
      a[i * n + j] = sum;
    }
    const objective = {
      evaluate(q: Float64Array, g: Float64Array): number {
        let energy = 0;
        for (let i = 0; i < n; i++) {
          let row = 0;
          for (let j = 0; j < n; j++) row += a[i * n + j] * q[j];
          g[i] = row - b[i];
          energy += q[i] * (0.5 * row - b[i]);
        }
        return energy;
      },
      precondition(d: Float64Array): void {
        for (let i = 0; i < n; i++) d[i] /= a[i * n + i];
      },
      stepNorm2: (d: Float64Array) => d.reduce((sum, v) => sum + v * v, 0),
      maxStep: 100,
    };
    const solved = [];
    for (const kernels of [null, SolverKernels.forArrays(20 * n, 8)]) {
      const minimiser = new LbfgsMinimiser(n, kernels), q = new Float64Array(n), g = new Float64Array(n);
      const result = minimiser.minimise(q, g, objective.evaluate(q, g), objective, 1e-9, 60, 80);
      solved.push({ q, iterations: result.iterations, converged: result.converged });
    }
    expect(solved[0].converged).toBe(true);
    expect(solved[0].iterations).toBeGreaterThan(8);
    expect(solved[1].iterations).toBe(solved[0].iterations);
    expect(relativeDifference(solved[1].q, solved[0].q)).toBeLessThan(1e-10);
  });

  it("refuses to allocate past its reservation", () => {
    const kernels = SolverKernels.create({ n: 4, m: 2, cubatureCount: 2, surfaceCount: 1 })!;
    expect(() => kernels.alloc(1_000_000)).toThrow(/reservation/);
  });

  it("a body pulled on the floor moves the same on the kernels and in JS", async () => {
    const loaded = await bodyFor("../shared/assets/meshes/spot.obj", 16, 256, 0.3);
    // Solved to convergence, each step's result is the minimiser whatever the order of the sums (a step cut
    // short by its budget is not: there rounding can pick another iterate, as far apart as the solver's error).
    const run = (simd: boolean) => {
      const body = makeBody(loaded, { simd, maxIterations: 1000, tolerance: 1e-9, factorWorkPerStep: 0 }, [0, 0.2, 0]);
      expect(body.usesSimd).toBe(simd);
      body.addContactSurface(new FloorContact(0));
      const id = body.grab(0, 0.35, 0, { radius: 0.2 });
      expect(id).toBeGreaterThanOrEqual(0);
      for (let step = 0; step < 90; step++) {
        body.moveGrab(id, 0.001 * step, 0.35 + 0.002 * step, 0);
        body.step();
      }
      return renderPositions(body, loaded);
    };
    const js = run(false), simd = run(true);
    let worst = 0;
    for (let i = 0; i < js.length; i++) worst = Math.max(worst, Math.abs(js[i] - simd[i]));
    expect(worst).toBeLessThan(1e-6);
  });
});
