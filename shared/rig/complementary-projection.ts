// The complementarity constraint of complementary dynamics, in a body's subspace, and the mass-orthogonal projection
// onto it: a soft displacement u = B q may not do anything the rig can, J^T M B q = 0 (J: rig-basis.ts, the root's
// translation and small turns of each joint's subtree about the joint). Row by row the constraint is
//   translation a:        e_a mu                   (mu = sum_k P_k[1], the mass moment)
//   turn a about joint j: e_a x D_j,  D_j = sum_{k below j} M_k P_k - c_j (sum_{k below j} P_k[1])
// with P_k the joints' moments (rig-moments.ts), M_k the skinning matrices and c_j the joint's position, so a pose
// costs a few 3 x m products per joint. The projection q <- q - M^-1 C^T (C M^-1 C^T)^+ C q takes out exactly what
// the constraint forbids and is the smallest change in kinetic metric; the rows' Gram matrix comes from 3 x 3 blocks
// of dot products per pair of joints ((a x d).(b x e) = (a.b)(d.e) - (a.e)(d.b)). Joints at the top of the tree
// whose whole mass is also below one child joint add nothing (their turns are the child's plus translations) and are
// left out; rows that still depend on earlier ones at some pose are dropped by the factor.

import { symmetricEigen } from "../sim/linalg";
import type { Subspace } from "../sim/subspace";
import type { RigMoments } from "./rig-moments";

/** Pivots under this share of the row's own diagonal count as dependent rows. */
const RANK_TOLERANCE = 1e-14;
/** Mass eigenvalues under this share of the largest move nothing (as the subspace's null directions). */
const NULL_MASS = 1e-13;

export class ComplementaryProjection {
  /** J's columns: 3 for the root's translation, 3 per joint. */
  readonly rows: number;
  /** Independent rows at the last update (the rig's directions in the subspace). */
  rank = 0;
  /** The joints whose turns are rows of the constraint (the others repeat them), and the rows in all. */
  private readonly kept: Int32Array;
  private readonly keptRows: number;
  /** Per factored row: 1 when it depended on earlier rows at the last update (left out). */
  private readonly dropped: Uint8Array;
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
  private readonly residual: Float64Array;
  private readonly solution: Float64Array;
  private readonly blockDots = new Float64Array(9);

  /** `subspace`: all it needs of one is its mass block (per component, per unit density) and its size. */
  constructor(subspace: Pick<Subspace, "massBlock" | "m">, moments: RigMoments, jointNodes: ArrayLike<number>, nodeParents: ArrayLike<number>) {
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
    this.kept = this.independentJoints();
    this.keptRows = 3 + 3 * this.kept.length;
    this.dropped = new Uint8Array(this.keptRows);
    this.d = new Float64Array(joints * 3 * m);
    this.dInverse = new Float64Array(joints * 3 * m);
    this.gram = new Float64Array(this.keptRows * this.keptRows);
    this.residual = new Float64Array(this.keptRows);
    this.solution = new Float64Array(this.keptRows);
  }

  /** Joints left out: all of the body's mass is below them and below their one child joint. */
  private independentJoints(): Int32Array {
    const m = this.m, whole = (j: number) => {
      let norm = 0, difference = 0;
      for (let r = 0; r < m; r++) {
        norm += this.mu[r] ** 2;
        difference += (this.subtreeWeight[j * m + r] - this.mu[r]) ** 2;
      }
      return difference <= 1e-24 * norm;
    };
    const kept: number[] = [];
    for (let j = 0; j < this.joints; j++) {
      const children = [...this.parentJoint.keys()].filter((k) => this.parentJoint[k] === j);
      if (whole(j) && children.some(whole)) continue;
      kept.push(j);
    }
    return Int32Array.from(kept);
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

  /** Removes from `v` (3m: q or a velocity) its part along the rig's directions, in the mass metric: P v. */
  project(v: Float64Array): void {
    this.apply(v, this.d, this.mu, this.dInverse, this.muInverse);
  }

  /**
   * P^T g for a gradient g: minimising f(P q) over q is minimising f on the constraint, and its gradient is
   * P^T f'(P q) = g - C^T G^-1 (C A^-1 g).
   */
  projectGradient(g: Float64Array): void {
    this.apply(g, this.dInverse, this.muInverse, this.d, this.mu);
  }

  /** v -= R^T G^-1 (L v), with L and R the rows built from (left, leftMu) and (right, rightMu). */
  private apply(v: Float64Array, left: Float64Array, leftMu: Float64Array, right: Float64Array, rightMu: Float64Array): void {
    if (this.rank === 0) return;
    const m = this.m, r = this.residual, z = this.solution, n = this.keptRows, l = this.gram, dropped = this.dropped;
    rowsTimes(left, leftMu, this.kept, m, v, r);
    // G z = r over the rows kept (L below the diagonal of `gram`; a dropped row's multiplier is 0).
    for (let i = 0; i < n; i++) {
      if (dropped[i]) { z[i] = 0; continue; }
      let s = r[i];
      for (let k = 0; k < i; k++) s -= l[i * n + k] * z[k];
      z[i] = s / l[i * n + i];
    }
    for (let i = n - 1; i >= 0; i--) {
      if (dropped[i]) continue;
      let s = z[i];
      for (let k = i + 1; k < n; k++) s -= l[k * n + i] * z[k];
      z[i] = s / l[i * n + i];
    }
    // The translations' rows are e_a mu; a joint's three turns' rows sum to w x D for multipliers w.
    for (let a = 0; a < 3; a++) {
      const za = z[a];
      if (za !== 0) for (let k = 0; k < m; k++) v[a * m + k] -= za * rightMu[k];
    }
    for (let i = 0; i < this.kept.length; i++) {
      const wx = z[3 + 3 * i], wy = z[4 + 3 * i], wz = z[5 + 3 * i], o = 3 * this.kept[i] * m;
      if (wx === 0 && wy === 0 && wz === 0) continue;
      for (let k = 0; k < m; k++) {
        const dx = right[o + k], dy = right[o + m + k], dz = right[o + 2 * m + k];
        v[k] -= wy * dz - wz * dy;
        v[m + k] -= wz * dx - wx * dz;
        v[2 * m + k] -= wx * dy - wy * dx;
      }
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
    const m = this.m, n = this.keptRows, g = this.gram, d = this.d, di = this.dInverse, e = this.blockDots, kept = this.kept;
    g.fill(0);
    let muMu = 0;
    for (let k = 0; k < m; k++) muMu += this.mu[k] * this.muInverse[k];
    for (let a = 0; a < 3; a++) g[a * n + a] = muMu;
    for (let i = 0; i < kept.length; i++) {
      // Translation a with turn b about the joint: mu . (e_b x D~)_a.
      let sx = 0, sy = 0, sz = 0;
      const o = 3 * kept[i] * m;
      for (let k = 0; k < m; k++) { sx += this.mu[k] * di[o + k]; sy += this.mu[k] * di[o + m + k]; sz += this.mu[k] * di[o + 2 * m + k]; }
      const row = 3 + 3 * i;
      // e_x x D = (0, -D_z, D_y); e_y x D = (D_z, 0, -D_x); e_z x D = (-D_y, D_x, 0).
      g[(row + 1) * n] = sz; g[(row + 2) * n] = -sy;
      g[row * n + 1] = -sz; g[(row + 2) * n + 1] = sx;
      g[row * n + 2] = sy; g[(row + 1) * n + 2] = -sx;
      for (let i2 = 0; i2 <= i; i2++) {
        blockDots(d, o, di, 3 * kept[i2] * m, m, e);
        const trace = e[0] + e[4] + e[8], col = 3 + 3 * i2;
        for (let a = 0; a < 3; a++) {
          for (let b = 0; b < 3; b++) if (i2 < i || b <= a) g[(row + a) * n + col + b] = (a === b ? trace : 0) - e[3 * b + a];
        }
      }
    }
  }

  /**
   * Cholesky of the Gram matrix in place (its lower triangle becomes L), leaving out rows whose pivot shows them
   * to depend on earlier rows at this pose.
   */
  private factor(): void {
    const n = this.keptRows, g = this.gram, dropped = this.dropped;
    let rank = 0;
    for (let j = 0; j < n; j++) {
      const original = g[j * n + j];
      let diagonal = original;
      for (let k = 0; k < j; k++) diagonal -= g[j * n + k] * g[j * n + k];
      if (!(diagonal > RANK_TOLERANCE * original)) {
        dropped[j] = 1;
        for (let i = j; i < n; i++) g[i * n + j] = 0;
        g[j * n + j] = 1;
        continue;
      }
      dropped[j] = 0;
      rank++;
      const root = Math.sqrt(diagonal), rj = j * n;
      g[rj + j] = root;
      // Four rows at a time: each row's sum in the order one row alone takes it, the four chains overlapped.
      let i = j + 1;
      for (; i + 3 < n; i += 4) {
        const r0 = i * n, r1 = r0 + n, r2 = r1 + n, r3 = r2 + n;
        let s0 = g[r0 + j], s1 = g[r1 + j], s2 = g[r2 + j], s3 = g[r3 + j];
        for (let k = 0; k < j; k++) {
          const gk = g[rj + k];
          s0 -= g[r0 + k] * gk; s1 -= g[r1 + k] * gk; s2 -= g[r2 + k] * gk; s3 -= g[r3 + k] * gk;
        }
        g[r0 + j] = s0 / root; g[r1 + j] = s1 / root; g[r2 + j] = s2 / root; g[r3 + j] = s3 / root;
      }
      for (; i < n; i++) {
        let s = g[i * n + j];
        for (let k = 0; k < j; k++) s -= g[i * n + k] * g[rj + k];
        g[i * n + j] = s / root;
      }
    }
    this.rank = rank;
  }
}

/** The rows built from the kept joints' blocks d (3 x m each) and mu, times v, into out. */
function rowsTimes(d: Float64Array, mu: Float64Array, kept: Int32Array, m: number, v: Float64Array, out: Float64Array): void {
  for (let a = 0; a < 3; a++) {
    let s = 0;
    for (let k = 0; k < m; k++) s += mu[k] * v[a * m + k];
    out[a] = s;
  }
  for (let i = 0; i < kept.length; i++) {
    // (e_a x D) . v = e_a . (D x v), with (D x v)_x = D_y.v_z - D_z.v_y and so on.
    const o = 3 * kept[i] * m;
    let x = 0, y = 0, z = 0;
    for (let r = 0; r < m; r++) {
      const dx = d[o + r], dy = d[o + m + r], dz = d[o + 2 * m + r], vx = v[r], vy = v[m + r], vz = v[2 * m + r];
      x += dy * vz - dz * vy;
      y += dz * vx - dx * vz;
      z += dx * vy - dy * vx;
    }
    out[3 + 3 * i] = x;
    out[4 + 3 * i] = y;
    out[5 + 3 * i] = z;
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
