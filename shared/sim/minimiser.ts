// L-BFGS (two-loop recursion, initial inverse Hessian P^-1) with an Armijo backtracking line search that
// interpolates the step quadratically (one or two evaluations even when the first guess is far off), on
// preallocated arrays. Stops when the full step would move the body by less than the tolerance (in the norm the
// objective chooses: RMS over the mass), or when its iteration or evaluation budget is spent, or its deadline has
// passed (a room's solver budget for the tick: performance.now clock).

import { dot } from "./linalg";
import { allocate } from "./kernels/allocate";
import type { LbfgsArrays, SolverKernels } from "./kernels/solver-kernels";

/** Curvature pairs L-BFGS keeps. */
export const LBFGS_MEMORY = 6;

export interface Objective {
  /** Value at q; writes the gradient into g. */
  evaluate(q: Float64Array, g: Float64Array): number;
  /** d <- P^-1 d. */
  precondition(d: Float64Array): void;
  /** Squared size of a step, in the units of the tolerance. */
  stepNorm2(d: Float64Array): number;
  /** Largest size of one step, in the same units: longer directions are shortened (a trust region). */
  maxStep: number;
}

export interface MinimiseResult {
  iterations: number;
  evaluations: number;
  converged: boolean;
  /** Stopped at its deadline, unconverged. */
  cutShort: boolean;
}

const MAX_LINE_SEARCH = 12;
const MIN_TRUST = 1e-3;
const ARMIJO = 1e-4;

export class LbfgsMinimiser {
  private readonly s: Float64Array;
  private readonly y: Float64Array;
  private readonly rho: Float64Array;
  private readonly alphas: Float64Array;
  private readonly d: Float64Array;
  /** The same arrays with the kernels that run the two-loop recursion on them (null: the JS loops). */
  private readonly simd: (LbfgsArrays & { kernels: SolverKernels }) | null;
  private readonly qt: Float64Array;
  private readonly gNew: Float64Array;
  private readonly result: MinimiseResult = { iterations: 0, evaluations: 0, converged: false, cutShort: false };
  /**
   * Share of the objective's largest step that the next iteration may take: shrunk when a clipped direction
   * needed backtracking, grown back after full steps, so a body stretched far from rest (where the rest-Hessian
   * preconditioner overshoots) keeps its iterations short instead of spending the evaluation budget backtracking
   * in each. It starts afresh every step: a step's result depends on the body's state, not on hidden history
   * (a predicting client replays from the server's state).
   */
  private trust = 1;

  /** With `kernels`, the pairs and the direction live in their memory and the two-loop recursion runs there. */
  constructor(readonly n: number, kernels: SolverKernels | null = null, readonly memory = LBFGS_MEMORY) {
    if (kernels && memory > LBFGS_MEMORY) throw new RangeError(`the kernels hold room for ${LBFGS_MEMORY} curvature pairs, not ${memory}`);
    this.s = allocate(kernels, memory * n);
    this.y = allocate(kernels, memory * n);
    this.rho = allocate(kernels, memory);
    this.alphas = allocate(kernels, memory);
    this.d = allocate(kernels, n);
    this.simd = kernels && { kernels, s: this.s, y: this.y, rho: this.rho, alphas: this.alphas, d: this.d };
    this.qt = new Float64Array(n);
    this.gNew = new Float64Array(n);
  }

  /**
   * Minimises from q (updated in place), whose value `energy` and gradient `g` the caller has evaluated. Spends at
   * most `maxIterations` iterations and `maxEvaluations` evaluations, and evaluates nothing more once `deadline`
   * (performance.now, ms) has passed, after its first iteration (which always moves q, if anything lowers the energy).
   * The returned object is reused.
   */
  minimise(q: Float64Array, g: Float64Array, energy: number, objective: Objective, tolerance: number, maxIterations: number, maxEvaluations: number, deadline = Infinity): MinimiseResult {
    const n = this.n, d = this.d, qt = this.qt, gNew = this.gNew, memory = this.memory;
    const s = this.s, y = this.y, rho = this.rho, alphas = this.alphas;
    const tolerance2 = tolerance * tolerance;
    const result = this.result;
    result.iterations = 0;
    result.evaluations = 0;
    result.converged = false;
    result.cutShort = false;
    this.trust = 1;
    let stored = 0, newest = -1;
    for (let iter = 0; iter < maxIterations; iter++) {
      result.iterations++;
      for (let i = 0; i < n; i++) d[i] = -g[i];
      if (this.simd) {
        this.simd.kernels.lbfgsFirstLoop(n, this.simd, memory, stored, newest);
        objective.precondition(d);
        this.simd.kernels.lbfgsSecondLoop(n, this.simd, memory, stored, newest);
      } else {
        for (let k = 0; k < stored; k++) {
          const slot = (newest - k + memory) % memory;
          const a = rho[slot] * dotAt(s, slot * n, d, n);
          alphas[slot] = a;
          axpyAt(-a, y, slot * n, d, n);
        }
        objective.precondition(d);
        for (let k = stored - 1; k >= 0; k--) {
          const slot = (newest - k + memory) % memory;
          const b = rho[slot] * dotAt(y, slot * n, d, n);
          axpyAt(alphas[slot] - b, s, slot * n, d, n);
        }
      }
      let slope = dot(g, d, n);
      if (!(slope < 0)) {
        // Not a descent direction (stale curvature pairs): restart from the preconditioned gradient.
        stored = 0;
        for (let i = 0; i < n; i++) d[i] = -g[i];
        objective.precondition(d);
        slope = dot(g, d, n);
        if (!(slope < 0)) {
          // A zero gradient is an exact minimum (a body at rest with nothing acting on it).
          result.converged = slope === 0;
          break;
        }
      }
      let stepNorm2 = objective.stepNorm2(d);
      if (stepNorm2 <= tolerance2) {
        result.converged = true;
        break;
      }
      const maxStep2 = (objective.maxStep * this.trust) ** 2;
      const clipped = stepNorm2 > maxStep2;
      if (clipped) {
        // A wild direction (a stale curvature pair, a hard stretch) would waste the evaluation budget.
        const shrink = Math.sqrt(maxStep2 / stepNorm2);
        for (let i = 0; i < n; i++) d[i] *= shrink;
        slope *= shrink;
        stepNorm2 = maxStep2;
      }
      if (result.evaluations >= maxEvaluations) break;
      let step = 1, accepted = false, trialEnergy = energy;
      for (let ls = 0; ls < MAX_LINE_SEARCH && result.evaluations < maxEvaluations; ls++) {
        // Past the deadline (checked once a direction is known, so a step already converged is not cut): stop
        // where the last accepted iterate left q; an iteration cut before its first trial did not happen.
        if (iter > 0 && deadline !== Infinity && performance.now() > deadline) {
          result.cutShort = true;
          if (ls === 0) result.iterations--;
          break;
        }
        for (let i = 0; i < n; i++) qt[i] = q[i] + step * d[i];
        trialEnergy = objective.evaluate(qt, gNew);
        result.evaluations++;
        if (trialEnergy <= energy + ARMIJO * step * slope) {
          accepted = true;
          break;
        }
        // Minimum of the quadratic through E(0), E'(0) and E(step), kept within [0.1, 0.5] of the step. A trial that
        // squeezed material past the step's floor (an infinite energy) says nothing of where the minimum lies, only
        // that the step crossed it by far: a tenth of the step, so that the few trials left can find the step
        // the floor allows (halving, a body with one point squeezed to 1% of its volume spent its whole budget on
        // trials past the floor, step after step, and hung in the air).
        const curvature = trialEnergy - energy - slope * step;
        const next = !Number.isFinite(trialEnergy) ? 0.1 * step : Number.isFinite(curvature) && curvature > 0 ? (-slope * step * step) / (2 * curvature) : 0.5 * step;
        step = Math.min(0.5 * step, Math.max(0.1 * step, next));
      }
      // The trust region follows what the line search accepted, but only when it was what cut the step short:
      // short directions near convergence say nothing about how far the next step may go.
      if (!accepted) {
        if (clipped) this.trust = Math.max(MIN_TRUST, 0.1 * this.trust);
        break;
      }
      if (step === 1) this.trust = Math.min(1, 2 * this.trust);
      else if (clipped) this.trust = Math.max(MIN_TRUST, step * this.trust);
      const slot = (newest + 1) % memory;
      let sy = 0;
      for (let i = 0; i < n; i++) {
        const si = step * d[i], yi = gNew[i] - g[i];
        s[slot * n + i] = si;
        y[slot * n + i] = yi;
        sy += si * yi;
      }
      if (sy > 1e-300) {
        rho[slot] = 1 / sy;
        newest = slot;
        stored = Math.min(stored + 1, memory);
      }
      q.set(qt);
      g.set(gNew);
      energy = trialEnergy;
      if (stepNorm2 * step * step <= tolerance2) {
        result.converged = true;
        break;
      }
    }
    return result;
  }
}

function dotAt(a: Float64Array, offset: number, b: Float64Array, n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += a[offset + i] * b[i];
  return total;
}

function axpyAt(alpha: number, x: Float64Array, offset: number, y: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) y[i] += alpha * x[offset + i];
}
