/** An indexed triangle mesh: positions hold x, y, z per vertex; triangles hold three vertex indices each. */
export interface TriangleMesh {
  positions: Float64Array; // 3 * vertexCount
  triangles: Uint32Array; // 3 * triangleCount
}

/** Axis-aligned bounding box. */
export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}
