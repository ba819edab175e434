// The displacements a rig can make by itself at a pose: the basis J of complementary dynamics. Its columns are
// the root's translation along x, y and z, and per joint a small turn about each world axis at the joint's world
// position. A point moves with the part of it that its joints in the joint's subtree (the joint and every joint
// below it) carry: column (j, a) is e_a x sum over k in the subtree of w_k (M_k x - c_j), M_k joint k's skinning
// matrix. A soft displacement u is complementary to the rig when J^T M u = 0.

import type { RigPose } from "../skeleton/rig-pose";

export class RigBasis {
  /** Columns: 3 for the root's translation, then 3 per joint. */
  readonly columns: number;
  /** For each joint j and joint k: 1 when k's node is j's node or below it. */
  private readonly below: Uint8Array;
  private readonly moved = new Float64Array(12);

  constructor(readonly pose: RigPose) {
    const rig = pose.rig, joints = rig.jointNodes.length;
    this.columns = 3 + 3 * joints;
    this.below = new Uint8Array(joints * joints);
    for (let j = 0; j < joints; j++) {
      for (let k = 0; k < joints; k++) {
        for (let node = rig.jointNodes[k]; node >= 0; node = rig.parents[node]) {
          if (node === rig.jointNodes[j]) {
            this.below[j * joints + k] = 1;
            break;
          }
        }
      }
    }
  }

  /**
   * The basis at the bind-pose points `rest` (3 per point) with their skin weights (`joints`, `weights`: 4 per
   * point), into `out` (column-major: column c is out[3P c .. 3P (c + 1)]).
   */
  evaluate(rest: ArrayLike<number>, joints: ArrayLike<number>, weights: ArrayLike<number>, out: Float64Array): void {
    const p = rest.length / 3, n = 3 * p, jointCount = this.pose.rig.jointNodes.length, world = this.pose.world, nodes = this.pose.rig.jointNodes, m = this.pose.joints;
    const moved = this.moved;
    out.fill(0, 0, n * this.columns);
    for (let i = 0; i < p; i++) {
      for (let a = 0; a < 3; a++) out[a * n + 3 * i + a] = 1;
      const x = rest[3 * i], y = rest[3 * i + 1], z = rest[3 * i + 2];
      // Where each of the point's four joints alone would put it.
      for (let k = 0; k < 4; k++) {
        const o = 16 * joints[4 * i + k];
        moved[3 * k] = m[o] * x + m[o + 4] * y + m[o + 8] * z + m[o + 12];
        moved[3 * k + 1] = m[o + 1] * x + m[o + 5] * y + m[o + 9] * z + m[o + 13];
        moved[3 * k + 2] = m[o + 2] * x + m[o + 6] * y + m[o + 10] * z + m[o + 14];
      }
      for (let j = 0; j < jointCount; j++) {
        // The part of the point that turns with joint j: the weighted positions of its joints in j's subtree.
        let share = 0, sx = 0, sy = 0, sz = 0;
        for (let k = 0; k < 4; k++) {
          const w = weights[4 * i + k];
          if (w === 0 || !this.below[j * jointCount + joints[4 * i + k]]) continue;
          share += w;
          sx += w * moved[3 * k]; sy += w * moved[3 * k + 1]; sz += w * moved[3 * k + 2];
        }
        if (share === 0) continue;
        const c = 16 * nodes[j], dx = sx - share * world[c + 12], dy = sy - share * world[c + 13], dz = sz - share * world[c + 14];
        const o = (3 + 3 * j) * n + 3 * i;
        // e_x x d = (0, -dz, dy); e_y x d = (dz, 0, -dx); e_z x d = (-dy, dx, 0).
        out[o + 1] = -dz; out[o + 2] = dy;
        out[o + n] = dz; out[o + n + 2] = -dx;
        out[o + 2 * n] = -dy; out[o + 2 * n + 1] = dx;
      }
    }
  }
}
