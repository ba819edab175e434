import type { TriangleMesh } from "./types";

/**
 * Signed enclosed volume (divergence theorem). Exact for a closed mesh; positive when it is wound outward
 * (counter-clockwise seen from outside). For an open mesh it is only a rough figure.
 */
export function signedVolume(mesh: TriangleMesh): number {
  const p = mesh.positions, t = mesh.triangles;
  let sixTimesVolume = 0;
  for (let i = 0; i < t.length; i += 3) {
    const a = 3 * t[i], b = 3 * t[i + 1], c = 3 * t[i + 2];
    const ax = p[a], ay = p[a + 1], az = p[a + 2];
    const bx = p[b], by = p[b + 1], bz = p[b + 2];
    const cx = p[c], cy = p[c + 1], cz = p[c + 2];
    sixTimesVolume += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
  }
  return sixTimesVolume / 6;
}

/** Total triangle area. */
export function surfaceArea(mesh: TriangleMesh): number {
  const areas = triangleAreas(mesh);
  let sum = 0;
  for (let i = 0; i < areas.length; i++) sum += areas[i];
  return sum;
}

/** Area of every triangle. */
export function triangleAreas(mesh: TriangleMesh): Float64Array {
  const p = mesh.positions, t = mesh.triangles;
  const areas = new Float64Array(t.length / 3);
  for (let f = 0; f < areas.length; f++) {
    const a = 3 * t[3 * f], b = 3 * t[3 * f + 1], c = 3 * t[3 * f + 2];
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    areas[f] = 0.5 * Math.sqrt(nx * nx + ny * ny + nz * nz);
  }
  return areas;
}
