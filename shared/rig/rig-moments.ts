// A rigged body's joints' mass moments at a size (shared/skinning/rig-mass-moments.ts integrates them once, in the
// bake's normalised units): P_k = sum_i V_i w_k(x_i) [x_i; 1] b(x_i)^T, 4 x m per joint, per unit density. Because
// linear blend skinning is linear in the joint matrices, every mass integral over the rig's motion is a small product
// with these: the generalised force of the rig's acceleration (sum_k A_k P_k, A_k a joint's acceleration matrix) and
// the complementarity constraint J^T M B (complementary-projection.ts), with no per-sample work in a step.

import { handleCount, type BakedBody } from "../skinning/baked-body";
import { rigMassMoments } from "../skinning/rig-mass-moments";

export class RigMoments {
  readonly joints: number;
  /** Unknowns per component (4 handles). */
  readonly m: number;
  /** Per joint, P_k: 4 rows of m (rows x, y, z, 1), per unit density, body metres. */
  readonly moments: Float64Array;

  /** From a server bake's mass samples, or a client copy's moments, of a rigged mesh at `size` metres (the subspace's scale). */
  constructor(body: BakedBody, size: number) {
    const joints = (this.joints = body.rigJointNodes.length);
    if (joints === 0) throw new Error("RigMoments needs a rigged bake");
    const m = (this.m = 4 * handleCount(body)), s = size / 2, s3 = s * s * s;
    const normalised = body.rigMoments.length > 0 ? body.rigMoments : rigMassMoments(body);
    if (normalised.length !== joints * 4 * m) throw new Error(`rigMoments: expected ${joints * 4 * m} numbers, got ${normalised.length}`);
    // Volumes scale by s^3, a position by s, and so do a basis row's position parts (w x, w y, w z; not w).
    const moments = (this.moments = new Float64Array(normalised.length));
    for (let k = 0; k < joints; k++) for (let row = 0; row < 4; row++) {
      const o = (4 * k + row) * m, rowScale = row < 3 ? s3 * s : s3;
      for (let r = 0; r < m; r++) moments[o + r] = normalised[o + r] * (r % 4 < 3 ? rowScale * s : rowScale);
    }
  }
}

/** Whether a bake can give its rig's mass moments (a server bake's samples, or a client copy's moments). */
export function hasRigMoments(body: BakedBody): boolean {
  return body.rigJointNodes.length > 0 && (body.massVolumes.length > 0 || body.rigMoments.length > 0);
}
