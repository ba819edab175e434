// How much room a rigged body's subspace leaves for complementary motion: the rig's displacement basis J
// (rig-basis.ts) at a pose, projected into the subspace by mass (each column's least-squares image), and the
// number of subspace directions mass-orthogonal to all of it (J^T M u = 0): n minus the rank of the projected J.

import { symmetricEigenSorted } from "../linalg/symmetric-eigen";
import type { BakedBody } from "../skinning/baked-body";
import { handleCount } from "../skinning/baked-body";
import { RigBasis } from "./rig-basis";
import type { RigPose } from "./rig-pose";

/** Eigenvalues of the projected basis's Gram matrix below this share of the largest count as none. */
const RANK_TOLERANCE = 1e-10;

export interface Complementarity {
  /** Directions of the subspace: 12 (K + 1). */
  subspace: number;
  /** Columns of J and the rank of their projection into the subspace. */
  rigColumns: number;
  rigRank: number;
  /** Subspace directions complementary to the rig at the pose. */
  complementary: number;
}

/**
 * The subspace's complementary directions at `pose`, for a server bake (mass samples, not a client's integrals)
 * of a rigged mesh. The mass samples take the skin weights of their nearest render vertex.
 */
export function complementaryDirections(body: BakedBody, pose: RigPose): Complementarity {
  const h = handleCount(body), m = 4 * h, n = 3 * m;
  const samples = body.massVolumes.length, render = body.renderPositions.length / 3;
  if (samples === 0) throw new Error("complementaryDirections needs a server bake (its mass samples)");
  // The samples in the rig's units, and their skin weights (nearest render vertex).
  const rest = new Float64Array(3 * samples), joints = new Uint16Array(4 * samples), weights = new Float32Array(4 * samples);
  for (let i = 0; i < samples; i++) {
    const x = body.massPositions[3 * i], y = body.massPositions[3 * i + 1], z = body.massPositions[3 * i + 2];
    let best = 0, bestDistance = Infinity;
    for (let v = 0; v < render; v++) {
      const d = (body.renderPositions[3 * v] - x) ** 2 + (body.renderPositions[3 * v + 1] - y) ** 2 + (body.renderPositions[3 * v + 2] - z) ** 2;
      if (d < bestDistance) { bestDistance = d; best = v; }
    }
    for (let k = 0; k < 4; k++) {
      joints[4 * i + k] = body.renderSkinJoints[4 * best + k];
      weights[4 * i + k] = body.renderSkinWeights[4 * best + k];
    }
    rest[3 * i] = x * body.scale + body.center[0];
    rest[3 * i + 1] = y * body.scale + body.center[1];
    rest[3 * i + 2] = z * body.scale + body.center[2];
  }
  const basis = new RigBasis(pose), columns = basis.columns;
  const fields = new Float64Array(3 * samples * columns);
  basis.evaluate(rest, joints, weights, fields);

  // Per component, the mass block A = sum vol b b^T and the right-hand sides sum vol b g_c for every column.
  const a = new Float64Array(m * m), rhs = new Float64Array(3 * m * columns), b = new Float64Array(m);
  for (let i = 0; i < samples; i++) {
    const vol = body.massVolumes[i], x = body.massPositions[3 * i], y = body.massPositions[3 * i + 1], z = body.massPositions[3 * i + 2];
    for (let hh = 0; hh < h; hh++) {
      const w = body.massWeights[i * h + hh];
      b[4 * hh] = w * x; b[4 * hh + 1] = w * y; b[4 * hh + 2] = w * z; b[4 * hh + 3] = w;
    }
    for (let r = 0; r < m; r++) for (let c = 0; c < m; c++) a[r * m + c] += vol * b[r] * b[c];
    for (let col = 0; col < columns; col++) {
      for (let comp = 0; comp < 3; comp++) {
        const g = fields[col * 3 * samples + 3 * i + comp] / body.scale; // normalised units, as the basis rows
        if (g === 0) continue;
        const o = (col * 3 + comp) * m;
        for (let r = 0; r < m; r++) rhs[o + r] += vol * b[r] * g;
      }
    }
  }
  // The Gram matrix of the projected columns in the mass metric: G = R^T A^-1 R per component, summed. With
  // A = V diag(l) V^T: A^-1 = V diag(1/l) V^T, dropping directions no sample moves (l ~ 0).
  const values = new Float64Array(m), vectors = new Float64Array(m * m);
  symmetricEigenSorted(Float64Array.from(a), m, values, vectors);
  const largest = Math.max(...values), projected = new Float64Array(3 * m * columns);
  for (let col = 0; col < columns; col++) {
    for (let comp = 0; comp < 3; comp++) {
      const o = (col * 3 + comp) * m;
      // Coordinates of R in the eigenbasis, scaled by 1/sqrt(l): then G is their plain dot products.
      for (let e = 0; e < m; e++) {
        if (!(values[e] > RANK_TOLERANCE * largest)) continue;
        let dot = 0;
        for (let r = 0; r < m; r++) dot += vectors[r * m + e] * rhs[o + r];
        projected[o + e] = dot / Math.sqrt(values[e]);
      }
    }
  }
  const gram = new Float64Array(columns * columns);
  for (let p = 0; p < columns; p++) {
    for (let q = p; q < columns; q++) {
      let dot = 0;
      for (let k = 0; k < 3 * m; k++) dot += projected[p * 3 * m + k] * projected[q * 3 * m + k];
      gram[p * columns + q] = gram[q * columns + p] = dot;
    }
  }
  const gramValues = new Float64Array(columns), gramVectors = new Float64Array(columns * columns);
  symmetricEigenSorted(gram, columns, gramValues, gramVectors);
  const top = Math.max(...gramValues);
  let rank = 0;
  for (const value of gramValues) if (value > RANK_TOLERANCE * top) rank++;
  return { subspace: n, rigColumns: columns, rigRank: rank, complementary: n - rank };
}
