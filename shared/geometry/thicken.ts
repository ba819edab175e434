// Flat meshes (a cut-out gingerbread man, a sheet) have no inside to fill with cubature points. We give them
// the thickness of a plate: both faces offset along the plane's normal, joined by walls along the boundary edges.
// The plane is the mesh's own (its points' least-spread direction), so a sheet in a tilted plane is a plate as one
// in z = 0 is; and a mesh only nearly flat (a sheet with a little noise, a paper-thin solid) counts as flat, since a
// grid over its box would barely hit its inside once it is tilted.

import { symmetricEigenSorted } from "../linalg/symmetric-eigen";
import { meshBounds } from "./bounds";
import type { TriangleMesh } from "./types";

/** Plate thickness as a fraction of the largest extent. */
export const FLAT_MESH_THICKNESS = 0.05;
/** A mesh thinner than this fraction of its largest extent, along its plane's normal, is made a plate. */
export const NEARLY_FLAT = 0.01;
/** Triangles whose area after flattening is below this fraction of the squared largest extent stand on edge: dropped. */
const EDGE_ON_AREA = 1e-12;

export interface FlatPlane {
  /** A point of the plane (the vertices' mean) and its unit normal. */
  point: [number, number, number];
  normal: [number, number, number];
  /** How far the vertices spread along the normal (0 for an exactly flat mesh). */
  thickness: number;
  /** The mesh's largest extent along x, y or z. */
  largestExtent: number;
}

/** The plane a flat or nearly flat mesh lies in, or null when the mesh is a solid. */
export function flatPlane(mesh: TriangleMesh): FlatPlane | null {
  const p = mesh.positions, n = p.length / 3;
  const { min, max } = meshBounds(p);
  const largestExtent = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  if (n === 0 || !(largestExtent > 0)) return null;
  const mean: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < p.length; i += 3) for (let a = 0; a < 3; a++) mean[a] += p[i + a] / n;
  // The normal is the covariance's eigenvector of least spread.
  const covariance = new Float64Array(9);
  for (let i = 0; i < p.length; i += 3) {
    for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) covariance[3 * a + b] += (p[i + a] - mean[a]) * (p[i + b] - mean[b]);
  }
  const values = new Float64Array(3), vectors = new Float64Array(9);
  symmetricEigenSorted(covariance, 3, values, vectors);
  const normal: [number, number, number] = [vectors[0], vectors[3], vectors[6]];
  const length = Math.hypot(...normal);
  for (let a = 0; a < 3; a++) normal[a] /= length;
  let low = Infinity, high = -Infinity;
  for (let i = 0; i < p.length; i += 3) {
    const d = (p[i] - mean[0]) * normal[0] + (p[i + 1] - mean[1]) * normal[1] + (p[i + 2] - mean[2]) * normal[2];
    low = Math.min(low, d);
    high = Math.max(high, d);
  }
  const thickness = high - low;
  return thickness <= NEARLY_FLAT * largestExtent ? { point: mean, normal, thickness, largestExtent } : null;
}

/**
 * A closed plate around a flat or nearly flat mesh, FLAT_MESH_THICKNESS of its largest extent thick (the mesh
 * itself when it is a solid). The mesh is pressed into its plane first; its triangles then all face the normal's
 * way (a sheet wound both ways, or both faces of a paper-thin solid, make one plate), and those standing on edge
 * go. A plate has no texture coordinates.
 */
export function thickenFlatMesh(mesh: TriangleMesh): TriangleMesh {
  const plane = flatPlane(mesh);
  if (!plane) return mesh;
  const { point, normal, largestExtent } = plane;
  const v = mesh.positions.length / 3, t = mesh.triangles.length / 3;
  const flat = new Float64Array(3 * v);
  for (let i = 0; i < v; i++) {
    let d = 0;
    for (let a = 0; a < 3; a++) d += (mesh.positions[3 * i + a] - point[a]) * normal[a];
    for (let a = 0; a < 3; a++) flat[3 * i + a] = mesh.positions[3 * i + a] - d * normal[a];
  }
  // Each triangle once, facing along the normal; those on edge (a thin solid's sides) and repeats (both faces of a
  // double-sided card) left out.
  const sheet: number[] = [], seen = new Set<string>();
  for (let k = 0; k < 3 * t; k += 3) {
    const [a, b, c] = [mesh.triangles[k], mesh.triangles[k + 1], mesh.triangles[k + 2]];
    const facing = facingArea(flat, a, b, c, normal);
    if (Math.abs(facing) <= EDGE_ON_AREA * largestExtent * largestExtent) continue;
    const corners = facing > 0 ? [a, b, c] : [a, c, b];
    const id = [a, b, c].sort((x, y) => x - y).join(",");
    if (seen.has(id)) continue;
    seen.add(id);
    sheet.push(...corners);
  }
  if (sheet.length === 0) return mesh;
  const half = 0.5 * FLAT_MESH_THICKNESS * largestExtent;
  const positions = new Float64Array(6 * v);
  for (let i = 0; i < v; i++) {
    for (let a = 0; a < 3; a++) {
      positions[3 * i + a] = flat[3 * i + a] + half * normal[a];
      positions[3 * (v + i) + a] = flat[3 * i + a] - half * normal[a];
    }
  }
  // Boundary edges: used by exactly one triangle, kept in that triangle's winding.
  const uses = new Map<string, number>();
  const key = (a: number, b: number) => (a < b ? `${a},${b}` : `${b},${a}`);
  for (let k = 0; k < sheet.length; k += 3) {
    for (let e = 0; e < 3; e++) {
      const id = key(sheet[k + e], sheet[k + ((e + 1) % 3)]);
      uses.set(id, (uses.get(id) ?? 0) + 1);
    }
  }
  const triangles: number[] = [];
  for (let k = 0; k < sheet.length; k += 3) {
    const [a, b, c] = [sheet[k], sheet[k + 1], sheet[k + 2]];
    triangles.push(a, b, c, v + a, v + c, v + b);
    for (let e = 0; e < 3; e++) {
      const p = sheet[k + e], q = sheet[k + ((e + 1) % 3)];
      if (uses.get(key(p, q)) === 1) triangles.push(p, v + p, v + q, p, v + q, q);
    }
  }
  return { positions, triangles: Uint32Array.from(triangles) };
}

/** Twice the triangle's area, signed by whether it faces along `normal`. */
function facingArea(p: Float64Array, a: number, b: number, c: number, normal: readonly number[]): number {
  const u = [p[3 * b] - p[3 * a], p[3 * b + 1] - p[3 * a + 1], p[3 * b + 2] - p[3 * a + 2]];
  const w = [p[3 * c] - p[3 * a], p[3 * c + 1] - p[3 * a + 1], p[3 * c + 2] - p[3 * a + 2]];
  return (u[1] * w[2] - u[2] * w[1]) * normal[0] + (u[2] * w[0] - u[0] * w[2]) * normal[1] + (u[0] * w[1] - u[1] * w[0]) * normal[2];
}
