import { boundsDiagonal } from "./bounds";
import { checkCountLimits, resolveLimits, type MeshLimits } from "./limits";
import { MeshError } from "./mesh-error";
import { mergeCloseVertices } from "./merge-vertices";
import type { Bounds, TriangleMesh } from "./types";

export interface CleanMeshOptions {
  limits?: Partial<MeshLimits>;
  /** Vertices closer than this fraction of the bounding-box diagonal are merged. Default 1e-7. */
  mergeTolerance?: number;
  /** Triangles with area below this fraction of the squared diagonal are dropped. Default 1e-12. */
  degenerateArea?: number;
}

/**
 * Validates a mesh and makes it usable for sampling and inside tests: merges duplicate vertices (tolerance
 * relative to the bounding-box diagonal, so it works in any unit), drops degenerate triangles (repeated
 * vertices or near-zero area) and unreferenced vertices. Surviving vertices keep their relative order.
 * Throws MeshError on malformed arrays, out-of-range indices, NaN/Infinity, over-limit sizes (triangles as
 * given, vertices after merging) or when no triangle survives.
 */
export function cleanMesh(mesh: TriangleMesh, options: CleanMeshOptions = {}): TriangleMesh {
  const limits = resolveLimits(options.limits);
  const { positions, triangles } = mesh;
  if (positions.length % 3 !== 0) throw new MeshError(`positions has length ${positions.length}, not a multiple of 3`);
  if (triangles.length % 3 !== 0) throw new MeshError(`triangles has length ${triangles.length}, not a multiple of 3`);
  const vertexCount = positions.length / 3;
  const triangleCount = triangles.length / 3;
  // The vertex limit applies to the merged result: loaders such as OBJLoader emit 3 vertices per triangle.
  checkCountLimits(0, triangleCount, limits);
  if (triangleCount === 0) throw new MeshError("mesh has no triangles");

  const referenced = new Uint8Array(vertexCount);
  for (let i = 0; i < triangles.length; i++) {
    const v = triangles[i];
    if (v >= vertexCount) {
      throw new MeshError(`triangle ${Math.floor(i / 3)} uses vertex ${v}, but the mesh has only ${vertexCount} vertices`);
    }
    referenced[v] = 1;
  }
  const bounds = referencedBounds(positions, referenced);
  const diagonal = boundsDiagonal(bounds);
  if (!(diagonal > 0)) throw new MeshError(`all ${triangleCount} triangles are degenerate: every vertex is at the same point`);

  const tolerance = (options.mergeTolerance ?? 1e-7) * diagonal;
  const representative = mergeCloseVertices(positions, referenced, bounds, tolerance);

  // |cross| is twice the triangle area.
  const minDoubleArea = 2 * (options.degenerateArea ?? 1e-12) * diagonal * diagonal;
  const kept = new Uint32Array(triangles.length);
  const uvTriangles = validCorners(mesh.uvs, mesh.uvTriangles, 2, triangles.length) ? mesh.uvTriangles! : null;
  const keptUVs = uvTriangles ? new Uint32Array(triangles.length) : null;
  const colorTriangles = validCorners(mesh.colors, mesh.colorTriangles, 3, triangles.length) ? mesh.colorTriangles! : null;
  const keptColours = colorTriangles ? new Uint32Array(triangles.length) : null;
  let keptLength = 0;
  for (let i = 0; i < triangles.length; i += 3) {
    const a = representative[triangles[i]], b = representative[triangles[i + 1]], c = representative[triangles[i + 2]];
    if (a === b || b === c || a === c) continue;
    const ux = positions[3 * b] - positions[3 * a], uy = positions[3 * b + 1] - positions[3 * a + 1], uz = positions[3 * b + 2] - positions[3 * a + 2];
    const vx = positions[3 * c] - positions[3 * a], vy = positions[3 * c + 1] - positions[3 * a + 1], vz = positions[3 * c + 2] - positions[3 * a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    if (Math.sqrt(nx * nx + ny * ny + nz * nz) <= minDoubleArea) continue;
    if (keptUVs && uvTriangles) keptUVs.set(uvTriangles.subarray(i, i + 3), keptLength);
    if (keptColours && colorTriangles) keptColours.set(colorTriangles.subarray(i, i + 3), keptLength);
    kept[keptLength++] = a;
    kept[keptLength++] = b;
    kept[keptLength++] = c;
  }
  if (keptLength === 0) {
    throw new MeshError(`all ${triangleCount} triangles are degenerate (zero area or repeated vertices after merging)`);
  }

  // Renumber the vertices that surviving triangles use, in their original order.
  const newIndex = new Int32Array(vertexCount).fill(-1);
  for (let i = 0; i < keptLength; i++) newIndex[kept[i]] = 0;
  let newCount = 0;
  for (let v = 0; v < vertexCount; v++) if (newIndex[v] === 0) newIndex[v] = newCount++;
  checkCountLimits(newCount, keptLength / 3, limits);
  const outPositions = new Float64Array(3 * newCount);
  for (let v = 0; v < vertexCount; v++) {
    const n = newIndex[v];
    if (n < 0) continue;
    outPositions[3 * n] = positions[3 * v];
    outPositions[3 * n + 1] = positions[3 * v + 1];
    outPositions[3 * n + 2] = positions[3 * v + 2];
  }
  const outTriangles = new Uint32Array(keptLength);
  for (let i = 0; i < keptLength; i++) outTriangles[i] = newIndex[kept[i]];
  // A welded vertex keeps its representative's skin weights (seams' copies share them).
  const skinned = mesh.skinJoints && mesh.skinWeights && mesh.skinJoints.length === 4 * vertexCount && mesh.skinWeights.length === 4 * vertexCount;
  const skinJoints = skinned ? new Uint16Array(4 * newCount) : null, skinWeights = skinned ? new Float32Array(4 * newCount) : null;
  if (skinJoints && skinWeights) {
    for (let v = 0; v < vertexCount; v++) {
      const n = newIndex[v];
      if (n < 0) continue;
      skinJoints.set(mesh.skinJoints!.subarray(4 * v, 4 * v + 4), 4 * n);
      skinWeights.set(mesh.skinWeights!.subarray(4 * v, 4 * v + 4), 4 * n);
    }
  }
  return {
    positions: outPositions, triangles: outTriangles,
    ...(keptUVs ? { uvs: mesh.uvs!.slice(), uvTriangles: keptUVs.slice(0, keptLength) } : {}),
    ...(keptColours ? { colors: mesh.colors!.slice(), colorTriangles: keptColours.slice(0, keptLength) } : {}),
    ...(skinJoints && skinWeights ? { skinJoints, skinWeights, ...(mesh.rig ? { rig: mesh.rig } : {}) } : {}),
  };
}

/**
 * Whether a per-corner attribute (texture coordinates, `width` 2; vertex colours, 3) can be kept: one index per
 * triangle corner, all in range, all values finite (else it is dropped, not refused).
 */
function validCorners(values: Float64Array | undefined, corners: Uint32Array | undefined, width: number, triangleCorners: number): boolean {
  if (!values || !corners || values.length % width !== 0 || corners.length !== triangleCorners) return false;
  const count = values.length / width;
  for (let i = 0; i < corners.length; i++) if (corners[i] >= count) return false;
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return false;
  return true;
}

/** Bounds of the vertices that triangles use; throws on a non-finite coordinate among them. */
function referencedBounds(positions: ArrayLike<number>, referenced: Uint8Array): Bounds {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let v = 0; v < referenced.length; v++) {
    if (referenced[v] === 0) continue;
    for (let k = 0; k < 3; k++) {
      const value = positions[3 * v + k];
      if (!Number.isFinite(value)) {
        throw new MeshError(`vertex ${v} has a non-finite coordinate (${value}); all coordinates must be finite numbers`);
      }
      if (value < min[k]) min[k] = value;
      if (value > max[k]) max[k] = value;
    }
  }
  return { min, max };
}
