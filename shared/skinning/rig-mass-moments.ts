// What a rigged bake's mass samples are to its rig, integrated once in normalised units (the bake's size, 2): each
// joint's moments
//   P_k = sum_i V_i w_k(x_i) [x_i; 1] b(x_i)^T   (4 x m, per unit density)
// with w_k the skin weight of joint k and b the subspace's basis row. A client's copy of the bake carries them in
// place of the samples (baked-body.ts), so that a page can drive the flesh by the rig's inertia too (rig-moments.ts
// scales them to a size).

import { handleCount, type BakedBody } from "./baked-body";
import { skinWeightsAt } from "./point-skin";

/** P_k for every joint (4 rows of m each, rows x, y, z, 1), normalised units, from a server bake's mass samples. */
export function rigMassMoments(body: BakedBody): Float64Array {
  if (body.massVolumes.length === 0) throw new Error("a rig's mass moments need a server bake (its mass samples)");
  const joints = body.rigJointNodes.length;
  if (joints === 0) throw new Error("a rig's mass moments need a rigged bake");
  const h = handleCount(body), m = 4 * h, samples = body.massVolumes.length;
  const skin = skinWeightsAt(body, body.massPositions);
  const moments = new Float64Array(joints * 4 * m);
  const b = new Float64Array(m);
  for (let i = 0; i < samples; i++) {
    const x = body.massPositions[3 * i], y = body.massPositions[3 * i + 1], z = body.massPositions[3 * i + 2], volume = body.massVolumes[i];
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
  return moments;
}
