// Where a body's material is for given coordinates q (component-major: axis a's handle entries at a m + k): a point
// with basis row b(x) sits at origin + rest + (b(x) . q_a)_a, and the mass centroid moves by the mass moments' share.

import type { Subspace } from "./subspace";

/**
 * World position of point i of a set (basis rows, m a point, and rest positions) for coordinates q, into out[o..o+2].
 * (subspace.ts's displacementAt reads m from q's length; a caller here may pass a longer buffer.)
 */
export function pointPositionAt(q: Float64Array, m: number, origin: Float64Array, rows: Float64Array, rest: Float64Array, i: number, out: Float64Array, o: number): void {
  const r = i * m;
  let ux = 0, uy = 0, uz = 0;
  for (let k = 0; k < m; k++) {
    const b = rows[r + k];
    ux += b * q[k];
    uy += b * q[m + k];
    uz += b * q[2 * m + k];
  }
  out[o] = origin[0] + rest[3 * i] + ux;
  out[o + 1] = origin[1] + rest[3 * i + 1] + uy;
  out[o + 2] = origin[2] + rest[3 * i + 2] + uz;
}

/** The mass centroid (world) for coordinates q, into out. */
export function massCentroidAt(subspace: Subspace, origin: Float64Array, q: Float64Array, out: Float64Array): void {
  const m = subspace.m, volume = subspace.massVolume;
  for (let a = 0; a < 3; a++) {
    let u = 0;
    for (let k = 0; k < m; k++) u += subspace.massMoment[k] * q[a * m + k];
    out[a] = origin[a] + subspace.restCentroid[a] + u / volume;
  }
}

/** The diagonal of the box around a point set (3 a point): a body's size. */
export function boxDiagonal(points: Float64Array): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], points[i + k]);
      max[k] = Math.max(max[k], points[i + k]);
    }
  }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}
