// How complementary a rigged body's soft motion can be, and is. complementaryDirections: the rig's displacement
// basis J (rig-basis.ts) at a pose, projected into the subspace by mass (each column's least-squares image), and the
// number of subspace directions mass-orthogonal to all of it (J^T M u = 0): n minus the rank of the projected J.
// ComplementarityMeter: |J^T M u| / (|J| |M u|) of a soft displacement, with J evaluated point by point on the mass
// samples (not through the joints' moments the projection uses), so it checks the projection independently.

import { symmetricEigenSorted } from "../linalg/symmetric-eigen";
import type { BakedBody } from "../skinning/baked-body";
import { handleCount } from "../skinning/baked-body";
import { displacementAt } from "../sim/subspace";
import { RigBasis } from "./rig-basis";
import { skinWeightsAt } from "../skinning/point-skin";
import type { RigPose } from "../skeleton/rig-pose";

/** Eigenvalues of the projected basis's Gram matrix below this share of the largest count as none. */
const RANK_TOLERANCE = 1e-10;

export interface Complementarity {
  /** Directions of the subspace: 12 (K + 1). */
  subspace: number;
  /** Columns of J and the rank of their projection into the subspace. */
  rigColumns: number;
  rigRank: number;
  /** Subspace directions complementary to the rig at the pose: what the exact projection leaves. */
  complementary: number;
  /**
   * How much of the rig's motion at the pose the subspace's directions can make (the mean squared cosine of their
   * principal angles, in the mass metric; 0: complementary, 1: all of it): the whole subspace's, and the learned
   * handles' alone (the constant handle's affine motions always share the rig's root motion).
   */
  rigOverlap: number;
  learnedOverlap: number;
}

/**
 * The subspace's complementary directions at `pose`, for a server bake (mass samples, not a client's integrals)
 * of a rigged mesh. The mass samples take the skin weights of their nearest render vertex.
 */
export function complementaryDirections(body: BakedBody, pose: RigPose): Complementarity {
  const h = handleCount(body), m = 4 * h, n = 3 * m;
  const samples = body.massVolumes.length;
  if (samples === 0) throw new Error("complementaryDirections needs a server bake (its mass samples)");
  const rest = samplesInRigUnits(body), { joints, weights } = skinWeightsAt(body, body.massPositions);
  const basis = new RigBasis(pose), columns = basis.columns;
  const fields = new Float64Array(3 * samples * columns);
  basis.evaluate(rest, joints, weights, fields);

  // Per component, the mass block A = sum vol b b^T and the right-hand sides sum vol b g_c for every column; and
  // J's own mass Gram matrix, sum vol g_p . g_q.
  const a = new Float64Array(m * m), rhs = new Float64Array(3 * m * columns), b = new Float64Array(m), own = new Float64Array(columns * columns);
  const g = new Float64Array(3 * columns);
  for (let i = 0; i < samples; i++) {
    const vol = body.massVolumes[i], x = body.massPositions[3 * i], y = body.massPositions[3 * i + 1], z = body.massPositions[3 * i + 2];
    for (let hh = 0; hh < h; hh++) {
      const w = body.massWeights[i * h + hh];
      b[4 * hh] = w * x; b[4 * hh + 1] = w * y; b[4 * hh + 2] = w * z; b[4 * hh + 3] = w;
    }
    for (let r = 0; r < m; r++) for (let c = 0; c < m; c++) a[r * m + c] += vol * b[r] * b[c];
    for (let col = 0; col < columns; col++) {
      for (let comp = 0; comp < 3; comp++) {
        const value = fields[col * 3 * samples + 3 * i + comp] / body.scale; // normalised units, as the basis rows
        g[3 * col + comp] = value;
        if (value === 0) continue;
        const o = (col * 3 + comp) * m;
        for (let r = 0; r < m; r++) rhs[o + r] += vol * b[r] * value;
      }
    }
    for (let p = 0; p < columns; p++) {
      const gp = 3 * p;
      if (g[gp] === 0 && g[gp + 1] === 0 && g[gp + 2] === 0) continue;
      for (let q = p; q < columns; q++) own[p * columns + q] += vol * (g[gp] * g[3 * q] + g[gp + 1] * g[3 * q + 1] + g[gp + 2] * g[3 * q + 2]);
    }
  }
  for (let p = 0; p < columns; p++) for (let q = 0; q < p; q++) own[p * columns + q] = own[q * columns + p];
  const gram = projectedGram(a, rhs, m, columns, 0), learnedGram = projectedGram(a, rhs, m, columns, 4);
  const gramValues = new Float64Array(columns), gramVectors = new Float64Array(columns * columns);
  symmetricEigenSorted(Float64Array.from(gram), columns, gramValues, gramVectors);
  const top = Math.max(...gramValues);
  let rank = 0;
  for (const value of gramValues) if (value > RANK_TOLERANCE * top) rank++;
  return {
    subspace: n, rigColumns: columns, rigRank: rank, complementary: n - rank,
    rigOverlap: overlap(own, gram, columns), learnedOverlap: overlap(own, learnedGram, columns),
  };
}

/**
 * The Gram matrix, in the mass metric, of J's columns projected into the directions of handles `from / 4` on
 * (0: the whole subspace; 4: the learned handles, without the constant one): G = R^T A^-1 R per component, summed,
 * over that block of A. With A = V diag(l) V^T: A^-1 = V diag(1/l) V^T, dropping directions no sample moves.
 */
function projectedGram(a: Float64Array, rhs: Float64Array, m: number, columns: number, from: number): Float64Array {
  const d = m - from, block = new Float64Array(d * d);
  for (let r = 0; r < d; r++) for (let c = 0; c < d; c++) block[r * d + c] = a[(r + from) * m + c + from];
  const values = new Float64Array(d), vectors = new Float64Array(d * d);
  symmetricEigenSorted(block, d, values, vectors);
  const largest = Math.max(...values), projected = new Float64Array(3 * d * columns);
  for (let col = 0; col < columns; col++) {
    for (let comp = 0; comp < 3; comp++) {
      const o = (col * 3 + comp) * m, p = (col * 3 + comp) * d;
      // Coordinates of R in the eigenbasis, scaled by 1/sqrt(l): then G is their plain dot products.
      for (let e = 0; e < d; e++) {
        if (!(values[e] > RANK_TOLERANCE * largest)) continue;
        let dot = 0;
        for (let r = 0; r < d; r++) dot += vectors[r * d + e] * rhs[o + from + r];
        projected[p + e] = dot / Math.sqrt(values[e]);
      }
    }
  }
  const gram = new Float64Array(columns * columns);
  for (let p = 0; p < columns; p++) {
    for (let q = p; q < columns; q++) {
      let dot = 0;
      for (let k = 0; k < 3 * d; k++) dot += projected[p * 3 * d + k] * projected[q * 3 * d + k];
      gram[p * columns + q] = gram[q * columns + p] = dot;
    }
  }
  return gram;
}

/**
 * The mean squared cosine of the principal angles between the rig's motions and a set of subspace directions:
 * trace(G_J^+ G) / rank(G_J), G_J the rig columns' own mass Gram and G their projections' (projectedGram). 1 when
 * every motion of the rig lies in those directions, 0 when they are complementary to all of it.
 */
function overlap(own: Float64Array, projected: Float64Array, columns: number): number {
  const values = new Float64Array(columns), vectors = new Float64Array(columns * columns);
  symmetricEigenSorted(Float64Array.from(own), columns, values, vectors);
  const top = Math.max(...values);
  let trace = 0, rank = 0;
  for (let e = 0; e < columns; e++) {
    if (!(values[e] > RANK_TOLERANCE * top)) continue;
    rank++;
    let quadratic = 0;
    for (let p = 0; p < columns; p++) {
      const vp = vectors[p * columns + e];
      if (vp === 0) continue;
      for (let q = 0; q < columns; q++) quadratic += vp * projected[p * columns + q] * vectors[q * columns + e];
    }
    trace += quadratic / values[e];
  }
  return rank > 0 ? trace / rank : 0;
}

/** A server bake's mass samples in the rig's units (3 per sample). */
function samplesInRigUnits(body: BakedBody): Float64Array {
  const samples = body.massVolumes.length, rest = new Float64Array(3 * samples);
  for (let i = 0; i < samples; i++) for (let a = 0; a < 3; a++) rest[3 * i + a] = body.massPositions[3 * i + a] * body.scale + body.center[a];
  return rest;
}

/**
 * Measures |J^T M u| / (|J|_F |M u|) for soft displacements u = B q on a server bake's mass samples at `size`
 * metres: J in metres (the turns' columns scaled from rig units), M the samples' masses. Preallocated per body.
 */
export class ComplementarityMeter {
  private readonly rest: Float64Array;
  private readonly joints: Uint16Array;
  private readonly weights: Float32Array;
  private readonly rows: Float64Array;
  private readonly volumes: Float64Array;
  private readonly fields: Float64Array;
  private readonly weighted: Float64Array;
  private readonly unitScale: number;
  private readonly basis: RigBasis;
  private readonly displacement = new Float64Array(3);

  /** For a body's bake at `size` metres, measured at whatever `pose` holds when measuring. */
  constructor(body: BakedBody, size: number, pose: RigPose) {
    const h = handleCount(body), m = 4 * h, samples = body.massVolumes.length, s = size / 2;
    if (samples === 0) throw new Error("ComplementarityMeter needs a server bake (its mass samples)");
    this.rest = samplesInRigUnits(body);
    ({ joints: this.joints, weights: this.weights } = skinWeightsAt(body, body.massPositions));
    this.rows = new Float64Array(samples * m);
    for (let i = 0; i < samples; i++) {
      const x = s * body.massPositions[3 * i], y = s * body.massPositions[3 * i + 1], z = s * body.massPositions[3 * i + 2];
      for (let hh = 0; hh < h; hh++) {
        const w = body.massWeights[i * h + hh], o = i * m + 4 * hh;
        this.rows[o] = w * x; this.rows[o + 1] = w * y; this.rows[o + 2] = w * z; this.rows[o + 3] = w;
      }
    }
    this.volumes = body.massVolumes.map((v) => v * s * s * s);
    this.unitScale = s / body.scale;
    this.basis = new RigBasis(pose);
    this.fields = new Float64Array(3 * samples * this.basis.columns);
    this.weighted = new Float64Array(3 * samples);
  }

  /** The measure for coordinates q (3m) of the body at the pose (density cancels out). */
  measure(q: Float64Array): number {
    const basis = this.basis, samples = this.volumes.length, n = 3 * samples, fields = this.fields;
    basis.evaluate(this.rest, this.joints, this.weights, fields);
    const u = this.weighted;
    let mu2 = 0;
    const d = this.displacement;
    for (let i = 0; i < samples; i++) {
      displacementAt(this.rows, q, i, d);
      const ux = d[0], uy = d[1], uz = d[2], v = this.volumes[i];
      u[3 * i] = v * ux; u[3 * i + 1] = v * uy; u[3 * i + 2] = v * uz;
      mu2 += v * v * (ux * ux + uy * uy + uz * uz);
    }
    let projected2 = 0, j2 = 0;
    for (let c = 0; c < basis.columns; c++) {
      const units = c < 3 ? 1 : this.unitScale, o = c * n;
      let dot = 0, norm = 0;
      for (let k = 0; k < n; k++) {
        const g = units * fields[o + k];
        dot += g * u[k];
        norm += g * g;
      }
      projected2 += dot * dot;
      j2 += norm;
    }
    return mu2 > 0 ? Math.sqrt(projected2) / (Math.sqrt(j2) * Math.sqrt(mu2)) : 0;
  }
}
