// L-BFGS's curvature pairs carried from one minimisation to the next (curvature-memory.ts), on a sequence of
// quadratics that share one Hessian in the body's frame, as a body's steps do: H_k = (R_k (x) I) H0 (R_k^T (x) I),
// with a load that changes smoothly (a hand that moves), each solve starting where the last ended. The
// preconditioner is H0 without its two stiffest directions, turned with the body, as the rest Hessian misses what
// a held body's stretch adds.

import { expect, it } from "vitest";
import { LbfgsMinimiser, type Objective } from "../../shared/sim/minimiser";
import { quaternionToMatrix } from "../../shared/sim/linalg";
import { randoms } from "./helpers";

const M = 8, N = 3 * M, SOLVES = 13;

/** The preconditioner's body-frame diagonal, and the Hessian: that plus two stiff directions it misses. */
function bodyHessian(): { diagonal: Float64Array; h: Float64Array } {
  const u = randoms(2 * N, 7), h = new Float64Array(N * N), diagonal = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    diagonal[i] = 1 + (9 * i) / N;
    for (let j = 0; j < N; j++) h[i * N + j] = (i === j ? diagonal[i] : 0) + 20 * (u[i] * u[j] + u[N + i] * u[N + j]);
  }
  return { diagonal, h };
}

/** (R (x) I) H0 (R^T (x) I) for component-major coordinates (three blocks of M). */
function turned(h0: Float64Array, r: Float64Array): Float64Array {
  const out = new Float64Array(N * N);
  for (let a = 0; a < 3; a++) for (let i = 0; i < M; i++) for (let b = 0; b < 3; b++) for (let j = 0; j < M; j++) {
    let sum = 0;
    for (let c = 0; c < 3; c++) for (let d = 0; d < 3; d++) sum += r[3 * a + c] * h0[(c * M + i) * N + d * M + j] * r[3 * b + d];
    out[(a * M + i) * N + b * M + j] = sum;
  }
  return out;
}

class Quadratic implements Objective {
  readonly maxStep = Infinity;
  readonly hessianVersion = 0;
  private readonly t = new Float64Array(N);
  constructor(readonly h: Float64Array, readonly b: Float64Array, readonly diagonal: Float64Array, readonly rotation: Float64Array, readonly frame: Float64Array | null) {}

  evaluate(q: Float64Array, g: Float64Array): number {
    let energy = 0;
    for (let i = 0; i < N; i++) {
      let hq = 0;
      for (let j = 0; j < N; j++) hq += this.h[i * N + j] * q[j];
      g[i] = hq - this.b[i];
      energy += q[i] * (0.5 * hq - this.b[i]);
    }
    return energy;
  }

  /** d <- (R (x) I) D^-1 (R^T (x) I) d. */
  precondition(d: Float64Array): void {
    const r = this.rotation, t = this.t;
    for (let a = 0; a < 3; a++) for (let i = 0; i < M; i++) t[a * M + i] = (r[a] * d[i] + r[3 + a] * d[M + i] + r[6 + a] * d[2 * M + i]) / this.diagonal[a * M + i];
    for (let a = 0; a < 3; a++) for (let i = 0; i < M; i++) d[a * M + i] = r[3 * a] * t[i] + r[3 * a + 1] * t[M + i] + r[3 * a + 2] * t[2 * M + i];
  }

  stepNorm2(d: Float64Array): number {
    return d.reduce((sum, v) => sum + v * v, 0);
  }
}

/**
 * Iterations of the solves after the first, the body turning `turn` radians a solve; `frames` says what each
 * solve gives as its frame: its rotation, none (each starts afresh) or always the first (pairs never turned).
 */
function iterations(turn: number, frames: "turned" | "afresh" | "unturned"): number {
  const { diagonal, h: h0 } = bodyHessian(), minimiser = new LbfgsMinimiser(N), identity = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
  const loadA = randoms(N, 100), loadB = randoms(N, 200), q = new Float64Array(N), g = new Float64Array(N);
  let total = 0;
  for (let k = 0; k < SOLVES; k++) {
    // Turning about an axis that itself turns, so that successive rotations do not commute.
    const r = new Float64Array(9), half = 0.5 * turn * k, tilt = 0.7 * k;
    const axis = [Math.cos(tilt) * 0.6, Math.sin(tilt) * 0.6, 0.8];
    quaternionToMatrix(Float64Array.of(axis[0] * Math.sin(half), axis[1] * Math.sin(half), axis[2] * Math.sin(half), Math.cos(half)), r);
    const b = new Float64Array(N);
    for (let i = 0; i < N; i++) b[i] = loadA[i] * Math.cos(0.3 * k) + loadB[i] * Math.sin(0.3 * k);
    const objective = new Quadratic(turned(h0, r), b, diagonal, r, frames === "turned" ? r : frames === "unturned" ? identity : null);
    const result = minimiser.minimise(q, g, objective.evaluate(q, g), objective, 1e-6, 500, 1000);
    expect(result.converged).toBe(true);
    if (k > 0) total += result.iterations;
  }
  return total;
}

it("pairs carried over save iterations in a still frame, and in a turning one do no harm when turned with it", () => {
  const still = { carried: iterations(0, "turned"), afresh: iterations(0, "afresh") };
  const turning = { turned: iterations(0.4, "turned"), afresh: iterations(0.4, "afresh"), unturned: iterations(0.4, "unturned") };
  console.log(`iterations over ${SOLVES - 1} solves: still frame, carried ${still.carried}, afresh ${still.afresh}; turning 0.4 rad a solve, carried and turned ${turning.turned}, afresh ${turning.afresh}, carried unturned ${turning.unturned}`);
  expect(still.carried).toBeLessThan(0.8 * still.afresh);
  expect(turning.turned).toBeLessThanOrEqual(turning.afresh);
  expect(turning.turned).toBeLessThan(turning.unturned);
});
