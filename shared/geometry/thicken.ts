// Flat meshes (a cut-out gingerbread man, a sheet) have no inside to fill with cubature points. We give them
// the thickness of a plate: both faces offset along the flat axis, joined by walls along the boundary edges.

import type { TriangleMesh } from "./types";

/** Plate thickness as a fraction of the largest extent. */
export const FLAT_MESH_THICKNESS = 0.05;

/** The axis (0, 1, 2) along which the mesh has no extent, or -1 when it is a solid. */
export function flatAxis(mesh: TriangleMesh): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < mesh.positions.length; i += 3) {
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a], mesh.positions[i + a]);
      max[a] = Math.max(max[a], mesh.positions[i + a]);
    }
  }
  const extents = [0, 1, 2].map((a) => max[a] - min[a]);
  const largest = Math.max(...extents);
  for (let a = 0; a < 3; a++) if (extents[a] <= 1e-6 * largest) return a;
  return -1;
}

/** A closed plate around a flat mesh (unchanged when the mesh is not flat; a plate has no texture coordinates). */
export function thickenFlatMesh(mesh: TriangleMesh): TriangleMesh {
  const axis = flatAxis(mesh);
  if (axis < 0) return mesh;
  const v = mesh.positions.length / 3, t = mesh.triangles.length / 3;
  let largest = 0;
  for (let a = 0; a < 3; a++) {
    let lo = Infinity, hi = -Infinity;
    for (let i = a; i < mesh.positions.length; i += 3) {
      lo = Math.min(lo, mesh.positions[i]);
      hi = Math.max(hi, mesh.positions[i]);
    }
    largest = Math.max(largest, hi - lo);
  }
  const half = 0.5 * FLAT_MESH_THICKNESS * largest;
  const positions = new Float64Array(6 * v);
  for (let i = 0; i < v; i++) {
    for (let a = 0; a < 3; a++) {
      positions[3 * i + a] = mesh.positions[3 * i + a] + (a === axis ? half : 0);
      positions[3 * (v + i) + a] = mesh.positions[3 * i + a] - (a === axis ? half : 0);
    }
  }
  // Boundary edges: used by exactly one triangle, kept in that triangle's winding.
  const uses = new Map<string, number>();
  const key = (a: number, b: number) => (a < b ? `${a},${b}` : `${b},${a}`);
  for (let k = 0; k < 3 * t; k += 3) {
    for (let e = 0; e < 3; e++) {
      const id = key(mesh.triangles[k + e], mesh.triangles[k + ((e + 1) % 3)]);
      uses.set(id, (uses.get(id) ?? 0) + 1);
    }
  }
  const triangles: number[] = [];
  for (let k = 0; k < 3 * t; k += 3) {
    const [a, b, c] = [mesh.triangles[k], mesh.triangles[k + 1], mesh.triangles[k + 2]];
    triangles.push(a, b, c, v + a, v + c, v + b);
    for (let e = 0; e < 3; e++) {
      const p = mesh.triangles[k + e], q = mesh.triangles[k + ((e + 1) % 3)];
      if (uses.get(key(p, q)) === 1) triangles.push(p, v + p, v + q, p, v + q, q);
    }
  }
  return { positions, triangles: Uint32Array.from(triangles) };
}
