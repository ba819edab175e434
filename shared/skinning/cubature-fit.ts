// Cubature fitted to the fields (An et al. 2008, "Optimizing cubature for efficient integration of subspace
// deformations"): from a pool of volume-uniform interior points, pick at most `count` and give them non-negative
// volumes so that the subspace's rest stiffness, seen through its own vibration modes, is what the whole pool
// integrates. A cluster's centroid sits on a thin part's neutral axis, where bending strains nothing, so plain
// clustered cubature makes bending bodies far too soft; fitted points sit where the strain is.
//
// What is matched, per mode pair (i, j), for the shear (mu) and volume (lambda) parts of linear elasticity
// separately (so the fit holds for any material): the integral of F_i : F_j + F_i : F_j^T and of tr F_i tr F_j,
// F_i being mode i's displacement gradient. Every pair among the lowest modes (the frequencies the eye sees), the
// diagonal of the higher ones (so no direction goes soft), and the volume. Each row is scaled by the modes'
// eigenvalues, so every mode's energy counts relative to itself.

import { LowestEigenpairs, symmetricEigenSorted } from "../linalg/symmetric-eigen";
import { backSubstitute, forwardSubstitute } from "../linalg/triangular-solves";
import { basisRows, jacobianBlockInto, jacobianBlocks } from "../sim";
import { blockTimesSmall, columnGram, nodeMajorGram, transposed } from "../linalg/dense-blocks";
import { CubatureKernels } from "./kernels/cubature-kernels";

export interface CubaturePool {
  /** Handles, the constant channel included (K + 1). */
  handles: number;
  /** Pool points (3 P), volume-uniform inside the solid. */
  positions: Float64Array;
  /** Normalised weights (P x handles) and their gradients (P x handles x 3) at the pool points. */
  weights: Float64Array;
  gradients: Float64Array;
  /** Volume each pool point stands for. */
  volumeEach: number;
  /** The mass samples' positions (3 N), weights (N x handles) and volumes: the modes are vibration modes. */
  mass: { positions: Float64Array; weights: Float64Array; volumes: Float64Array };
}

export interface FittedCubature {
  /** Chosen pool points. */
  indices: Int32Array;
  volumes: Float64Array;
  /** Weighted residual of the fit relative to its target (0 is exact). */
  residual: number;
}

/** Modes whose every pair is matched. */
const PAIRED_MODES = 16;
/**
 * Modes whose own energy is matched (the lowest first). 64 of the ~200 (96 before): over 14 held-out meshes the
 * same ratios to FEM within the fit's seed-to-seed spread, a third fewer strains and rows to form.
 */
const DIAGONAL_MODES = 64;
/**
 * Weight of the volume's row against a paired row: nearly a constraint. At 1 the fit traded the volume for the
 * modes' rows on a box (its cubature weighed 1.2-3.6x the box, and a uniform squash's energy with it).
 */
const VOLUME_WEIGHT = 100;
/** Weight of a higher mode's diagonal row against a paired row. */
const DIAGONAL_WEIGHT = 0.5;
/** lambda / mu of the reference material the modes come from (Poisson's ratio 0.35). */
const REFERENCE_LAMBDA_PER_MU = 0.7 / 0.3;
/** Each scan looks at every SCAN_STRIDE-th point of the pool, a different share each time (the pool is dense). */
const SCAN_STRIDE = 4;
/** Points that join the fit per scan of the pool. */
const BATCH = 4;
/** A point that leaves the fit this many times stays out (no cycling), and the fit stops after this many scans a point. */
const MAX_DEPARTURES = 3;
const MAX_SCANS_PER_POINT = 4;
/** Pool points the modes are computed from. */
const MODE_POINTS = 512;
/** A mode below this share of the stiffest is rigid (or moves a part the fields leave loose): it is not matched. */
const RIGID = 1e-6;

export function fitCubature(pool: CubaturePool, count: number): FittedCubature {
  const m = 4 * pool.handles, p = pool.positions.length / 3;
  const modes = vibrationModes(pool, m);
  const rows = fitRowPairs(modes.count);
  const used = Math.min(modes.count, DIAGONAL_MODES), width = 4 * Math.ceil(used / 4);
  // The matrix's columns padded with zeros to a multiple of four (the kernels' lanes): the dot products are the same.
  const columnLength = 4 * Math.ceil(rows.count / 4);
  const kernels = CubatureKernels.create({ points: p, m, modes: width, columnLength });
  let strains: Float32Array;
  if (kernels) {
    // Every point's Jacobian block straight into the kernels' single-precision copy: no double-precision array of
    // them all (13 MB for 8,192 points of 17 handles) to fill and convert.
    for (let c = 0; c < p; c++) jacobianBlockInto(pool, pool.handles, c, kernels.jacobians, 3 * m * c);
    kernels.modeStrains(modes.vectors, used);
    strains = kernels.strains;
  } else strains = modeStrains(modes.vectors, used, width, jacobianBlocks(pool, pool.handles), m, p);
  const { matrix, target } = fitRows(kernels, strains, width, rows, modes.values, columnLength, p, pool.volumeEach);
  return nonNegativeLeastSquares(matrix, target, columnLength, p, count, kernels);
}


/**
 * The reference material's free vibration modes in the subspace (rigid ones dropped), M-orthonormal: the lowest
 * DIAGONAL_MODES as q-vectors (component-major: a m + i), all with their squared angular frequencies (per unit
 * density).
 */
function vibrationModes(pool: CubaturePool, m: number): { vectors: Float64Array; values: Float64Array; count: number } {
  // Test directions need not be exact modes: a subset of the pool gives them at a fraction of the cost.
  const p = pool.positions.length / 3, stride = Math.max(1, Math.floor(p / MODE_POINTS)), v = pool.volumeEach * stride, n = 3 * m;
  // Mass block and its whitening W = U diag(d)^-1/2 over its range.
  const rows = basisRows(pool.mass, pool.handles), samples = pool.mass.volumes.length;
  const massBlock = nodeMajorGram(rows, m, rows, m, samples, new Float64Array(m * m), true, pool.mass.volumes);
  const massValues = new Float64Array(m), massVectors = new Float64Array(m * m);
  symmetricEigenSorted(massBlock, m, massValues, massVectors);
  const largest = massValues[m - 1], kept: number[] = [];
  for (let k = 0; k < m; k++) if (massValues[k] > 1e-10 * largest) kept.push(k);
  const r = kept.length, whiten = new Float64Array(m * r);
  kept.forEach((k, c) => {
    for (let i = 0; i < m; i++) whiten[i * r + c] = massVectors[i * m + k] / Math.sqrt(massValues[k]);
  });
  // T_ab = sum_p v D_p[:, a] D_p[:, b]^T, projected: W^T T_ab W (r x r) for all nine (a, b). All nine come from one
  // symmetric Gram matrix G = sum_p v d_p d_p^T of the flattened Jacobians (d_p[3 i + a] = D_p[i, a]), one pass.
  const gram = jacobianGram(pool, p, m, stride, v);
  // T_ba = T_ab^T, so only a <= b are projected and the others transposed.
  const projected: Float64Array[] = new Array(9);
  const t = new Float64Array(m * m), whitenColumns = transposed(whiten, m, r), n3 = 3 * m;
  for (let a = 0; a < 3; a++) for (let b = a; b < 3; b++) {
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) t[i * m + j] = gram[(3 * i + a) * n3 + 3 * j + b];
    const ab = congruence(whiten, t, m, r, whitenColumns);
    projected[a * 3 + b] = ab;
    if (a === b) continue;
    const ba = new Float64Array(r * r);
    for (let k = 0; k < r; k++) for (let l = 0; l < r; l++) ba[l * r + k] = ab[k * r + l];
    projected[b * 3 + a] = ba;
  }
  // Whitened stiffness (3r x 3r): block (a, b) = delta_ab sum_c T_cc + T_ba + (lambda / mu) T_ab.
  const d = 3 * r, stiffness = new Float64Array(d * d);
  for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) {
    for (let k = 0; k < r; k++) for (let l = 0; l < r; l++) {
      let value = projected[b * 3 + a][k * r + l] + REFERENCE_LAMBDA_PER_MU * projected[a * 3 + b][k * r + l];
      if (a === b) value += projected[0][k * r + l] + projected[4][k * r + l] + projected[8][k * r + l];
      stiffness[(a * r + k) * d + b * r + l] = value;
    }
  }
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) stiffness[i * d + j] = stiffness[j * d + i] = 0.5 * (stiffness[i * d + j] + stiffness[j * d + i]);
  const pairs = new LowestEigenpairs(stiffness, d), values = pairs.values;
  let first = 0;
  while (first < d && values[first] < RIGID * values[d - 1]) first++;
  // Only the modes the fit uses get their vectors, and q-vectors.
  const count = d - first, used = Math.min(count, DIAGONAL_MODES), out = new Float64Array(used * n), column = new Float64Array(d);
  const keep = first + used, vectors = pairs.vectors(keep);
  for (let e = 0; e < used; e++) {
    for (let row = 0; row < d; row++) column[row] = vectors[row * keep + first + e];
    for (let a = 0; a < 3; a++) for (let i = 0; i < m; i++) {
      let sum = 0;
      for (let k = 0; k < r; k++) sum += whiten[i * r + k] * column[a * r + k];
      out[e * n + a * m + i] = sum;
    }
  }
  return { vectors: out, values: values.slice(first), count };
}

/** W^T T W for W (m x r) and T (m x m): T W by tiles, then its columns against W's. */
function congruence(w: Float64Array, t: Float64Array, m: number, r: number, wColumns: Float64Array): Float64Array {
  const tw = blockTimesSmall(t, m, w, r);
  return columnGram(wColumns, r, transposed(tw, m, r), r, m, new Float64Array(r * r));
}

/**
 * sum over every stride-th pool point of v d d^T (3m x 3m, both triangles), d the point's flattened Jacobian block.
 * The kept points' Jacobians, a row a point, and their Gram matrix by tiles.
 */
function jacobianGram(pool: CubaturePool, p: number, m: number, stride: number, v: number): Float64Array {
  const n = 3 * m, points = Math.ceil(p / stride), kept = new Float64Array(n * points);
  for (let c = 0, at = 0; c < p; c += stride, at++) jacobianBlockInto(pool, pool.handles, c, kept, at * n);
  const gram = nodeMajorGram(kept, n, kept, n, points, new Float64Array(n * n), true);
  for (let i = 0; i < n * n; i++) gram[i] *= v;
  return gram;
}

/**
 * Each used mode's strain at each pool point: point-major, then the six components of the symmetric part of its
 * displacement gradient F, [F_xx, F_yy, F_zz, sqrt 2 e_xy, sqrt 2 e_xz, sqrt 2 e_yz] (e = (F + F^T) / 2, so that a
 * dot product of two is e_i : e_j), then `width` modes (zeros past the used ones). Where WebAssembly SIMD is
 * missing (the kernels compute them in cubature.wat): the modes (count x 3m, row e holding a m + i) are a (3 count) x m
 * matrix U whose row 3 e + a is mode e's axis a, and a point's gradients are U times its Jacobian block (m x 3).
 */
function modeStrains(modes: Float64Array, used: number, width: number, jacobians: Float64Array, m: number, p: number): Float32Array {
  const out = new Float32Array(p * 6 * width), f = new Float64Array(9);
  for (let c = 0; c < p; c++) {
    const base = c * m * 3, o = c * 6 * width;
    for (let e = 0; e < used; e++) {
      for (let a = 0; a < 3; a++) {
        const u = e * 3 * m + a * m;
        let s0 = 0, s1 = 0, s2 = 0;
        for (let i = 0, j = base; i < m; i++, j += 3) {
          const x = modes[u + i];
          s0 += x * jacobians[j]; s1 += x * jacobians[j + 1]; s2 += x * jacobians[j + 2];
        }
        f[3 * a] = s0; f[3 * a + 1] = s1; f[3 * a + 2] = s2;
      }
      out[o + e] = f[0];
      out[o + width + e] = f[4];
      out[o + 2 * width + e] = f[8];
      out[o + 3 * width + e] = Math.SQRT1_2 * (f[1] + f[3]);
      out[o + 4 * width + e] = Math.SQRT1_2 * (f[2] + f[6]);
      out[o + 5 * width + e] = Math.SQRT1_2 * (f[5] + f[7]);
    }
  }
  return out;
}

/**
 * The mode pairs the fit matches (every pair among the lowest modes, then the higher ones' diagonal, each with its
 * weight), as flat arrays, and the fit's row count: a shear and a volume row a pair, then the volume.
 */
function fitRowPairs(modeCount: number): { first: Int32Array; second: Int32Array; weight: Float64Array; count: number } {
  const used = Math.min(modeCount, DIAGONAL_MODES), paired = Math.min(used, PAIRED_MODES);
  const pairs: [number, number, number][] = [];
  for (let i = 0; i < paired; i++) for (let j = i; j < paired; j++) pairs.push([i, j, 1]);
  for (let i = paired; i < used; i++) pairs.push([i, i, DIAGONAL_WEIGHT]);
  return {
    first: Int32Array.from(pairs, ([i]) => i), second: Int32Array.from(pairs, ([, j]) => j), weight: Float64Array.from(pairs, ([, , w]) => w),
    count: 2 * pairs.length + 1,
  };
}

/** The fit's matrix (a column of `columnLength` a point, zero past the rows) and target (the whole pool's integrals). */
function fitRows(
  kernels: CubatureKernels | null, strains: Float32Array, width: number, pairs: ReturnType<typeof fitRowPairs>, values: Float64Array,
  columnLength: number, p: number, volumeEach: number,
): { matrix: Float32Array; target: Float64Array } {
  const { first, second, count: rows } = pairs;
  const used = Math.min(values.length, DIAGONAL_MODES), paired = Math.min(used, PAIRED_MODES);
  // The rows are formed once for every pool point and matched pair (over a million times), on the SIMD kernels where
  // they run. With strains e (modeStrains), F_i : (F_j + F_j^T) = 2 e_i : e_j and tr F = e_xx + e_yy + e_zz; each
  // row is scaled by its modes' eigenvalues (twice: 2 e_i : e_j).
  const scale = Float64Array.from(first, (i, r) => pairs.weight[r] / Math.sqrt(values[i] * values[second[r]]));
  const shearScale = scale.map((v) => 2 * v);
  const volumeScale = VOLUME_WEIGHT / (p * volumeEach);
  const target = kernels ? kernels.fitRows(used, paired, shearScale, scale, volumeScale, rows) : new Float64Array(columnLength);
  const matrix = kernels ? kernels.matrix : fitRowsInJs(strains, width, used, paired, shearScale, scale, volumeScale, rows, columnLength, p, target);
  // The whole pool's integrals of the rows (each point stands for volumeEach).
  for (let r = 0; r < rows - 1; r++) target[r] *= volumeEach;
  target[rows - 1] = p * volumeEach * volumeScale;
  return { matrix, target };
}

/** fitRows' matrix (returned) and its sums over the pool (added to `target`) where the kernels do not run (their reference in tests). */
export function fitRowsInJs(
  strains: Float32Array, width: number, used: number, paired: number, shearScale: Float64Array, scale: Float64Array, volumeScale: number,
  rows: number, columnLength: number, p: number, target: Float64Array,
): Float32Array {
  const matrix = new Float32Array(p * columnLength), trace = new Float64Array(used), s = new Float64Array(6 * used);
  for (let c = 0; c < p; c++) {
    const o = c * columnLength, g = c * 6 * width;
    // The point's strains, mode-major (six a mode), in double precision.
    for (let k = 0; k < 6; k++) for (let e = 0, at = g + k * width; e < used; e++) s[6 * e + k] = strains[at + e];
    for (let e = 0; e < used; e++) trace[e] = s[6 * e] + s[6 * e + 1] + s[6 * e + 2];
    // The pairs in fitRowPairs's order: i <= j among the paired modes, then the others' diagonal.
    for (let i = 0, r = 0; i < used; i++) {
      const fi = 6 * i, a0 = s[fi], a1 = s[fi + 1], a2 = s[fi + 2], a3 = s[fi + 3], a4 = s[fi + 4], a5 = s[fi + 5], ti = trace[i];
      for (let j = i, last = i < paired ? paired : i + 1; j < last; j++, r++) {
        const fj = 6 * j;
        const shear = a0 * s[fj] + a1 * s[fj + 1] + a2 * s[fj + 2] + a3 * s[fj + 3] + a4 * s[fj + 4] + a5 * s[fj + 5];
        const shearRow = shear * shearScale[r], volumeRow = ti * trace[j] * scale[r];
        matrix[o + 2 * r] = shearRow;
        matrix[o + 2 * r + 1] = volumeRow;
        target[2 * r] += shearRow;
        target[2 * r + 1] += volumeRow;
      }
    }
    matrix[o + rows - 1] = volumeScale;
  }
  return matrix;
}

/**
 * Lawson-Hanson active-set NNLS, min |A x - b| with x >= 0, stopped once `limit` variables are in use: each scan
 * frees the BATCH variables whose columns best reduce the residual (looking at a rotating SCAN_STRIDE-th of the
 * pool: neighbouring points have nearly equal columns), so the first `limit` are the most useful points.
 * A is point-major (column c at c * rows); `kernels`, when given, hold it as their matrix and take the scans' dot
 * products. The passive set's normal equations are kept as a Cholesky factor grown one column at a time and
 * downdated when a point leaves; a column (nearly) dependent on the chosen ones is skipped, and a point that left
 * comes back at most twice.
 */
export function nonNegativeLeastSquares(a: Float32Array, b: Float64Array, rows: number, p: number, limit: number, kernels: CubatureKernels | null = null): FittedCubature {
  const chosen: number[] = [], x = new Float64Array(p), excluded = new Uint8Array(p), departures = new Uint8Array(p), fresh = new Uint8Array(p);
  const cap = Math.min(limit, p, rows);
  const factor = new Float64Array(cap * cap), forward = new Float64Array(cap);
  const residual = Float64Array.from(b), z = new Float64Array(cap), column = new Float64Array(cap);
  const cosines = new Float64Array(cap), sines = new Float64Array(cap);
  let bNorm = 0;
  for (let r = 0; r < rows; r++) bNorm += b[r] * b[r];
  bNorm = Math.sqrt(bNorm);
  const dotColumns = (i: number, j: number) => dotFloat32(a, i * rows, a, j * rows, rows);
  // Columns scaled to unit length (the unknowns become x_c |a_c|): a thin tail's points have columns thousands of
  // times longer than the body's, and unscaled normal equations lose them to rounding.
  let columnNorms: Float64Array;
  if (kernels) columnNorms = Float64Array.from(kernels.normalise());
  else {
    columnNorms = Float64Array.from({ length: p }, (_, c) => Math.sqrt(dotColumns(c, c)));
    for (let c = 0; c < p; c++) {
      const scale = columnNorms[c] > 0 ? 1 / columnNorms[c] : 0;
      for (let r = 0; r < rows; r++) a[c * rows + r] *= scale;
    }
  }
  const dotTarget = (i: number) => dotMixed(a, i * rows, b, rows);
  /** Appends point c to the factor; false when its column is (nearly) in the chosen ones' span. */
  const append = (c: number): boolean => {
    const s = chosen.length, dots = kernels?.columnDots(chosen, s, c);
    for (let i = 0; i < s; i++) column[i] = dots ? dots[i] : dotColumns(chosen[i], c);
    forwardSubstitute(factor, cap, column, s);
    const own = 1;
    let pivot = own;
    for (let k = 0; k < s; k++) pivot -= column[k] * column[k];
    if (!(pivot > 1e-10 * own)) return false;
    for (let k = 0; k < s; k++) factor[s * cap + k] = column[k];
    factor[s * cap + s] = Math.sqrt(pivot);
    // The forward substitution L y = A_P^T b grows by its new row only.
    let y = dotTarget(c);
    for (let k = 0; k < s; k++) y -= column[k] * forward[k];
    forward[s] = y / factor[s * cap + s];
    chosen.push(c);
    return true;
  };
  /** z = (A_P^T A_P)^-1 A_P^T b: the back substitution L^T z = y (the forward one is kept up to date). */
  const solvePassive = () => {
    const s = chosen.length;
    z.set(forward.subarray(0, s));
    backSubstitute(factor, cap, z, s);
  };
  /**
   * Removes the chosen point at `position`: its row leaves the factor, and Givens rotations G of neighbouring
   * columns take the rows below back to lower-triangular form (the product L L^T is unchanged by them); the
   * forward solution becomes G^T y, its last entry dropped.
   */
  const remove = (position: number) => {
    const s = chosen.length;
    for (let r = position; r + 1 < s; r++) factor.copyWithin(r * cap, (r + 1) * cap, (r + 1) * cap + r + 2);
    chosen.splice(position, 1);
    // Row by row (contiguous), each row taking rotations position .. its own index in turn: every entry sees the
    // same operations in the same order as rotation by rotation down the columns. Rotation j is made when row j is
    // reached, from that row's entries after the rotations before it, as it would be column by column.
    for (let k = position; k + 1 < s; k++) {
      const row = k * cap;
      let carry = factor[row + position];
      for (let j = position; j < k; j++) {
        const w = factor[row + j + 1], c = cosines[j], sn = sines[j];
        factor[row + j] = c * carry + sn * w;
        carry = c * w - sn * carry;
      }
      const w = factor[row + k + 1], r = Math.hypot(carry, w), c = (cosines[k] = carry / r), sn = (sines[k] = w / r);
      factor[row + k] = c * carry + sn * w;
      factor[row + k + 1] = c * w - sn * carry;
    }
    for (let j = position; j + 1 < s; j++) {
      const u = forward[j], w = forward[j + 1], c = cosines[j], sn = sines[j];
      forward[j] = c * u + sn * w;
      forward[j + 1] = c * w - sn * u;
    }
    factor.fill(0, (s - 1) * cap, (s - 1) * cap + s);
  };
  const best = new Int32Array(BATCH), bestGain = new Float64Array(BATCH);
  /** Fills best / bestGain with the BATCH free points best aligned with the residual, every `stride`-th from `offset`. */
  const scan = (offset: number, stride: number) => {
    best.fill(-1);
    bestGain.fill(1e-14 * bNorm);
    const gains = kernels?.dots(residual, offset, stride, Math.ceil((p - offset) / stride));
    for (let c = offset, k = 0; c < p; c += stride, k++) {
      if (excluded[c] || x[c] > 0) continue;
      const gain = gains ? gains[k] : dotMixed(a, c * rows, residual, rows);
      if (gain <= bestGain[BATCH - 1]) continue;
      let at = BATCH - 1;
      while (at > 0 && gain > bestGain[at - 1]) {
        bestGain[at] = bestGain[at - 1];
        best[at] = best[at - 1];
        at--;
      }
      bestGain[at] = gain;
      best[at] = c;
    }
  };
  for (let scans = 0; chosen.length < cap && scans < MAX_SCANS_PER_POINT * cap; scans++) {
    // The BATCH columns best aligned with the residual join the passive set together: a scan costs the whole
    // matrix, the solve only the passive set's factor. Only when a share has none left is the whole pool scanned.
    scan(scans % SCAN_STRIDE, SCAN_STRIDE);
    if (best[0] < 0) scan(0, 1);
    if (best[0] < 0) break;
    for (let i = 0; i < BATCH && best[i] >= 0 && chosen.length < cap; i++) {
      if (append(best[i])) fresh[best[i]] = 1;
      else excluded[best[i]] = 1;
    }

    for (;;) {
      solvePassive();
      let step = 1, blocking = -1;
      chosen.forEach((c, i) => {
        if (z[i] > 0) return;
        const ratio = x[c] / (x[c] - z[i]);
        if (ratio < step) {
          step = ratio;
          blocking = i;
        }
      });
      if (blocking < 0) {
        chosen.forEach((c, i) => (x[c] = z[i]));
        break;
      }
      // Move towards z until the first variable reaches zero (the blocking one exactly, others within rounding):
      // they leave the passive set, and the smaller problem is solved again.
      chosen.forEach((c, i) => (x[c] += step * (z[i] - x[c])));
      for (let i = chosen.length - 1; i >= 0; i--) {
        const c = chosen[i];
        // A point that just joined is still at zero without having reached it: it leaves only when blocking.
        if (i !== blocking && (x[c] > 1e-15 || fresh[c])) continue;
        // It may come back later (Lawson-Hanson), unless it keeps leaving: then it is set aside for good.
        x[c] = 0;
        if (++departures[c] >= MAX_DEPARTURES) excluded[c] = 1;
        remove(i);
      }
    }

    fresh.fill(0);
    if (kernels) kernels.residual(chosen, chosen.length, x, b, residual);
    else {
      residual.set(b);
      for (const c of chosen) for (let r = 0; r < rows; r++) residual[r] -= a[c * rows + r] * x[c];
    }
    let norm = 0;
    for (let r = 0; r < rows; r++) norm += residual[r] * residual[r];
    if (Math.sqrt(norm) <= 1e-9 * bNorm) break;
  }
  let norm = 0;
  for (let r = 0; r < rows; r++) norm += residual[r] * residual[r];
  const indices = Int32Array.from(chosen).sort();
  return { indices, volumes: Float64Array.from(indices, (c) => x[c] / columnNorms[c]), residual: Math.sqrt(norm) / bNorm };
}

/** sum_r a[ao + r] b[bo + r] over `count` entries of two single-precision columns, four running sums. */
function dotFloat32(a: Float32Array, ao: number, b: Float32Array, bo: number, count: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, r = 0;
  for (; r + 3 < count; r += 4) {
    s0 += a[ao + r] * b[bo + r];
    s1 += a[ao + r + 1] * b[bo + r + 1];
    s2 += a[ao + r + 2] * b[bo + r + 2];
    s3 += a[ao + r + 3] * b[bo + r + 3];
  }
  for (; r < count; r++) s0 += a[ao + r] * b[bo + r];
  return s0 + s1 + s2 + s3;
}

/** sum_r a[ao + r] v[r] over `count` entries (a single-precision column against a double vector), four running sums. */
function dotMixed(a: Float32Array, ao: number, v: Float64Array, count: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, r = 0;
  for (; r + 3 < count; r += 4) {
    s0 += a[ao + r] * v[r];
    s1 += a[ao + r + 1] * v[r + 1];
    s2 += a[ao + r + 2] * v[r + 2];
    s3 += a[ao + r + 3] * v[r + 3];
  }
  for (; r < count; r++) s0 += a[ao + r] * v[r];
  return s0 + s1 + s2 + s3;
}
