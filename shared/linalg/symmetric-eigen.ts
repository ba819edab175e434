// Eigen-decomposition of a dense symmetric matrix: Householder reduction to tridiagonal form, then QL with
// implicit shifts. O(n^3) with a small constant, where cyclic Jacobi needs many sweeps (a 204 x 204 reduced
// stiffness: ~400 ms by Jacobi). When only the lowest few eigenvectors are wanted, the QL finds the eigenvalues
// alone (O(n^2)), inverse iteration on the tridiagonal the vectors (O(n) a solve, plus re-orthogonalisation within a
// cluster) and the stored reflectors take them back (O(n^2) a vector): the cubature fit's 204 x 204 problem costs
// the reduction and about as much again, not the QL's accumulated rotations.

import { simdTridiagonalise } from "./kernels/dense-kernels";
import { tridiagonalEigen } from "./tridiagonal-eigen";

/**
 * `a` (n x n, row-major) is destroyed. Eigenvalues go to `values` (ascending) and the matching eigenvectors to
 * the columns of `vectors` (n x n, row-major).
 */
export function symmetricEigenSorted(a: Float64Array, n: number, values: Float64Array, vectors: Float64Array): void {
  const diagonal = new Float64Array(n), off = new Float64Array(n);
  tridiagonalise(a, n, diagonal, off);
  // q holds Q^T (its rows are the eigenvectors being formed): every rotation below runs along contiguous rows.
  const q = transposedTransform(a, n);
  tridiagonalEigen(diagonal, off, n, q, true, true);
  const order = Array.from(diagonal.keys()).sort((x, y) => diagonal[x] - diagonal[y]);
  order.forEach((from, to) => {
    values[to] = diagonal[from];
    for (let r = 0, o = from * n; r < n; r++) vectors[r * n + to] = q[o + r];
  });
}

/**
 * Every eigenvalue of a dense symmetric matrix, and the eigenvectors of the lowest few on demand. Vectors of
 * eigenvalues closer than CLUSTER of the largest one's magnitude are orthogonalised against each other, so a (nearly)
 * repeated eigenvalue gets an orthonormal basis of its eigenspace.
 */
export class LowestEigenpairs {
  /** Ascending. */
  readonly values: Float64Array;
  private readonly diagonal: Float64Array;
  private readonly off: Float64Array;

  /** `a` (n x n, row-major) is overwritten: it keeps the reduction's reflectors for `vectors`. */
  constructor(private readonly a: Float64Array, private readonly n: number) {
    this.diagonal = new Float64Array(n);
    this.off = new Float64Array(n);
    tridiagonalise(a, n, this.diagonal, this.off);
    const d = Float64Array.from(this.diagonal), e = Float64Array.from(this.off);
    tridiagonalEigen(d, e, n, null);
    this.values = d.sort();
  }

  /** The eigenvectors of the lowest `keep` eigenvalues, as the columns of an n x keep row-major matrix. */
  vectors(keep: number): Float64Array {
    const { a, n, values } = this, out = new Float64Array(n * keep);
    // The tridiagonal scaled by a power of two (exactly) to a spectrum of magnitude about 1, so that a pivot's floor
    // and a solve's growth do not depend on the matrix's units; a zero matrix keeps its own.
    const largest = Math.max(Math.abs(values[0]), Math.abs(values[n - 1])), usable = largest > 0 && Number.isFinite(largest);
    const scale = usable ? 2 ** -Math.round(Math.log2(largest)) : 1, top = usable ? largest * scale : 1;
    const solver = new ShiftedTridiagonal(this.diagonal.map((v) => v * scale), this.off.map((v) => v * scale), n), found: Float64Array[] = [];
    let clusterStart = 0, shift = -Infinity;
    for (let f = 0; f < keep; f++) {
      if (f > 0 && (values[f] - values[f - 1]) * scale > CLUSTER * top) clusterStart = f;
      // Equal shifts would give equal vectors: nudge each past the last, as EISPACK's tinvit does.
      shift = Math.max(values[f] * scale, shift + SHIFT_NUDGE * top);
      solver.factor(shift, Number.EPSILON * top);
      const x = new Float64Array(n);
      for (let i = 0; i < n; i++) x[i] = 1 + ((i * 0.6180339887498949) % 1) * 1e-3;
      for (let iteration = 0; iteration < INVERSE_ITERATIONS; iteration++) {
        solver.solve(x);
        for (let g = clusterStart; g < f; g++) {
          const other = found[g];
          let dot = 0;
          for (let i = 0; i < n; i++) dot += other[i] * x[i];
          for (let i = 0; i < n; i++) x[i] -= dot * other[i];
        }
        let norm = 0;
        for (let i = 0; i < n; i++) norm += x[i] * x[i];
        norm = Math.sqrt(norm);
        for (let i = 0; i < n; i++) x[i] /= norm;
      }
      found.push(x);
    }
    // Back to a's basis: A = Q T Q^T, so an eigenvector of A is Q times the tridiagonal's (Q = H_0 ... H_{n-3}).
    // Four vectors through each reflector together (applyReflectors); a last one, two or three alone.
    let f = 0;
    for (; f + 3 < keep; f += 4) {
      const y0 = found[f], y1 = found[f + 1], y2 = found[f + 2], y3 = found[f + 3];
      for (let k = n - 3; k >= 0; k--) applyReflectors(a, n, k, y0, y1, y2, y3);
    }
    for (; f < keep; f++) for (let k = n - 3; k >= 0; k--) applyReflector(a, n, k, found[f]);
    for (let g = 0; g < keep; g++) for (let r = 0; r < n; r++) out[r * keep + g] = found[g][r];
    return out;
  }
}

/** Eigenvalues closer than this share of the largest's magnitude form a cluster whose vectors are orthogonalised. */
const CLUSTER = 1e-3;
/** A shift equal to the last one moves up by this share of the largest eigenvalue's magnitude. */
const SHIFT_NUDGE = 1e-13;
/** A solve's entry past this shrinks the whole vector by it (far from overflow, far above any eigenvector's scale). */
const GROWTH_LIMIT = 1e150;
/** Solves a vector of inverse iteration takes (a shift at an eigenvalue converges in one or two). */
const INVERSE_ITERATIONS = 3;

/**
 * Householder reduction of `a` (n x n, row-major) to the tridiagonal `diagonal` and `off` (entry i coupling i and
 * i + 1). Step k's unit reflector v (entries k + 1 .. n - 1, H_k = I - 2 v v^T) is left in row k of `a` past the
 * diagonal; the rest of `a` is destroyed.
 */
function tridiagonalise(a: Float64Array, n: number, diagonal: Float64Array, off: Float64Array): void {
  if (!simdTridiagonalise(a, n, diagonal, off)) householderStepsInJs(a, n, diagonal, off);
  for (let k = Math.max(0, n - 2); k < n; k++) {
    diagonal[k] = a[k * n + k];
    off[k] = k + 1 < n ? a[(k + 1) * n + k] : 0;
    for (let i = k + 1; i < n; i++) a[k * n + i] = 0;
  }
}

/** tridiagonalise's Householder steps (k < n - 2) where the SIMD kernel does not run (its reference in tests). */
export function householderStepsInJs(a: Float64Array, n: number, diagonal: Float64Array, off: Float64Array): void {
  const v = new Float64Array(n), p = new Float64Array(n);
  for (let k = 0; k + 2 < n; k++) {
    // Reflect a[k+1.., k] onto its first entry: v = x - alpha e1, H = I - 2 v v^T / v^T v.
    let norm = 0;
    for (let i = k + 1; i < n; i++) norm += a[i * n + k] ** 2;
    norm = Math.sqrt(norm);
    const alpha = a[(k + 1) * n + k] > 0 ? -norm : norm;
    let vv = 0;
    for (let i = k + 1; i < n; i++) {
      v[i] = a[i * n + k] - (i === k + 1 ? alpha : 0);
      vv += v[i] * v[i];
    }
    if (norm === 0 || vv === 0) {
      diagonal[k] = a[k * n + k];
      off[k] = a[(k + 1) * n + k];
      for (let i = k + 1; i < n; i++) a[k * n + i] = 0;
      continue;
    }
    const scale = 1 / Math.sqrt(vv);
    for (let i = k + 1; i < n; i++) v[i] *= scale;
    // The trailing block B becomes B - 2 v r^T - 2 r v^T with p = B v, r = p - (v . p) v.
    trailingTimes(a, n, k + 1, v, p);
    let vp = 0;
    for (let i = k + 1; i < n; i++) vp += v[i] * p[i];
    for (let i = k + 1; i < n; i++) p[i] -= vp * v[i];
    for (let i = k + 1; i < n; i++) {
      const vi = 2 * v[i], pi = 2 * p[i];
      for (let j = k + 1; j < n; j++) a[i * n + j] -= vi * p[j] + pi * v[j];
    }
    diagonal[k] = a[k * n + k];
    off[k] = alpha;
    for (let i = k + 1; i < n; i++) a[k * n + i] = v[i];
  }
}

/**
 * p[i] = sum_j a[i, j] v[j] over the trailing block (rows and columns from `first`), four rows at a time: each row's
 * sum is added in the same order as alone, but four chains of dependent additions overlap instead of one.
 */
function trailingTimes(a: Float64Array, n: number, first: number, v: Float64Array, p: Float64Array): void {
  let i = first;
  for (; i + 3 < n; i += 4) {
    const r0 = i * n, r1 = r0 + n, r2 = r1 + n, r3 = r2 + n;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (let j = first; j < n; j++) {
      const vj = v[j];
      s0 += a[r0 + j] * vj; s1 += a[r1 + j] * vj; s2 += a[r2 + j] * vj; s3 += a[r3 + j] * vj;
    }
    p[i] = s0; p[i + 1] = s1; p[i + 2] = s2; p[i + 3] = s3;
  }
  for (; i < n; i++) {
    let sum = 0;
    for (let j = first, r = i * n; j < n; j++) sum += a[r + j] * v[j];
    p[i] = sum;
  }
}

/** y <- H_k y for the reflector tridiagonalise left in row k of `a`. */
function applyReflector(a: Float64Array, n: number, k: number, y: Float64Array): void {
  const o = k * n;
  let dot = 0;
  for (let i = k + 1; i < n; i++) dot += a[o + i] * y[i];
  if (dot === 0) return;
  dot *= 2;
  for (let i = k + 1; i < n; i++) y[i] -= dot * a[o + i];
}

/**
 * applyReflector on four vectors at once: each vector's dot product is summed in the same order as alone, the four
 * chains of dependent additions overlapping.
 */
function applyReflectors(a: Float64Array, n: number, k: number, y0: Float64Array, y1: Float64Array, y2: Float64Array, y3: Float64Array): void {
  const o = k * n;
  let d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  for (let i = k + 1; i < n; i++) {
    const x = a[o + i];
    d0 += x * y0[i]; d1 += x * y1[i]; d2 += x * y2[i]; d3 += x * y3[i];
  }
  // A zero dot product leaves its vector as it is (y - 0 v could turn a -0 entry into +0).
  if (d0 !== 0) { d0 *= 2; for (let i = k + 1; i < n; i++) y0[i] -= d0 * a[o + i]; }
  if (d1 !== 0) { d1 *= 2; for (let i = k + 1; i < n; i++) y1[i] -= d1 * a[o + i]; }
  if (d2 !== 0) { d2 *= 2; for (let i = k + 1; i < n; i++) y2[i] -= d2 * a[o + i]; }
  if (d3 !== 0) { d3 *= 2; for (let i = k + 1; i < n; i++) y3[i] -= d3 * a[o + i]; }
}

/**
 * Q^T (n x n, row-major) from the reflectors tridiagonalise left in `a`: Q = H_0 ... H_{n-3} formed backwards
 * (H_{n-3} first, each touching only the trailing block it owns), as rows of its transpose. Q is symmetric in
 * no way, but each H_k is, so Q^T = H_{n-3} ... H_0: the same product applied from the other side.
 */
function transposedTransform(a: Float64Array, n: number): Float64Array {
  const q = new Float64Array(n * n), w = new Float64Array(n);
  for (let i = 0; i < n; i++) q[i * n + i] = 1;
  // Q^T <- Q^T H_k for k from n-3 down: the columns k+1.. of each row lose 2 (row . v) v.
  for (let k = n - 3; k >= 0; k--) {
    const o = k * n;
    for (let r = k + 1; r < n; r++) {
      let dot = 0;
      for (let i = k + 1, at = r * n + k + 1; i < n; i++, at++) dot += q[at] * a[o + i];
      w[r] = 2 * dot;
    }
    for (let r = k + 1; r < n; r++) {
      const wr = w[r];
      if (wr === 0) continue;
      for (let i = k + 1, at = r * n + k + 1; i < n; i++, at++) q[at] -= wr * a[o + i];
    }
  }
  return q;
}

/**
 * T - shift I for a symmetric tridiagonal T, factored by Gaussian elimination with partial pivoting (one fill-in
 * diagonal), and solved in place: inverse iteration's step.
 */
class ShiftedTridiagonal {
  private readonly u0: Float64Array;
  private readonly u1: Float64Array;
  private readonly u2: Float64Array;
  private readonly multiplier: Float64Array;
  private readonly swapped: Uint8Array;

  constructor(private readonly diagonal: Float64Array, private readonly off: Float64Array, private readonly n: number) {
    this.u0 = new Float64Array(n);
    this.u1 = new Float64Array(n);
    this.u2 = new Float64Array(n);
    this.multiplier = new Float64Array(n);
    this.swapped = new Uint8Array(n);
  }

  /** A zero pivot (the shift is an eigenvalue to rounding) becomes `tiny`: the solve then grows the eigenvector. */
  factor(shift: number, tiny: number): void {
    const { diagonal, off, n, u0, u1, u2, multiplier, swapped } = this;
    let p = diagonal[0] - shift, q = n > 1 ? off[0] : 0, r = 0;
    for (let i = 0; i + 1 < n; i++) {
      const below = off[i], nextDiagonal = diagonal[i + 1] - shift, nextOff = i + 2 < n ? off[i + 1] : 0;
      if (Math.abs(p) >= Math.abs(below)) {
        const m = p === 0 ? 0 : below / p;
        u0[i] = p; u1[i] = q; u2[i] = r;
        multiplier[i] = m;
        swapped[i] = 0;
        p = nextDiagonal - m * q;
        q = nextOff - m * r;
      } else {
        const m = p / below;
        u0[i] = below; u1[i] = nextDiagonal; u2[i] = nextOff;
        multiplier[i] = m;
        swapped[i] = 1;
        p = q - m * nextDiagonal;
        q = r - m * nextOff;
      }
      r = 0;
      if (u0[i] === 0) u0[i] = tiny;
    }
    u0[n - 1] = p === 0 ? tiny : p;
    u1[n - 1] = u2[n - 1] = 0;
  }

  solve(x: Float64Array): void {
    const { n, u0, u1, u2, multiplier, swapped } = this;
    for (let i = 0; i + 1 < n; i++) {
      if (swapped[i]) {
        const t = x[i];
        x[i] = x[i + 1];
        x[i + 1] = t;
      }
      x[i + 1] -= multiplier[i] * x[i];
    }
    for (let i = n - 1; i >= 0; i--) {
      let sum = x[i];
      if (i + 1 < n) sum -= u1[i] * x[i + 1];
      if (i + 2 < n) sum -= u2[i] * x[i + 2];
      x[i] = sum / u0[i];
      // Several tiny pivots compound: the system is linear, so all of x (solved part and right-hand side) may shrink.
      if (Math.abs(x[i]) > GROWTH_LIMIT) for (let j = 0; j < n; j++) x[j] /= GROWTH_LIMIT;
    }
  }
}
