// The lowest eigenpairs of a sparse generalised problem K x = lambda M x (K symmetric positive semi-definite,
// M diagonal positive) by shift-invert Lanczos: Lanczos on (K + sigma M)^-1 M in the M inner product, whose
// largest eigenvalues 1 / (lambda + sigma) are the pencil's smallest, well separated, so a few dozen steps find
// them. Full reorthogonalisation (twice) keeps the basis orthogonal; known null vectors (the constant) are
// deflated by keeping every Lanczos vector M-orthogonal to them.

import { SparseCholesky, type UpperCsc } from "./sparse-cholesky";
import { tridiagonalEigen } from "./tridiagonal-eigen";

export interface LanczosOptions {
  /** sigma > 0: K + sigma M must be positive definite. Pick it near the lowest wanted eigenvalue. */
  shift: number;
  /** Vectors the eigenvectors must be M-orthogonal to (M-orthonormal themselves), e.g. the constant. */
  deflate?: Float64Array[];
  /** Relative residual of a converged pair. Default 1e-9. */
  tolerance?: number;
  /** Lanczos steps at most. Default max(8 count, 60), at most n. */
  maxSteps?: number;
}

export interface EigenPairs {
  /** Ascending. */
  values: Float64Array;
  /** M-orthonormal eigenvectors, one array per value. */
  vectors: Float64Array[];
  /** Lanczos steps taken. */
  steps: number;
}

export function lowestEigenpairs(stiffness: UpperCsc, mass: Float64Array, count: number, options: LanczosOptions): EigenPairs {
  const n = stiffness.n, sigma = options.shift, deflate = options.deflate ?? [];
  const tolerance = options.tolerance ?? 1e-9;
  const maxSteps = Math.min(n - deflate.length, options.maxSteps ?? Math.max(8 * count, 60));
  if (!(count >= 1 && count <= maxSteps)) throw new RangeError(`cannot find ${count} eigenpairs of a problem with ${n - deflate.length} free unknowns`);
  const factor = SparseCholesky.factor(shiftedStiffness(stiffness, mass, sigma));

  const basis: Float64Array[] = [];
  const alpha = new Float64Array(maxSteps), beta = new Float64Array(maxSteps);
  const massTimes = new Float64Array(n);
  let w = startVector(n);
  orthogonalise(w, deflate, mass, massTimes);
  let norm = massNorm(w, mass);
  for (let i = 0; i < n; i++) w[i] /= norm;

  let converged: { theta: Float64Array; ritz: Float64Array; order: number[] } | null = null;
  let steps = 0;
  while (steps < maxSteps) {
    const v = w, j = steps;
    basis.push(v);
    steps++;
    w = new Float64Array(n);
    for (let i = 0; i < n; i++) w[i] = mass[i] * v[i];
    factor.solve(w);
    let a = 0;
    for (let i = 0; i < n; i++) a += w[i] * mass[i] * v[i];
    alpha[j] = a;
    for (let i = 0; i < n; i++) w[i] -= a * v[i];
    if (j > 0) {
      const previous = basis[j - 1], b = beta[j - 1];
      for (let i = 0; i < n; i++) w[i] -= b * previous[i];
    }
    for (let pass = 0; pass < 2; pass++) {
      orthogonalise(w, deflate, mass, massTimes);
      orthogonalise(w, basis, mass, massTimes);
    }
    norm = massNorm(w, mass);
    beta[j] = norm;
    const exhausted = !(norm > 1e-12 * Math.abs(a)) || steps === maxSteps;
    if (steps >= count && (steps % 4 === 0 || exhausted)) {
      const ritz = ritzPairs(alpha, beta, steps);
      if (exhausted || ritz.order.slice(0, count).every((c) => Math.abs(norm * ritz.vectors[(steps - 1) * steps + c]) <= tolerance * Math.abs(ritz.theta[c]))) {
        converged = { theta: ritz.theta, ritz: ritz.vectors, order: ritz.order };
        break;
      }
    }
    for (let i = 0; i < n; i++) w[i] /= norm;
  }
  if (!converged) throw new Error("Lanczos stopped before converging");
  const m = steps, values = new Float64Array(count), vectors: Float64Array[] = [];
  for (let c = 0; c < count; c++) {
    const which = converged.order[c];
    values[c] = 1 / converged.theta[which] - sigma;
    const x = new Float64Array(n);
    for (let j = 0; j < m; j++) {
      const s = converged.ritz[j * m + which], v = basis[j];
      for (let i = 0; i < n; i++) x[i] += s * v[i];
    }
    vectors.push(x);
  }
  return { values, vectors, steps };
}

/** K + sigma M, the upper triangle; every column must hold its diagonal. */
export function shiftedStiffness(k: UpperCsc, mass: Float64Array, sigma: number): UpperCsc {
  const values = Float64Array.from(k.values);
  for (let j = 0; j < k.n; j++) {
    let p = k.columnStart[j];
    while (p < k.columnStart[j + 1] && k.rows[p] !== j) p++;
    if (p === k.columnStart[j + 1]) throw new RangeError(`column ${j} of the stiffness has no diagonal entry`);
    values[p] += sigma * mass[j];
  }
  return { ...k, values };
}

/** w -= sum_u (u^T M w) u over M-orthonormal u. */
function orthogonalise(w: Float64Array, against: Float64Array[], mass: Float64Array, massTimes: Float64Array): void {
  const n = w.length;
  for (const u of against) {
    for (let i = 0; i < n; i++) massTimes[i] = mass[i] * w[i];
    let c = 0;
    for (let i = 0; i < n; i++) c += u[i] * massTimes[i];
    for (let i = 0; i < n; i++) w[i] -= c * u[i];
  }
}

function massNorm(w: Float64Array, mass: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < w.length; i++) sum += mass[i] * w[i] * w[i];
  return Math.sqrt(sum);
}

/** A deterministic start with every component non-zero, so no eigenvector is missed by symmetry. */
function startVector(n: number): Float64Array {
  const v = new Float64Array(n);
  let state = 0x2545f491;
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    v[i] = 0.5 + state / 0x100000000;
  }
  return v;
}

/** Eigenpairs of the m x m Lanczos tridiagonal, indices by descending eigenvalue. */
function ritzPairs(alpha: Float64Array, beta: Float64Array, m: number): { theta: Float64Array; vectors: Float64Array; order: number[] } {
  const theta = alpha.slice(0, m), off = beta.slice(0, m), vectors = new Float64Array(m * m);
  tridiagonalEigen(theta, off, m, vectors);
  const order = Array.from(theta.keys()).sort((x, y) => theta[y] - theta[x]);
  return { theta, vectors, order };
}
