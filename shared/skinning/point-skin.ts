// Skin joints and weights at arbitrary points of a rigged mesh: those of the nearest render vertex (mass samples,
// surface samples and cubature points take their skinning so).

import type { BakedBody } from "./baked-body";

/** Four skin joints and weights per point. */
export interface PointSkin {
  joints: Uint16Array;
  weights: Float32Array;
}

/** Each point's four joints and weights: those of its nearest vertex (`positions`, with `joints` and `weights`, four a vertex). */
export function nearestVertexSkin(positions: ArrayLike<number>, joints: ArrayLike<number>, weights: ArrayLike<number>, points: ArrayLike<number>): PointSkin {
  const count = points.length / 3, vertices = positions.length / 3, r = positions;
  const out: PointSkin = { joints: new Uint16Array(4 * count), weights: new Float32Array(4 * count) };
  for (let i = 0; i < count; i++) {
    const x = points[3 * i], y = points[3 * i + 1], z = points[3 * i + 2];
    let best = 0, bestDistance = Infinity;
    for (let v = 0; v < vertices; v++) {
      const d = (r[3 * v] - x) ** 2 + (r[3 * v + 1] - y) ** 2 + (r[3 * v + 2] - z) ** 2;
      if (d < bestDistance) { bestDistance = d; best = v; }
    }
    for (let k = 0; k < 4; k++) {
      out.joints[4 * i + k] = joints[4 * best + k];
      out.weights[4 * i + k] = weights[4 * best + k];
    }
  }
  return out;
}

/** Each point's (a bake's normalised units) four skin joints and weights: those of its nearest render vertex. */
export function skinWeightsAt(body: BakedBody, points: ArrayLike<number>): PointSkin {
  return nearestVertexSkin(body.renderPositions, body.renderSkinJoints, body.renderSkinWeights, points);
}
