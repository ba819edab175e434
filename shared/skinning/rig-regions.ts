// A rigged mesh's regions, for the complementary finish (ritz-finish.ts): per vertex, the share of it that each
// joint's subtree (the joint and every joint below it) carries. A small turn of joint j about an axis a moves a point
// at its bind pose by a x (x - c_j) times that share, and the root's translation moves every point alike; so a field
// w that is mass-orthogonal to every share times every polynomial of degree two gives handle directions
// w [x; 1] e_b that no motion of the rig overlaps at its bind pose: J^T M B = 0 (METHOD.md section 7).
// Plain arrays, so that the skinning folder needs nothing of the rig's.

import { massDot } from "./eigen";

export interface RigRegions {
  /** The mesh's vertices (3V, normalised coordinates). */
  vertices: Float64Array;
  /** Per vertex, each joint subtree's share (V x count, vertex-major). */
  shares: Float64Array;
  count: number;
}

/**
 * The subtree shares of a skin: `parents` per rig node (-1 at the top), `jointNodes` the node of each skin joint,
 * and per vertex four joints and weights.
 */
export function subtreeShares(parents: ArrayLike<number>, jointNodes: ArrayLike<number>, skinJoints: ArrayLike<number>, skinWeights: ArrayLike<number>): { shares: Float64Array; count: number } {
  const joints = jointNodes.length, vertices = skinJoints.length / 4;
  // above[k * joints + j] = 1 when joint k's node is joint j's or below it.
  const above = new Uint8Array(joints * joints);
  for (let k = 0; k < joints; k++) {
    for (let node = jointNodes[k]; node >= 0; node = parents[node]) {
      for (let j = 0; j < joints; j++) if (jointNodes[j] === node) above[k * joints + j] = 1;
    }
  }
  const shares = new Float64Array(vertices * joints);
  for (let v = 0; v < vertices; v++) {
    for (let s = 0; s < 4; s++) {
      const k = skinJoints[4 * v + s], w = skinWeights[4 * v + s];
      if (!(w > 0)) continue;
      for (let j = 0; j < joints; j++) if (above[k * joints + j]) shares[v * joints + j] += w;
    }
  }
  return { shares, count: joints };
}

/** The regions of a skin at its vertices, made when first asked for. */
export function rigRegionsOf(vertices: Float64Array, parents: ArrayLike<number>, jointNodes: ArrayLike<number>, skinJoints: ArrayLike<number>, skinWeights: ArrayLike<number>): () => RigRegions {
  let made: RigRegions | undefined;
  return () => (made ??= { vertices, ...subtreeShares(parents, jointNodes, skinJoints, skinWeights) });
}

/** A constraint vector whose M-norm, once the earlier ones are taken out, is under this share of its own is dependent. */
const DEPENDENT = 1e-8;

/**
 * The constraints of complementary fields at a voxel solid's unknowns (`positions`, normalised; `mass`, their
 * lumped masses): every subtree share, and the whole body, times each monomial of degree up to two in the
 * coordinates (centred on the mass centroid), M-orthonormalised, with dependent ones dropped. Each unknown takes
 * the shares of its nearest vertex. Also M-orthogonal to every vector of `fixed` (M-orthonormal).
 */
export function complementaryConstraints(positions: Float64Array, mass: Float64Array, regions: RigRegions, fixed: Float64Array[], nearestVertex: (x: number, y: number, z: number) => number): Float64Array[] {
  const n = mass.length, centroid = [0, 0, 0];
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += mass[i];
    for (let a = 0; a < 3; a++) centroid[a] += mass[i] * positions[3 * i + a];
  }
  for (let a = 0; a < 3; a++) centroid[a] /= total;
  const nearest = new Int32Array(n);
  for (let i = 0; i < n; i++) nearest[i] = nearestVertex(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]);
  const kept: Float64Array[] = [], monomial = new Float64Array(10), d = [0, 0, 0];
  const basis = [...fixed];
  for (let region = -1; region < regions.count; region++) {
    for (let term = 0; term < 10; term++) {
      const v = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        for (let a = 0; a < 3; a++) d[a] = positions[3 * i + a] - centroid[a];
        monomials(d, monomial);
        v[i] = monomial[term] * (region < 0 ? 1 : regions.shares[nearest[i] * regions.count + region]);
      }
      const norm0 = Math.sqrt(massDot(v, v, mass));
      if (!(norm0 > 0)) continue;
      for (let pass = 0; pass < 2; pass++) {
        for (const u of basis) {
          const c = massDot(u, v, mass);
          for (let i = 0; i < n; i++) v[i] -= c * u[i];
        }
      }
      const norm = Math.sqrt(massDot(v, v, mass));
      if (!(norm > DEPENDENT * norm0)) continue;
      for (let i = 0; i < n; i++) v[i] /= norm;
      basis.push(v);
      kept.push(v);
    }
  }
  return kept;
}

/** 1, x, y, z, x^2, y^2, z^2, xy, yz, zx. */
function monomials(d: number[], out: Float64Array): void {
  const [x, y, z] = d;
  out[0] = 1; out[1] = x; out[2] = y; out[3] = z;
  out[4] = x * x; out[5] = y * y; out[6] = z * z; out[7] = x * y; out[8] = y * z; out[9] = z * x;
}
