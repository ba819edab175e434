// Rayleigh-Ritz for a sparse generalised problem K x = lambda M x (K symmetric positive semi-definite, upper
// triangle by columns; M diagonal positive) restricted to the span of a dense block of vectors, with no
// factorisation of K: K is applied to the block once, the block's M- and K-Gram matrices are formed, the M-Gram
// is whitened by its eigen-decomposition (cutting near-dependent directions), the projected K-Gram diagonalised,
// and the few Ritz vectors kept are M-orthonormalised once more against round-off. Also the block operations a
// subspace iteration around it needs: K times a block (block-product.ts), and a Chebyshev filter in M^-1 K.
//
// Blocks are node-major: x[i * p + c] is vector c's entry i, so one pass over K's entries serves every vector.

import type { UpperCsc } from "./sparse-cholesky";
import { blockTimesSmall, nodeMajorGram } from "./dense-blocks";
import { stiffnessTimesBlock } from "./block-product";
import { symmetricEigenSorted } from "./symmetric-eigen";

/** A direction whose M-norm squared, relative to the largest of the (unit-scaled) block, is below this is dropped. */
export const RITZ_DEPENDENCE_CUT = 1e-10;

export interface RitzOptions {
  /** M-orthonormal vectors the span is made M-orthogonal to first (the constant, for a Neumann Laplacian). */
  deflate?: Float64Array[];
  /** How many of the lowest Ritz pairs to return (at most the span's rank). */
  keep: number;
  /** Relative cut of near-dependent directions (default RITZ_DEPENDENCE_CUT); 0 keeps every direction of positive norm. */
  cut?: number;
  /** Also return K times the Ritz vectors (two more block products; default false). */
  stiffnessTimes?: boolean;
  /**
   * M-orthonormalise the Ritz vectors once more against the whitening's round-off (default true). A subspace
   * iteration's intermediate blocks need not be: the next Rayleigh-Ritz whitens its span itself.
   */
  reorthonormalise?: boolean;
}

export interface RitzPairs {
  /** Ascending Ritz values, `count` of them. */
  values: Float64Array;
  /** The Ritz vectors, M-orthonormal, node-major (n x count). */
  vectors: Float64Array;
  /** K times the Ritz vectors, node-major (n x count), when asked for: residuals K x - lambda M x without another product. */
  stiffnessTimes?: Float64Array;
  count: number;
  /** Dimension of the span after the cut. */
  rank: number;
}

/**
 * The lowest Ritz pairs of (K, M) over the span of `basis` (n x p, node-major). `basis` is modified (deflated and
 * scaled). Allocates O(n p) once; no allocation per node.
 */
export function rayleighRitz(stiffness: UpperCsc, mass: Float64Array, basis: Float64Array, p: number, options: RitzOptions): RitzPairs {
  const n = mass.length, cut = options.cut ?? RITZ_DEPENDENCE_CUT;
  if (basis.length !== n * p) throw new RangeError(`a basis of ${p} vectors over ${n} unknowns needs ${n * p} numbers, got ${basis.length}`);
  for (const d of options.deflate ?? []) deflateBlock(basis, p, d, mass);
  // Unit M-norm columns, so the cut is relative to each direction's own size (zero columns stay zero and are cut).
  const norms = columnMassNorms(basis, p, mass);
  for (let i = 0; i < n; i++) for (let c = 0; c < p; c++) basis[i * p + c] = norms[c] > 0 ? basis[i * p + c] / norms[c] : 0;
  // Whitening in the small space: T = U D^-1/2 over the kept eigenpairs of B^T M B, so that B T is M-orthonormal;
  // then A = T^T (B^T K B) T, diagonalised. K is applied to the p columns once.
  const kb = new Float64Array(n * p);
  stiffnessTimesBlock(stiffness, basis, p, kb);
  const { mass: gramMass, stiffness: gramStiffness } = gramPair(basis, kb, p, mass);
  const { transform, rank } = whitening(gramMass, p, cut);
  const a = sandwich(transform, gramStiffness, p, rank);
  const values = new Float64Array(rank), y = new Float64Array(rank * rank);
  symmetricEigenSorted(a, rank, values, y);
  const count = Math.min(options.keep, rank);
  // C = T Y (p x count): the Ritz vectors' coefficients over the basis.
  const coefficients = new Float64Array(p * count);
  for (let r = 0; r < p; r++) for (let c = 0; c < count; c++) {
    let sum = 0;
    for (let j = 0; j < rank; j++) sum += transform[r * rank + j] * y[j * rank + c];
    coefficients[r * count + c] = sum;
  }
  let vectors = blockTimesSmall(basis, p, coefficients, count);
  let stiffnessTimes = options.stiffnessTimes ? blockTimesSmall(kb, p, coefficients, count) : undefined;
  // Once more over the few Ritz vectors (round-off of the whitening of a nearly dependent span): their M-Gram is
  // the identity up to round-off; its inverse square root keeps them M-orthonormal, barely moving them.
  const again = options.reorthonormalise === false ? null : inverseSquareRoot(massGram(vectors, count, mass), count);
  if (again) {
    vectors = blockTimesSmall(vectors, count, again, count);
    if (stiffnessTimes) stiffnessTimes = blockTimesSmall(stiffnessTimes, count, again, count);
  }
  return { values: values.slice(0, count), vectors, ...(stiffnessTimes ? { stiffnessTimes } : {}), count, rank };
}

/** Largest row sum of |M^-1 K| (Gershgorin): an upper bound of the pencil's spectrum. */
export function spectrumUpperBound(k: UpperCsc, mass: Float64Array): number {
  const sums = new Float64Array(k.n);
  for (let j = 0; j < k.n; j++) {
    for (let at = k.columnStart[j]; at < k.columnStart[j + 1]; at++) {
      const i = k.rows[at], v = Math.abs(k.values[at]);
      sums[j] += v;
      if (i !== j) sums[i] += v;
    }
  }
  let top = 0;
  for (let i = 0; i < k.n; i++) top = Math.max(top, sums[i] / mass[i]);
  return top;
}

/**
 * Chebyshev filter of degree `degree` in A = M^-1 K applied to the block x (n x p, node-major): the polynomial is
 * small (|p| <= 1) on [low, high] and grows fast below `low`, scaled to 1 at `target` (below `low`), so the
 * block's components along eigenvectors above `low` are damped against those below (Zhou and Saad's filtered
 * subspace iteration, scaled to avoid overflow). Returns a new block; `degree` products with K.
 */
export function chebyshevFilter(k: UpperCsc, mass: Float64Array, x: Float64Array, p: number, degree: number, low: number, high: number, target: number): Float64Array {
  const n = mass.length, e = (high - low) / 2, centre = (high + low) / 2;
  let sigma = e / (target - centre);
  const tau = 2 / sigma;
  let previous = Float64Array.from(x), current = new Float64Array(n * p), next = new Float64Array(n * p);
  const kx = new Float64Array(n * p);
  // current = (sigma / e) (A - centre) x
  stiffnessTimesBlock(k, previous, p, kx);
  firstChebyshevStep(current, kx, previous, mass, sigma / e, centre, n, p);
  for (let step = 2; step <= degree; step++) {
    const sigmaNext = 1 / (tau - sigma);
    stiffnessTimesBlock(k, current, p, kx);
    chebyshevStep(next, kx, current, previous, mass, (2 * sigmaNext) / e, centre, sigma * sigmaNext, n, p);
    [previous, current, next] = [current, next, previous];
    sigma = sigmaNext;
  }
  return degree >= 1 ? current : previous;
}

// The filter's steps are functions of their own, called every step: compiled once for the process rather than on
// the stack of each filter (a bake runs two filters).

/** out = scale (M^-1 K x - centre x), from kx = K x. */
function firstChebyshevStep(out: Float64Array, kx: Float64Array, x: Float64Array, mass: Float64Array, scale: number, centre: number, n: number, p: number): void {
  for (let i = 0; i < n; i++) {
    const inv = 1 / mass[i];
    for (let c = 0; c < p; c++) out[i * p + c] = scale * (kx[i * p + c] * inv - centre * x[i * p + c]);
  }
}

/** next = s (M^-1 K current - centre current) - t previous, from kx = K current. */
function chebyshevStep(
  next: Float64Array, kx: Float64Array, current: Float64Array, previous: Float64Array, mass: Float64Array, s: number, centre: number, t: number, n: number, p: number,
): void {
  for (let i = 0; i < n; i++) {
    const inv = 1 / mass[i];
    for (let c = 0; c < p; c++) {
      const o = i * p + c;
      next[o] = s * (kx[o] * inv - centre * current[o]) - t * previous[o];
    }
  }
}

/** Concatenates blocks (each n x p_i, node-major) side by side. */
export function joinBlocks(n: number, blocks: { data: Float64Array; width: number }[]): { data: Float64Array; width: number } {
  const width = blocks.reduce((s, b) => s + b.width, 0), data = new Float64Array(n * width);
  let offset = 0;
  for (const b of blocks) {
    for (let i = 0; i < n; i++) for (let c = 0; c < b.width; c++) data[i * width + offset + c] = b.data[i * b.width + c];
    offset += b.width;
  }
  return { data, width };
}

function deflateBlock(basis: Float64Array, p: number, d: Float64Array, mass: Float64Array): void {
  const n = mass.length, dots = new Float64Array(p);
  for (let pass = 0; pass < 2; pass++) {
    dots.fill(0);
    for (let i = 0; i < n; i++) {
      const md = mass[i] * d[i];
      for (let c = 0; c < p; c++) dots[c] += md * basis[i * p + c];
    }
    for (let i = 0; i < n; i++) for (let c = 0; c < p; c++) basis[i * p + c] -= dots[c] * d[i];
  }
}

function columnMassNorms(basis: Float64Array, p: number, mass: Float64Array): Float64Array {
  const norms = new Float64Array(p);
  for (let i = 0; i < mass.length; i++) for (let c = 0; c < p; c++) norms[c] += mass[i] * basis[i * p + c] ** 2;
  for (let c = 0; c < p; c++) norms[c] = Math.sqrt(norms[c]);
  return norms;
}

/** X^T diag(m) X (p x p) for a block X (n x p, node-major). */
function massGram(x: Float64Array, p: number, mass: Float64Array): Float64Array {
  return nodeMajorGram(x, p, x, p, mass.length, new Float64Array(p * p), true, mass);
}

/** B^T M B and B^T (K B) (p x p each, symmetric: upper tiles summed), over the blocks' columns (dense-blocks.ts). */
function gramPair(b: Float64Array, kb: Float64Array, p: number, mass: Float64Array): { mass: Float64Array; stiffness: Float64Array } {
  const n = mass.length;
  return {
    mass: nodeMajorGram(b, p, b, p, n, new Float64Array(p * p), true, mass),
    stiffness: nodeMajorGram(b, p, kb, p, n, new Float64Array(p * p), true),
  };
}

/** T^T G T for T (p x r) and a symmetric G (p x p), symmetrised. */
function sandwich(t: Float64Array, g: Float64Array, p: number, r: number): Float64Array {
  const gt = new Float64Array(p * r), out = new Float64Array(r * r);
  for (let i = 0; i < p; i++) for (let k = 0; k < p; k++) {
    const gik = g[i * p + k];
    if (gik === 0) continue;
    for (let c = 0; c < r; c++) gt[i * r + c] += gik * t[k * r + c];
  }
  for (let i = 0; i < p; i++) for (let a = 0; a < r; a++) {
    const tia = t[i * r + a];
    if (tia === 0) continue;
    for (let c = a; c < r; c++) out[a * r + c] += tia * gt[i * r + c];
  }
  for (let a = 0; a < r; a++) for (let c = 0; c < a; c++) out[a * r + c] = out[c * r + a];
  return out;
}

/** T = U D^-1/2 over the eigenpairs of `gram` above cut x the largest (p x rank, row-major). `gram` is destroyed. */
function whitening(gram: Float64Array, p: number, cut: number): { transform: Float64Array; rank: number } {
  const d = new Float64Array(p), u = new Float64Array(p * p);
  symmetricEigenSorted(gram, p, d, u);
  const top = d[p - 1];
  if (!(top > 0)) return { transform: new Float64Array(0), rank: 0 };
  const kept: number[] = [];
  for (let j = 0; j < p; j++) if (d[j] > cut * top) kept.push(j);
  const rank = kept.length, transform = new Float64Array(p * rank);
  kept.forEach((j, c) => {
    const s = 1 / Math.sqrt(d[j]);
    for (let r = 0; r < p; r++) transform[r * rank + c] = u[r * p + j] * s;
  });
  return { transform, rank };
}

/**
 * G^-1/2 = U D^-1/2 U^T of a symmetric positive definite G (p x p; destroyed): the closest M-orthonormalisation,
 * which does not rotate vectors that are already nearly orthonormal; null when G is not positive definite.
 */
function inverseSquareRoot(g: Float64Array, p: number): Float64Array | null {
  const d = new Float64Array(p), u = new Float64Array(p * p);
  symmetricEigenSorted(g, p, d, u);
  if (!(d[0] > 0)) return null;
  const out = new Float64Array(p * p);
  for (let j = 0; j < p; j++) {
    const s = 1 / Math.sqrt(d[j]);
    for (let r = 0; r < p; r++) {
      const urs = u[r * p + j] * s;
      for (let c = 0; c < p; c++) out[r * p + c] += urs * u[c * p + j];
    }
  }
  return out;
}

