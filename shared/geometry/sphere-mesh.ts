import { cleanMesh } from "./clean-mesh";
import { MeshError } from "./mesh-error";
import type { TriangleMesh } from "./types";

/**
 * A closed, outward-wound icosphere centred at the origin: an icosahedron whose faces are split
 * `subdivisions` times into four, with vertices pushed onto the sphere. 20 * 4^subdivisions triangles.
 */
export function sphereMesh(radius: number, subdivisions = 3): TriangleMesh {
  if (!(Number.isFinite(radius) && radius > 0)) throw new MeshError(`sphere radius must be a positive finite number, got ${radius}`);
  if (!(Number.isInteger(subdivisions) && subdivisions >= 0 && subdivisions <= 7)) {
    throw new MeshError(`sphere subdivisions must be an integer from 0 to 7, got ${subdivisions}`);
  }
  const g = (1 + Math.sqrt(5)) / 2;
  const vertices: number[] = [-1, g, 0, 1, g, 0, -1, -g, 0, 1, -g, 0, 0, -1, g, 0, 1, g, 0, -1, -g, 0, 1, -g, g, 0, -1, g, 0, 1, -g, 0, -1, -g, 0, 1];
  let faces: number[] = [
    0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
    3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1,
  ];
  for (let level = 0; level < subdivisions; level++) {
    const midpoints = new Map<number, number>();
    const midpoint = (a: number, b: number): number => {
      const key = Math.min(a, b) * 4194304 + Math.max(a, b);
      let m = midpoints.get(key);
      if (m === undefined) {
        m = vertices.length / 3;
        vertices.push((vertices[3 * a] + vertices[3 * b]) / 2, (vertices[3 * a + 1] + vertices[3 * b + 1]) / 2, (vertices[3 * a + 2] + vertices[3 * b + 2]) / 2);
        midpoints.set(key, m);
      }
      return m;
    };
    const next: number[] = [];
    for (let f = 0; f < faces.length; f += 3) {
      const a = faces[f], b = faces[f + 1], c = faces[f + 2];
      const ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      next.push(a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca);
    }
    faces = next;
  }
  const positions = new Float64Array(vertices.length);
  for (let i = 0; i < vertices.length; i += 3) {
    const length = Math.hypot(vertices[i], vertices[i + 1], vertices[i + 2]);
    positions[i] = (radius * vertices[i]) / length;
    positions[i + 1] = (radius * vertices[i + 1]) / length;
    positions[i + 2] = (radius * vertices[i + 2]) / length;
  }
  return cleanMesh({ positions, triangles: Uint32Array.from(faces) });
}
