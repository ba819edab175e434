import { MeshError } from "./mesh-error";

export interface MeshLimits {
  /** Most vertices an input may declare (OBJ `v` lines; glTF POSITION elements summed over instances). */
  maxVertices: number;
  /** Most triangles an input may hold after polygons are triangulated. */
  maxTriangles: number;
  /** Largest input file, in bytes. */
  maxBytes: number;
}

/**
 * Limits on accepted meshes. They bound memory and bake time for untrusted uploads while leaving ample room
 * for real assets: the Stanford bunny has 35,947 vertices / 69,451 triangles / 2.4 MB; 2 M triangles is a
 * heavy photogrammetry scan. 100 MiB caps what a browser or the server must hold while parsing.
 */
export const MESH_LIMITS: Readonly<MeshLimits> = Object.freeze({
  maxVertices: 2_000_000,
  maxTriangles: 2_000_000,
  maxBytes: 100 * 1024 * 1024,
});

/** The default limits with any given overrides (used by tests and by callers that want stricter caps). */
export function resolveLimits(overrides?: Partial<MeshLimits>): MeshLimits {
  return { ...MESH_LIMITS, ...overrides };
}

export function checkCountLimits(vertexCount: number, triangleCount: number, limits: MeshLimits): void {
  if (vertexCount > limits.maxVertices) {
    throw new MeshError(
      `mesh has ${vertexCount.toLocaleString("en")} vertices; the limit is ${limits.maxVertices.toLocaleString("en")}`,
    );
  }
  if (triangleCount > limits.maxTriangles) {
    throw new MeshError(
      `mesh has ${triangleCount.toLocaleString("en")} triangles; the limit is ${limits.maxTriangles.toLocaleString("en")}`,
    );
  }
}
