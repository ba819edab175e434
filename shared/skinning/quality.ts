// Quality of a set of skinning fields, as the training objective measures it (METHOD.md section 4), so that the
// baseline, the model and a per-shape optimum can be compared on the same footing:
// - elastic: mean Neo-Hookean energy density (E = 5e5, nu = 0.45) over the cubature points (volume-weighted) and
//   256 fixed, seeded random handle transforms T ~ 0.05 randn (constant channel included), in normalised units;
// - ortho: mean squared off-diagonal of W^T W / N over the K learned fields at the cubature points.
// Fields are taken as baked: unit RMS over the cubature points.

import { neoHookeanEnergy } from "../sim/material";
import type { BakedBody } from "./baked-body";

export const QUALITY_TRANSFORMS = 256;
export const QUALITY_TRANSFORM_SCALE = 0.05;
const E = 5e5, NU = 0.45;
const MU = E / (2 * (1 + NU));
/** Training's Neo-Hookean uses the plain lambda (METHOD.md section 4). */
const LAMBDA = (E * NU) / ((1 + NU) * (1 - 2 * NU));

export interface FieldQuality {
  elastic: number;
  ortho: number;
}

type QualityInput = Pick<BakedBody, "cubaturePositions" | "cubatureVolumes" | "cubatureWeights" | "cubatureGradients" | "learnedHandles">;

export function fieldQuality(body: QualityInput): FieldQuality {
  const h = body.learnedHandles + 1, nc = body.cubatureVolumes.length;
  const x = body.cubaturePositions, w = body.cubatureWeights, g = body.cubatureGradients, vol = body.cubatureVolumes;
  const transforms = seededTransforms(QUALITY_TRANSFORMS, h);
  const f = new Float64Array(9);
  let total = 0, volume = 0;
  for (let c = 0; c < nc; c++) volume += vol[c];
  for (let t = 0; t < QUALITY_TRANSFORMS; t++) {
    const tb = t * h * 12;
    for (let c = 0; c < nc; c++) {
      f.fill(0);
      f[0] = f[4] = f[8] = 1;
      for (let k = 0; k < h; k++) {
        const wk = w[c * h + k], o = tb + 12 * k;
        const gx = g[3 * (c * h + k)], gy = g[3 * (c * h + k) + 1], gz = g[3 * (c * h + k) + 2];
        for (let a = 0; a < 3; a++) {
          const a0 = transforms[o + 4 * a], a1 = transforms[o + 4 * a + 1], a2 = transforms[o + 4 * a + 2], b = transforms[o + 4 * a + 3];
          const u = a0 * x[3 * c] + a1 * x[3 * c + 1] + a2 * x[3 * c + 2] + b;
          f[3 * a] += wk * a0 + u * gx;
          f[3 * a + 1] += wk * a1 + u * gy;
          f[3 * a + 2] += wk * a2 + u * gz;
        }
      }
      total += vol[c] * neoHookeanEnergy(f, MU, LAMBDA);
    }
  }
  const elastic = total / (volume * QUALITY_TRANSFORMS);
  let ortho = 0;
  const k = body.learnedHandles;
  for (let a = 1; a <= k; a++) {
    for (let b = 1; b <= k; b++) {
      if (a === b) continue;
      let s = 0;
      for (let c = 0; c < nc; c++) s += w[c * h + a] * w[c * h + b];
      ortho += (s / nc) ** 2;
    }
  }
  return { elastic, ortho: k > 1 ? ortho / (k * (k - 1)) : 0 };
}

/** Deterministic normal(0, 0.05) transforms: count x handles x 12 (row-major 3 x 4). */
function seededTransforms(count: number, handles: number): Float64Array {
  let state = 0x2545f491;
  const uniform = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  const out = new Float64Array(count * handles * 12);
  for (let i = 0; i < out.length; i++) {
    out[i] = QUALITY_TRANSFORM_SCALE * Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  }
  return out;
}
