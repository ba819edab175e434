// The complementarity constraint of complementary dynamics, in a body's subspace, and the mass-orthogonal projection
// onto it: a soft displacement u = B q may not do anything the rig can, J^T M B q = 0 (J: rig-basis.ts, the root's
// translation and small turns of each joint's subtree about the joint). Row by row the constraint is
//   translation a:        e_a mu                   (mu = sum_k P_k[1], the mass moment)
//   turn a about joint j: e_a x D_j,  D_j = sum_{k below j} M_k P_k - c_j (sum_{k below j} P_k[1])
// with P_k the joints' moments (rig-moments.ts), M_k the skinning matrices and c_j the joint's position, so a pose
// costs a few 3 x m products per joint. The projection q <- q - M^-1 C^T (C M^-1 C^T)^+ C q takes out exactly what
// the constraint forbids and is the smallest change in kinetic metric; the rows' Gram matrix comes from 3 x 3 blocks
// of dot products per pair of joints ((a x d).(b x e) = (a.b)(d.e) - (a.e)(d.b)) and is factored with pivoting,
// dropping the rows that repeat others (joints at one place with one subtree).

import { symmetricEigen } from "../sim/linalg";
import type { Subspace } from "../sim/subspace";
import type { RigMoments } from "./rig-moments";

/** Pivots under this share of the largest diagonal count as dependent rows. */
const RANK_TOLERANCE = 1e-14;
/** Mass eigenvalues under this share of the largest move nothing (as the subspace's null directions). */
const NULL_MASS = 1e-13;

export class ComplementaryProjection {
  /** Constraint rows: 3 for the root's translation, 3 per joint. */
  readonly rows: number;
  /** Independent rows at the last update (the rig's directions in the subspace). */
  rank = 0;
  private readonly joints: number;
  private readonly m: number;
  /** Per joint, its moments P_k and P_k A^-1 (A the mass block). */
  private readonly p: Float64Array;
  private readonly pInverse: Float64Array;
  /** Per joint, the sums over its subtree of the moments' last rows (of P and P A^-1). */
  private readonly subtreeWeight: Float64Array;
  private readonly subtreeWeightInverse: Float64Array;
  private readonly mu: Float64Array;
  private readonly muInverse: Float64Array;
  /** Joints with their children first, and each joint's parent joint (-1 at the top). */
  private readonly order: Int32Array;
  private readonly parentJoint: Int32Array;
  /** Per joint at the pose: D_j and D_j A^-1 (3 x m each). */
  private readonly d: Float64Array;
  private readonly dInverse: Float64Array;
  private readonly gram: Float64Array;
  private readonly pivot: Int32Array;
  private readonly residual: Float64Array;
  private readonly solution: Float64Array;
  private readonly blockDots = new Float64Array(9);

  constructor(subspace: Subspace, moments: RigMoments, jointNodes: ArrayLike<number>, nodeParents: ArrayLike<number>) {
    const joints = (this.joints = moments.joints), m = (this.m = moments.m);
    if (m !== subspace.m) throw new Error(`moments have ${m} unknowns a component, the subspace ${subspace.m}`);
    this.rows = 3 + 3 * joints;
    const inverse = pseudoInverse(subspace.massBlock, m);
    this.p = moments.moments;
    this.pInverse = new Float64Array(joints * 4 * m);
    for (let row = 0; row < 4 * joints; row++) multiplyRow(this.p, row * m, inverse, m, this.pInverse, row * m);

    // Joint k's parent joint: the nearest node above it that is a joint.
    const jointOfNode = new Map<number, number>();
    for (let k = 0; k < joints; k++) jointOfNode.set(jointNodes[k], k);
    this.parentJoint = new Int32Array(joints).fill(-1);
    for (let k = 0; k < joints; k++) {
      for (let node = nodeParents[jointNodes[k]]; node >= 0; node = nodeParents[node]) {
        if (jointOfNode.has(node)) { this.parentJoint[k] = jointOfNode.get(node)!; break; }
      }
    }
    this.order = Int32Array.from([...Array(joints).keys()].sort((a, b) => jointNodes[b] - jointNodes[a]));
    this.subtreeWeight = new Float64Array(joints * m);
    this.subtreeWeightInverse = new Float64Array(joints * m);
    for (let k = 0; k < joints; k++) {
      this.subtreeWeight.set(this.p.subarray((4 * k + 3) * m, (4 * k + 4) * m), k * m);
      this.subtreeWeightInverse.set(this.pInverse.subarray((4 * k + 3) * m, (4 * k + 4) * m), k * m);
    }
    this.sumSubtrees(this.subtreeWeight, 1);
    this.sumSubtrees(this.subtreeWeightInverse, 1);
    this.mu = new Float64Array(m);
    this.muInverse = new Float64Array(m);
    for (let k = 0; k < joints; k++) {
      if (this.parentJoint[k] >= 0) continue;
      for (let r = 0; r < m; r++) { this.mu[r] += this.subtreeWeight[k * m + r]; this.muInverse[r] += this.subtreeWeightInverse[k * m + r]; }
    }
    this.d = new Float64Array(joints * 3 * m);
    this.dInverse = new Float64Array(joints * 3 * m);
    this.gram = new Float64Array(this.rows * this.rows);
    this.pivot = new Int32Array(this.rows);
    this.residual = new Float64Array(this.rows);
    this.solution = new Float64Array(this.rows);
  }

  /**
   * The constraint at a pose: the joints' skinning matrices (16 each, column-major) and positions (3 each), in the
   * subspace's frame and units. Builds and factors the rows' Gram matrix.
   */
  update(jointMatrices: ArrayLike<number>, jointPositions: ArrayLike<number>): void {
    this.buildD(this.p, this.subtreeWeight, this.d, jointMatrices, jointPositions);
    this.buildD(this.pInverse, this.subtreeWeightInverse, this.dInverse, jointMatrices, jointPositions);
    this.buildGram();
    this.factor();
  }

  /** Removes from `v` (3m: q or a velocity) its part along the rig's directions, in the mass metric. */
  project(v: Float64Array): void {
    if (this.rank === 0) return;
    const m = this.m, r = this.residual, z = this.solution, rank = this.rank, n = this.rows, l = this.gram;
    this.constraintTimes(v, r);
    // Solve G_SS z_S = r_S with G's pivoted factor (L below the diagonal of `gram`, in pivot order).
    for (let i = 0; i < rank; i++) {
      let s = r[this.pivot[i]];
      for (let k = 0; k < i; k++) s -= l[i * n + k] * z[k];
      z[i] = s / l[i * n + i];
    }
    for (let i = rank - 1; i >= 0; i--) {
      let s = z[i];
      for (let k = i + 1; k < rank; k++) s -= l[k * n + i] * z[k];
      z[i] = s / l[i * n + i];
    }
    r.fill(0);
    for (let i = 0; i < rank; i++) r[this.pivot[i]] = z[i];
    // v -= (C A^-1)^T z: the translations' mu A^-1, and per joint w x D~ with w its three turns' multipliers.
    for (let a = 0; a < 3; a++) {
      const za = r[a];
      if (za !== 0) for (let k = 0; k < m; k++) v[a * m + k] -= za * this.muInverse[k];
    }
    const di = this.dInverse;
    for (let j = 0; j < this.joints; j++) {
      const wx = r[3 + 3 * j], wy = r[4 + 3 * j], wz = r[5 + 3 * j], o = 3 * j * m;
      if (wx === 0 && wy === 0 && wz === 0) continue;
      for (let k = 0; k < m; k++) {
        const dx = di[o + k], dy = di[o + m + k], dz = di[o + 2 * m + k];
        v[k] -= wy * dz - wz * dy;
        v[m + k] -= wz * dx - wx * dz;
        v[2 * m + k] -= wx * dy - wy * dx;
      }
    }
  }

  /** C v into `out` (rows): per unit density, J^T M B v. */
  constraintTimes(v: Float64Array, out: Float64Array): void {
    const m = this.m, d = this.d, f = this.blockDots;
    for (let a = 0; a < 3; a++) {
      let s = 0;
      for (let k = 0; k < m; k++) s += this.mu[k] * v[a * m + k];
      out[a] = s;
    }
    for (let j = 0; j < this.joints; j++) {
      blockDots(d, 3 * j * m, v, 0, m, f);
      // (e_a x D) . v = e_a . (D x v), with (D x v)_x = D_y.v_z - D_z.v_y and so on.
      out[3 + 3 * j] = f[5] - f[7];
      out[4 + 3 * j] = f[6] - f[2];
      out[5 + 3 * j] = f[1] - f[3];
    }
  }

  private buildD(p: Float64Array, subtreeWeight: Float64Array, d: Float64Array, matrices: ArrayLike<number>, positions: ArrayLike<number>): void {
    const m = this.m;
    // Each joint's own M_k P_k (3 x m), then the sums over subtrees, then - c_j (x) the subtree's weight row.
    for (let k = 0; k < this.joints; k++) {
      const mo = 16 * k, po = 4 * k * m, o = 3 * k * m;
      for (let l = 0; l < 3; l++) {
        const a0 = matrices[mo + l], a1 = matrices[mo + 4 + l], a2 = matrices[mo + 8 + l], a3 = matrices[mo + 12 + l];
        for (let r = 0; r < m; r++) d[o + l * m + r] = a0 * p[po + r] + a1 * p[po + m + r] + a2 * p[po + 2 * m + r] + a3 * p[po + 3 * m + r];
      }
    }
    this.sumSubtrees(d, 3);
    for (let j = 0; j < this.joints; j++) {
      const o = 3 * j * m, w = j * m;
      for (let l = 0; l < 3; l++) {
        const c = positions[3 * j + l];
        for (let r = 0; r < m; r++) d[o + l * m + r] -= c * subtreeWeight[w + r];
      }
    }
  }

  /** Adds each joint's rows (`width` rows of m) into its parent joint's, children first: sums over subtrees. */
  private sumSubtrees(values: Float64Array, width: number): void {
    const size = width * this.m;
    for (let i = 0; i < this.joints; i++) {
      const k = this.order[i], parent = this.parentJoint[k];
      if (parent < 0) continue;
      for (let r = 0; r < size; r++) values[parent * size + r] += values[k * size + r];
    }
  }

  private buildGram(): void {
    const m = this.m, n = this.rows, g = this.gram, d = this.d, di = this.dInverse, e = this.blockDots;
    g.fill(0);
    let muMu = 0;
    for (let k = 0; k < m; k++) muMu += this.mu[k] * this.muInverse[k];
    for (let a = 0; a < 3; a++) g[a * n + a] = muMu;
    for (let j = 0; j < this.joints; j++) {
      // Translation a with turn b about j: mu . (e_b x D~_j)_a.
      let sx = 0, sy = 0, sz = 0;
      const o = 3 * j * m;
      for (let k = 0; k < m; k++) { sx += this.mu[k] * di[o + k]; sy += this.mu[k] * di[o + m + k]; sz += this.mu[k] * di[o + 2 * m + k]; }
      const row = 3 + 3 * j;
      // e_x x D = (0, -D_z, D_y); e_y x D = (D_z, 0, -D_x); e_z x D = (-D_y, D_x, 0).
      setSymmetric(g, n, 0, row + 1, sz); setSymmetric(g, n, 0, row + 2, -sy);
      setSymmetric(g, n, 1, row, -sz); setSymmetric(g, n, 1, row + 2, sx);
      setSymmetric(g, n, 2, row, sy); setSymmetric(g, n, 2, row + 1, -sx);
      for (let k = j; k < this.joints; k++) {
        blockDots(d, o, di, 3 * k * m, m, e);
        const trace = e[0] + e[4] + e[8], col = 3 + 3 * k;
        for (let a = 0; a < 3; a++) {
          for (let b = 0; b < 3; b++) setSymmetric(g, n, row + a, col + b, (a === b ? trace : 0) - e[3 * b + a]);
        }
      }
    }
  }

  /** Cholesky with symmetric pivoting of the Gram matrix in place (L below the diagonal), to its numerical rank. */
  private factor(): void {
    const n = this.rows, g = this.gram, pivot = this.pivot;
    for (let i = 0; i < n; i++) pivot[i] = i;
    let largest = 0;
    for (let i = 0; i < n; i++) largest = Math.max(largest, g[i * n + i]);
    let rank = 0;
    for (let k = 0; k < n; k++) {
      let best = k;
      for (let i = k + 1; i < n; i++) if (g[i * n + i] > g[best * n + best]) best = i;
      if (!(g[best * n + best] > RANK_TOLERANCE * largest)) break;
      if (best !== k) swapSymmetric(g, n, k, best, pivot);
      const diagonal = Math.sqrt(g[k * n + k]);
      g[k * n + k] = diagonal;
      for (let i = k + 1; i < n; i++) g[i * n + k] /= diagonal;
      // The whole trailing block stays symmetric, so later pivots' swaps move true values.
      for (let j = k + 1; j < n; j++) {
        const ljk = g[j * n + k];
        if (ljk === 0) continue;
        for (let i = k + 1; i < n; i++) g[i * n + j] -= g[i * n + k] * ljk;
      }
      rank++;
    }
    this.rank = rank;
  }
}

/** e[3 l + l'] = a's block l . b's block l' (three blocks of m from offsets ao and bo), in one pass. */
function blockDots(a: Float64Array, ao: number, b: Float64Array, bo: number, m: number, e: Float64Array): void {
  let e0 = 0, e1 = 0, e2 = 0, e3 = 0, e4 = 0, e5 = 0, e6 = 0, e7 = 0, e8 = 0;
  for (let r = 0; r < m; r++) {
    const a0 = a[ao + r], a1 = a[ao + m + r], a2 = a[ao + 2 * m + r];
    const b0 = b[bo + r], b1 = b[bo + m + r], b2 = b[bo + 2 * m + r];
    e0 += a0 * b0; e1 += a0 * b1; e2 += a0 * b2;
    e3 += a1 * b0; e4 += a1 * b1; e5 += a1 * b2;
    e6 += a2 * b0; e7 += a2 * b1; e8 += a2 * b2;
  }
  e[0] = e0; e[1] = e1; e[2] = e2; e[3] = e3; e[4] = e4; e[5] = e5; e[6] = e6; e[7] = e7; e[8] = e8;
}

/** The lower triangle is what the factor reads: write both, it is cheap. */
function setSymmetric(g: Float64Array, n: number, i: number, j: number, value: number): void {
  g[i * n + j] = value;
  g[j * n + i] = value;
}

/** Swaps rows and columns k and p (both at or past the factor's column k): L's rows and the trailing block. */
function swapSymmetric(g: Float64Array, n: number, k: number, p: number, pivot: Int32Array): void {
  for (let c = 0; c < n; c++) { const t = g[k * n + c]; g[k * n + c] = g[p * n + c]; g[p * n + c] = t; }
  for (let r = 0; r < n; r++) { const t = g[r * n + k]; g[r * n + k] = g[r * n + p]; g[r * n + p] = t; }
  const t = pivot[k]; pivot[k] = pivot[p]; pivot[p] = t;
}

/** out[o..o+m] = row a[ao..ao+m] times the symmetric m x m matrix b. */
function multiplyRow(a: Float64Array, ao: number, b: Float64Array, m: number, out: Float64Array, o: number): void {
  for (let c = 0; c < m; c++) {
    let s = 0;
    for (let r = 0; r < m; r++) s += a[ao + r] * b[r * m + c];
    out[o + c] = s;
  }
}

/** The mass block's pseudo-inverse: directions that move nothing stay out of every correction. */
function pseudoInverse(block: Float64Array, m: number): Float64Array {
  const values = new Float64Array(m), vectors = new Float64Array(m * m);
  symmetricEigen(Float64Array.from(block), m, values, vectors);
  const largest = Math.max(...values), inverse = new Float64Array(m * m);
  for (let e = 0; e < m; e++) {
    if (!(values[e] > NULL_MASS * largest)) continue;
    for (let r = 0; r < m; r++) {
      const vr = vectors[r * m + e] / values[e];
      for (let c = 0; c < m; c++) inverse[r * m + c] += vr * vectors[c * m + e];
    }
  }
  return inverse;
}
