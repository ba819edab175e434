// Jacobi-preconditioned conjugate gradients for (K + s M) X = B, K symmetric positive semi-definite (upper
// triangle by columns), M diagonal positive, s > 0: a well-conditioned system when s is not small against K's
// lowest eigenvalues (a screened Poisson problem), solved without factorising K. Several right-hand sides are
// solved together (one pass over K's entries per iteration serves them all), each with its own CG recurrence.

import { stiffnessTimesBlock } from "./block-product";
import type { UpperCsc } from "./sparse-cholesky";

export interface CgResult {
  /** Iterations until the last right-hand side converged. */
  iterations: number;
  /** Largest final ||r|| / ||b|| over the right-hand sides. */
  residual: number;
}

/**
 * Solves (K + shift M) X = B in place (B, n x p node-major, becomes X) from X = 0, each column to `tolerance`
 * relative residual.
 */
export function solveShiftedCg(k: UpperCsc, mass: Float64Array, shift: number, b: Float64Array, p = 1, tolerance = 1e-10, maxIterations = 2000): CgResult {
  const n = k.n, size = n * p;
  if (b.length !== size) throw new RangeError(`${p} right-hand sides over ${n} unknowns need ${size} numbers, got ${b.length}`);
  const x = new Float64Array(size), r = Float64Array.from(b), z = new Float64Array(size), d = new Float64Array(size), q = new Float64Array(size);
  const inverseDiagonal = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let diagonal = shift * mass[j];
    for (let at = k.columnStart[j]; at < k.columnStart[j + 1]; at++) if (k.rows[at] === j) diagonal += k.values[at];
    inverseDiagonal[j] = 1 / diagonal;
  }
  const bNorm = new Float64Array(p), rz = new Float64Array(p), dq = new Float64Array(p), rr = new Float64Array(p), rzNext = new Float64Array(p);
  const active = new Uint8Array(p), relative = new Float64Array(p), alpha = new Float64Array(p), beta = new Float64Array(p);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < p; c++) {
      const o = i * p + c;
      bNorm[c] += b[o] * b[o];
      z[o] = inverseDiagonal[i] * r[o];
      d[o] = z[o];
      rz[c] += r[o] * z[o];
    }
  }
  let open = 0;
  for (let c = 0; c < p; c++) {
    bNorm[c] = Math.sqrt(bNorm[c]);
    active[c] = bNorm[c] > 0 ? 1 : 0;
    open += active[c];
  }
  let iterations = 0;
  // Each step of the recurrence is a small function of its own: called every iteration, they are compiled once and
  // stay compiled, where one long loop is compiled on the stack anew each solve and thrown out where it ends (a
  // bake's one solve ran at a quarter of its warm speed).
  while (open > 0 && iterations < maxIterations) {
    // q = (K + shift M) d
    stiffnessTimesBlock(k, d, p, q);
    addShiftedMass(q, d, mass, shift, n, p);
    columnDots(d, q, n, p, dq);
    for (let c = 0; c < p; c++) alpha[c] = active[c] ? rz[c] / dq[c] : 0;
    stepAlong(x, r, d, q, alpha, active, n, p, rr);
    iterations++;
    for (let c = 0; c < p; c++) {
      if (!active[c]) continue;
      relative[c] = Math.sqrt(rr[c]) / bNorm[c];
      if (relative[c] <= tolerance) {
        active[c] = 0;
        open--;
      }
    }
    precondition(z, r, inverseDiagonal, n, p, rzNext);
    for (let c = 0; c < p; c++) {
      beta[c] = active[c] ? rzNext[c] / rz[c] : 0;
      rz[c] = rzNext[c];
    }
    nextDirections(d, z, beta, active, n, p);
  }
  b.set(x);
  let residual = 0;
  for (let c = 0; c < p; c++) residual = Math.max(residual, relative[c]);
  return { iterations, residual };
}

/** q += shift M d. */
function addShiftedMass(q: Float64Array, d: Float64Array, mass: Float64Array, shift: number, n: number, p: number): void {
  for (let i = 0; i < n; i++) {
    const sm = shift * mass[i];
    for (let o = i * p, end = o + p; o < end; o++) q[o] += sm * d[o];
  }
}

/** out[c] = column c of u . column c of v (node-major blocks), summed over the nodes in order. */
function columnDots(u: Float64Array, v: Float64Array, n: number, p: number, out: Float64Array): void {
  out.fill(0);
  for (let i = 0; i < n; i++) for (let c = 0, o = i * p; c < p; c++, o++) out[c] += u[o] * v[o];
}

/** x += alpha d and r -= alpha q in the active columns; rr[c] = |r_c|^2 after. */
function stepAlong(x: Float64Array, r: Float64Array, d: Float64Array, q: Float64Array, alpha: Float64Array, active: Uint8Array, n: number, p: number, rr: Float64Array): void {
  rr.fill(0);
  for (let i = 0; i < n; i++) {
    for (let c = 0, o = i * p; c < p; c++, o++) {
      if (!active[c]) continue;
      const a = alpha[c];
      x[o] += a * d[o];
      r[o] -= a * q[o];
      rr[c] += r[o] * r[o];
    }
  }
}

/** z = D^-1 r (Jacobi); rz[c] = r_c . z_c. */
function precondition(z: Float64Array, r: Float64Array, inverseDiagonal: Float64Array, n: number, p: number, rz: Float64Array): void {
  rz.fill(0);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < p; c++) {
      const o = i * p + c;
      z[o] = inverseDiagonal[i] * r[o];
      rz[c] += r[o] * z[o];
    }
  }
}

/** d = z + beta d in the active columns, 0 in the others. */
function nextDirections(d: Float64Array, z: Float64Array, beta: Float64Array, active: Uint8Array, n: number, p: number): void {
  for (let i = 0; i < n; i++) {
    for (let c = 0, o = i * p; c < p; c++, o++) d[o] = active[c] ? z[o] + beta[c] * d[o] : 0;
  }
}
