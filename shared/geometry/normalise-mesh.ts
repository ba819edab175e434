import { meshBounds } from "./bounds";
import { MeshError } from "./mesh-error";
import type { TriangleMesh } from "./types";

/**
 * Moves the bounding-box centre to the origin and scales uniformly so the largest extent spans [-1, 1]
 * (aspect ratio kept): normalised = (p - center) / scale. The input is not modified.
 */
export function normaliseMesh(mesh: TriangleMesh): { mesh: TriangleMesh; center: [number, number, number]; scale: number } {
  const { min, max } = meshBounds(mesh.positions);
  const center: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
  const scale = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2;
  if (!(scale > 0) || !Number.isFinite(scale)) {
    throw new MeshError(`cannot normalise a mesh whose bounding box has largest extent ${2 * scale}; it must be positive and finite`);
  }
  const source = mesh.positions;
  const positions = new Float64Array(source.length);
  for (let i = 0; i < source.length; i += 3) {
    positions[i] = (source[i] - center[0]) / scale;
    positions[i + 1] = (source[i + 1] - center[1]) / scale;
    positions[i + 2] = (source[i + 2] - center[2]) / scale;
  }
  const textured = mesh.uvs && mesh.uvTriangles ? { uvs: mesh.uvs.slice(), uvTriangles: mesh.uvTriangles.slice() } : {};
  const coloured = mesh.colors && mesh.colorTriangles ? { colors: mesh.colors.slice(), colorTriangles: mesh.colorTriangles.slice() } : {};
  const rigged = mesh.skinJoints && mesh.skinWeights ? { skinJoints: mesh.skinJoints.slice(), skinWeights: mesh.skinWeights.slice(), ...(mesh.rig ? { rig: mesh.rig } : {}) } : {};
  return { mesh: { positions, triangles: mesh.triangles.slice(), ...textured, ...coloured, ...rigged }, center, scale };
}
