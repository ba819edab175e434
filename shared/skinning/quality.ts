// Quality of a set of skinning fields, measured as the training objective does (METHOD.md section 4), so that
// the baseline, the model and a per-shape optimum compare on the same footing. The fields are first divided by
// their RMS over the points (the on-the-fly normalisation), then:
// - ortho: mean squared off-diagonal of W^T W / N over the K learned fields;
// - elastic: mean Neo-Hookean energy density (E = 5e5, nu = 0.45, plain lambda as in training) over the points
//   (volume-weighted) and 256 fixed, seeded random handle transforms T ~ 0.05 randn (constant channel included),
//   of the fields made orthonormal: that measures the subspace they span, which is all the solver uses.
// Coordinates are normalised ([-1, 1]^3), so figures compare across shapes of any size.

import { Random } from "../geometry";
import { choleskyFactor } from "../sim/linalg";
import { neoHookeanEnergy } from "../sim/material";
import type { BakedBody } from "./baked-body";

export const QUALITY_TRANSFORMS = 256;
export const QUALITY_TRANSFORM_SCALE = 0.05;
const QUALITY_SEED = 256;
const E = 5e5, NU = 0.45;
const MU = E / (2 * (1 + NU));
const LAMBDA = (E * NU) / ((1 + NU) * (1 - 2 * NU));

export interface FieldQuality {
  elastic: number;
  ortho: number;
}

export interface FieldSamples {
  /** 3N normalised positions. */
  points: Float64Array;
  /** N volumes (any scale); uniform when omitted. */
  volumes?: Float64Array;
  /** K learned fields only (no constant channel), N x K, any scale. */
  weights: Float64Array;
  /** N x K x 3. */
  gradients: Float64Array;
  fields: number;
}

export function fieldQuality(s: FieldSamples): FieldQuality {
  const k = s.fields, n = s.points.length / 3;
  const w = Float64Array.from(s.weights), g = Float64Array.from(s.gradients);
  // Unit RMS per field.
  for (let f = 0; f < k; f++) {
    let ms = 0;
    for (let i = 0; i < n; i++) ms += w[i * k + f] ** 2;
    const scale = 1 / (Math.sqrt(ms / n) + 1e-12);
    for (let i = 0; i < n; i++) {
      w[i * k + f] *= scale;
      for (let a = 0; a < 3; a++) g[3 * (i * k + f) + a] *= scale;
    }
  }
  // Ortho of the normalised fields; Gram matrix kept for the orthonormalisation.
  const gram = new Float64Array(k * k);
  let ortho = 0;
  for (let a = 0; a < k; a++) {
    for (let b = 0; b < k; b++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += w[i * k + a] * w[i * k + b];
      gram[a * k + b] = sum / n + (a === b ? 1e-4 : 0);
      if (a !== b) ortho += (sum / n) ** 2;
    }
  }
  ortho = k > 1 ? ortho / (k * (k - 1)) : 0;
  // Orthonormal basis: W L^-T with L L^T = Gram (the same 1e-4 ridge as training).
  const lower = Float64Array.from(gram);
  choleskyFactor(lower, k); // positive definite thanks to the ridge
  const basis = new Float64Array(n * (k + 1)), basisGrad = new Float64Array(n * (k + 1) * 3);
  for (let i = 0; i < n; i++) {
    basis[i * (k + 1)] = 1;
    for (let f = 0; f < k; f++) {
      let v = w[i * k + f];
      const gv = [g[3 * (i * k + f)], g[3 * (i * k + f) + 1], g[3 * (i * k + f) + 2]];
      for (let j = 0; j < f; j++) {
        v -= lower[f * k + j] * basis[i * (k + 1) + 1 + j];
        for (let a = 0; a < 3; a++) gv[a] -= lower[f * k + j] * basisGrad[3 * (i * (k + 1) + 1 + j) + a];
      }
      basis[i * (k + 1) + 1 + f] = v / lower[f * k + f];
      for (let a = 0; a < 3; a++) basisGrad[3 * (i * (k + 1) + 1 + f) + a] = gv[a] / lower[f * k + f];
    }
  }
  const h = k + 1, x = s.points;
  const transforms = seededTransforms(QUALITY_TRANSFORMS, h);
  const f = new Float64Array(9);
  let total = 0, volume = 0;
  for (let i = 0; i < n; i++) volume += s.volumes ? s.volumes[i] : 1;
  for (let t = 0; t < QUALITY_TRANSFORMS; t++) {
    const tb = t * h * 12;
    for (let i = 0; i < n; i++) {
      f.fill(0);
      f[0] = f[4] = f[8] = 1;
      for (let c = 0; c < h; c++) {
        const wc = basis[i * h + c], o = tb + 12 * c;
        const gx = basisGrad[3 * (i * h + c)], gy = basisGrad[3 * (i * h + c) + 1], gz = basisGrad[3 * (i * h + c) + 2];
        for (let a = 0; a < 3; a++) {
          const a0 = transforms[o + 4 * a], a1 = transforms[o + 4 * a + 1], a2 = transforms[o + 4 * a + 2];
          const u = a0 * x[3 * i] + a1 * x[3 * i + 1] + a2 * x[3 * i + 2] + transforms[o + 4 * a + 3];
          f[3 * a] += wc * a0 + u * gx;
          f[3 * a + 1] += wc * a1 + u * gy;
          f[3 * a + 2] += wc * a2 + u * gz;
        }
      }
      total += (s.volumes ? s.volumes[i] : 1) * neoHookeanEnergy(f, MU, LAMBDA);
    }
  }
  return { elastic: total / (volume * QUALITY_TRANSFORMS), ortho };
}

/** Quality of a baked body's fields at its cubature points. */
export function bakedQuality(body: Pick<BakedBody, "cubaturePositions" | "cubatureVolumes" | "cubatureWeights" | "cubatureGradients" | "learnedHandles">): FieldQuality {
  const k = body.learnedHandles, h = k + 1, n = body.cubatureVolumes.length;
  const weights = new Float64Array(n * k), gradients = new Float64Array(n * k * 3);
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < k; f++) {
      weights[i * k + f] = body.cubatureWeights[i * h + 1 + f];
      for (let a = 0; a < 3; a++) gradients[3 * (i * k + f) + a] = body.cubatureGradients[3 * (i * h + 1 + f) + a];
    }
  }
  return fieldQuality({ points: body.cubaturePositions, volumes: body.cubatureVolumes, weights, gradients, fields: k });
}

/** Deterministic normal(0, 0.05) transforms: count x handles x 12 (row-major 3 x 4). */
function seededTransforms(count: number, handles: number): Float64Array {
  const random = new Random(QUALITY_SEED);
  const out = new Float64Array(count * handles * 12);
  for (let i = 0; i < out.length; i++) out[i] = QUALITY_TRANSFORM_SCALE * random.normal();
  return out;
}
