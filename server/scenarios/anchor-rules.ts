// SPRig's anchor rules compared (issue 31 item 6): which frame of an animation a network's fields should be taken
// from, and how well the subspace those fields make reproduces every frame. The rules: the bind pose (the rest
// shape), the frame of largest surface area (SPRig's: least folded, most of the surface visible to the encoder), the
// consensus frame (anchor-frame.ts: the others' predictions agree with it most) and the least strained frame.
// The reconstruction error: each frame's material points fitted, by least squares, with the anchor's affine handles
// (the fields and the constant, each times [X; 1] at the rest positions X), against the same fit with the constant
// handle alone (one affine map): the share of the non-affine deformation the subspace misses (0: reproduced exactly,
// 1: no better than an affine map).

import { symmetricEigenSorted } from "../../shared/linalg/symmetric-eigen";
import type { FieldTable } from "../../shared/skinning/field-agreement";

/** Eigenvalues of the fit's normal matrix below this share of the largest are dependent directions (dropped). */
const DEPENDENT = 1e-10;

/** The total area of a surface's triangles. */
export function surfaceArea(vertices: ArrayLike<number>, triangles: ArrayLike<number>): number {
  let area = 0;
  for (let t = 0; t < triangles.length; t += 3) {
    const a = 3 * triangles[t], b = 3 * triangles[t + 1], c = 3 * triangles[t + 2];
    const ux = vertices[b] - vertices[a], uy = vertices[b + 1] - vertices[a + 1], uz = vertices[b + 2] - vertices[a + 2];
    const vx = vertices[c] - vertices[a], vy = vertices[c + 1] - vertices[a + 1], vz = vertices[c + 2] - vertices[a + 2];
    area += 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
  }
  return area;
}

export interface Reconstruction {
  /** RMS residual of the handles' fit against the affine fit's (0 to 1). */
  relative: number;
  /** RMS residual of the handles' fit, as a share of the rest points' largest extent. */
  rms: number;
}

/**
 * How well the subspace of `fields` (one row per material point) reproduces a frame: `rest` and `posed` are the
 * material points (3N each, the same units) at rest and in the frame.
 */
export function reconstruction(fields: FieldTable, rest: Float64Array, posed: Float64Array): Reconstruction {
  // The rest points centred and scaled to unit extent: the same span of handles, a better conditioned fit (a
  // character's file may put its origin at its feet, in centimetres).
  const low = [Infinity, Infinity, Infinity], high = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < rest.length; i++) {
    low[i % 3] = Math.min(low[i % 3], rest[i]);
    high[i % 3] = Math.max(high[i % 3], rest[i]);
  }
  const extent = Math.max(high[0] - low[0], high[1] - low[1], high[2] - low[2]) || 1;
  const unit = rest.map((v, i) => (v - 0.5 * (low[i % 3] + high[i % 3])) / extent);
  const handles = residual(fields, unit, posed, fields.k + 1);
  const affine = residual(fields, unit, posed, 1);
  return { relative: affine > 0 ? handles / affine : 0, rms: handles / extent };
}

/** RMS residual of the least-squares fit of `posed` by the first `handles` handles (the constant, then the fields). */
function residual(fields: FieldTable, rest: Float64Array, posed: Float64Array, handles: number): number {
  const n = fields.count, k = fields.k, m = 4 * handles;
  const row = new Float64Array(m), normal = new Float64Array(m * m), rhs = new Float64Array(3 * m);
  const rowOf = (i: number) => {
    for (let h = 0; h < handles; h++) {
      const w = h === 0 ? 1 : fields.values[i * k + h - 1];
      row[4 * h] = w * rest[3 * i]; row[4 * h + 1] = w * rest[3 * i + 1]; row[4 * h + 2] = w * rest[3 * i + 2]; row[4 * h + 3] = w;
    }
  };
  for (let i = 0; i < n; i++) {
    rowOf(i);
    for (let r = 0; r < m; r++) {
      const v = row[r];
      if (v === 0) continue;
      for (let c = 0; c < m; c++) normal[r * m + c] += v * row[c];
      for (let a = 0; a < 3; a++) rhs[a * m + r] += v * posed[3 * i + a];
    }
  }
  // The pseudo-inverse's solution: dependent directions (a field that is a combination of others) dropped.
  const values = new Float64Array(m), vectors = new Float64Array(m * m);
  symmetricEigenSorted(normal, m, values, vectors);
  const top = values[m - 1], coefficients = new Float64Array(3 * m);
  for (let e = 0; e < m; e++) {
    if (!(values[e] > DEPENDENT * top)) continue;
    for (let a = 0; a < 3; a++) {
      let dot = 0;
      for (let r = 0; r < m; r++) dot += vectors[r * m + e] * rhs[a * m + r];
      const scaled = dot / values[e];
      for (let r = 0; r < m; r++) coefficients[a * m + r] += scaled * vectors[r * m + e];
    }
  }
  let sum = 0;
  for (let i = 0; i < n; i++) {
    rowOf(i);
    for (let a = 0; a < 3; a++) {
      let fit = 0;
      for (let r = 0; r < m; r++) fit += coefficients[a * m + r] * row[r];
      sum += (posed[3 * i + a] - fit) ** 2;
    }
  }
  return Math.sqrt(sum / n);
}
