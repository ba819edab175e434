import type { Rig } from "../skeleton/rig";

/** An indexed triangle mesh: positions hold x, y, z per vertex; triangles hold three vertex indices each. */
export interface TriangleMesh {
  positions: Float64Array; // 3 * vertexCount
  triangles: Uint32Array; // 3 * triangleCount
  /**
   * Texture coordinates, when the file has them: u, v per UV point (OBJ's convention, v up the image; a glTF's
   * are flipped on reading), and for every triangle corner the UV point it uses (3 * triangleCount, parallel to
   * `triangles`). A second index, as in OBJ files, so that a texture seam does not split the mesh the physics sees.
   */
  uvs?: Float64Array;
  uvTriangles?: Uint32Array;
  /**
   * Vertex colours, when the file has them (a glTF's COLOR_0): linear r, g, b per colour point, and for every
   * triangle corner the colour point it uses (parallel to `triangles`), a second index as for `uvs`.
   */
  colors?: Float64Array;
  colorTriangles?: Uint32Array;
  /**
   * A rigged mesh (a glTF skin): per vertex its four joints (the skin's joint indices) and weights summing to 1,
   * and the rig itself (nodes, inverse binds, clips). The positions are the bind pose.
   */
  skinJoints?: Uint16Array;
  skinWeights?: Float32Array;
  rig?: Rig;
}

/** Axis-aligned bounding box. */
export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}
