import { cleanMesh } from "./clean-mesh";
import { MESH_LIMITS } from "./limits";
import { MeshError } from "./mesh-error";
import type { TriangleMesh } from "./types";

/** Segments along the longest side when no density is given; shorter sides get proportionally fewer. */
const DEFAULT_SEGMENTS_ON_LONGEST_SIDE = 20;
const MIN_SEGMENTS_PER_SIDE = 2;

/**
 * A closed box centred at the origin, wound outward, every face a grid of quads, so that vertices lie along
 * every edge and across every face (a 1 x 0.1 x 0.1 beam gets 20 x 2 x 2 segments: vertex columns along its
 * length and at both ends). `segmentsPerMetre` sets the grid density directly; each side gets at least 2.
 */
export function boxMesh(lx: number, ly: number, lz: number, segmentsPerMetre?: number): TriangleMesh {
  const sizes = [lx, ly, lz];
  if (!sizes.every((l) => Number.isFinite(l) && l > 0)) {
    throw new MeshError(`box sides must be positive finite lengths, got ${lx} x ${ly} x ${lz}`);
  }
  if (segmentsPerMetre !== undefined && !(Number.isFinite(segmentsPerMetre) && segmentsPerMetre > 0)) {
    throw new MeshError(`segmentsPerMetre must be a positive finite number, got ${segmentsPerMetre}`);
  }
  const longest = Math.max(lx, ly, lz);
  const segments = sizes.map((l) => {
    const wanted = segmentsPerMetre === undefined ? (DEFAULT_SEGMENTS_ON_LONGEST_SIDE * l) / longest : l * segmentsPerMetre;
    return Math.max(MIN_SEGMENTS_PER_SIDE, Math.ceil(wanted - 1e-9));
  });
  const [nx, ny, nz] = segments;
  const triangleCount = 4 * (nx * ny + ny * nz + nz * nx);
  if (triangleCount > MESH_LIMITS.maxTriangles) {
    throw new MeshError(`a box with ${nx} x ${ny} x ${nz} segments has ${triangleCount} triangles; the limit is ${MESH_LIMITS.maxTriangles}`);
  }

  // Grid coordinate i of n along a side of length l; the ends are exact so faces meet bit-identically.
  const coordinate = (axis: number, i: number): number => {
    const l = sizes[axis], n = segments[axis];
    return i === n ? l / 2 : -l / 2 + (l * i) / n;
  };

  let vertexCount = 0;
  for (let axis = 0; axis < 3; axis++) vertexCount += 2 * (segments[(axis + 1) % 3] + 1) * (segments[(axis + 2) % 3] + 1);
  const positions = new Float64Array(3 * vertexCount);
  const triangles = new Uint32Array(3 * triangleCount);
  let v = 0, t = 0;
  for (let axis = 0; axis < 3; axis++) {
    // (u, v, axis) is a right-handed frame, so u x v points along +axis.
    const uAxis = (axis + 1) % 3, vAxis = (axis + 2) % 3;
    const nu = segments[uAxis], nv = segments[vAxis];
    for (const side of [-1, 1]) {
      const first = v;
      for (let j = 0; j <= nv; j++) {
        for (let i = 0; i <= nu; i++) {
          positions[3 * v + axis] = (side * sizes[axis]) / 2;
          positions[3 * v + uAxis] = coordinate(uAxis, i);
          positions[3 * v + vAxis] = coordinate(vAxis, j);
          v++;
        }
      }
      for (let j = 0; j < nv; j++) {
        for (let i = 0; i < nu; i++) {
          const a = first + j * (nu + 1) + i, b = a + 1, c = a + nu + 2, d = a + nu + 1;
          // Counter-clockwise seen from outside: (a, b, c), (a, c, d) on the + side, mirrored on the - side.
          const second = side > 0 ? b : c, third = side > 0 ? c : b;
          const fifth = side > 0 ? c : d, sixth = side > 0 ? d : c;
          triangles[t++] = a;
          triangles[t++] = second;
          triangles[t++] = third;
          triangles[t++] = a;
          triangles[t++] = fifth;
          triangles[t++] = sixth;
        }
      }
    }
  }
  // Faces were built separately; merging their shared edge vertices closes the box.
  return cleanMesh({ positions, triangles });
}
