// What a rigged body's mass samples are to its rig, integrated once: each joint's moments
//   P_k = sum_i V_i w_k(x_i) [x_i; 1] b(x_i)^T   (4 x m, per unit density)
// with w_k the skin weight of joint k and b the subspace's basis row. Because linear blend skinning is linear in the
// joint matrices, every mass integral over the rig's motion is a small product with these: the generalised force of
// the rig's acceleration (sum_k A_k P_k, A_k a joint's acceleration matrix) and the complementarity constraint
// J^T M B (complementary-projection.ts), with no per-sample work in a step.

import type { BakedBody } from "../skinning/baked-body";
import { handleCount } from "../skinning/baked-body";

/** Each point's (normalised units) four skin joints and weights: those of its nearest render vertex. */
export function skinWeightsAt(body: BakedBody, points: ArrayLike<number>): { joints: Uint16Array; weights: Float32Array } {
  const count = points.length / 3, render = body.renderPositions.length / 3, r = body.renderPositions;
  const joints = new Uint16Array(4 * count), weights = new Float32Array(4 * count);
  for (let i = 0; i < count; i++) {
    const x = points[3 * i], y = points[3 * i + 1], z = points[3 * i + 2];
    let best = 0, bestDistance = Infinity;
    for (let v = 0; v < render; v++) {
      const d = (r[3 * v] - x) ** 2 + (r[3 * v + 1] - y) ** 2 + (r[3 * v + 2] - z) ** 2;
      if (d < bestDistance) { bestDistance = d; best = v; }
    }
    for (let k = 0; k < 4; k++) {
      joints[4 * i + k] = body.renderSkinJoints[4 * best + k];
      weights[4 * i + k] = body.renderSkinWeights[4 * best + k];
    }
  }
  return { joints, weights };
}

export class RigMoments {
  readonly joints: number;
  /** Unknowns per component (4 handles). */
  readonly m: number;
  /** Per joint, P_k: 4 rows of m (rows x, y, z, 1), per unit density, body metres. */
  readonly moments: Float64Array;

  /** From a server bake (its mass samples) of a rigged mesh at `size` metres (the subspace's scale). */
  constructor(body: BakedBody, size: number) {
    if (body.massVolumes.length === 0) throw new Error("RigMoments needs a server bake (its mass samples)");
    const joints = (this.joints = body.rigJointNodes.length);
    if (joints === 0) throw new Error("RigMoments needs a rigged bake");
    const h = handleCount(body), m = (this.m = 4 * h), s = size / 2, s3 = s * s * s;
    const samples = body.massVolumes.length;
    const skin = skinWeightsAt(body, body.massPositions);
    const moments = (this.moments = new Float64Array(joints * 4 * m));
    const b = new Float64Array(m);
    for (let i = 0; i < samples; i++) {
      const x = s * body.massPositions[3 * i], y = s * body.massPositions[3 * i + 1], z = s * body.massPositions[3 * i + 2], volume = s3 * body.massVolumes[i];
      for (let hh = 0; hh < h; hh++) {
        const w = body.massWeights[i * h + hh];
        b[4 * hh] = w * x; b[4 * hh + 1] = w * y; b[4 * hh + 2] = w * z; b[4 * hh + 3] = w;
      }
      for (let k = 0; k < 4; k++) {
        const weight = skin.weights[4 * i + k];
        if (weight === 0) continue;
        const o = skin.joints[4 * i + k] * 4 * m, vw = volume * weight;
        const px = vw * x, py = vw * y, pz = vw * z;
        for (let r = 0; r < m; r++) {
          const br = b[r];
          moments[o + r] += px * br;
          moments[o + m + r] += py * br;
          moments[o + 2 * m + r] += pz * br;
          moments[o + 3 * m + r] += vw * br;
        }
      }
    }
  }
}
