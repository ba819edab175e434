import { MeshError } from "./mesh-error";
import { triangleAreas } from "./mesh-measures";
import { Random } from "./random";
import type { TriangleMesh } from "./types";

export interface SurfaceSamples {
  /** Sample positions, 3 per sample. */
  points: Float64Array;
  /** Unit face normal of each sample's triangle, 3 per sample (outward for an outward-wound mesh). */
  normals: Float64Array;
  /** Triangle each sample lies on. */
  triangle: Uint32Array;
}

/**
 * Uniform samples over the surface area: a triangle is picked with probability proportional to its area
 * (binary search in the cumulative areas), then a uniform point in it. Deterministic for a seed.
 */
export function sampleSurface(mesh: TriangleMesh, count: number, seed: number): SurfaceSamples {
  if (!Number.isInteger(count) || count < 0 || count > 100_000_000) {
    throw new MeshError(`surface sample count must be an integer from 0 to 100,000,000, got ${count}`);
  }
  const { positions: p, triangles: t } = mesh;
  const areas = triangleAreas(mesh);
  const cumulative = new Float64Array(areas.length);
  let total = 0;
  for (let f = 0; f < areas.length; f++) {
    total += areas[f];
    cumulative[f] = total;
  }
  if (!(total > 0) || !Number.isFinite(total)) throw new MeshError(`cannot sample a surface with total area ${total}; it must be positive and finite`);

  const random = new Random(seed);
  const points = new Float64Array(3 * count);
  const normals = new Float64Array(3 * count);
  const triangle = new Uint32Array(count);
  for (let s = 0; s < count; s++) {
    const target = random.next() * total;
    // First triangle whose cumulative area exceeds the target (zero-area triangles are never chosen).
    let lo = 0, hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] > target) hi = mid;
      else lo = mid + 1;
    }
    const f = lo;
    let u = random.next(), v = random.next();
    if (u + v > 1) {
      u = 1 - u; // fold the far half of the parallelogram back into the triangle
      v = 1 - v;
    }
    const a = 3 * t[3 * f], b = 3 * t[3 * f + 1], c = 3 * t[3 * f + 2];
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    points[3 * s] = p[a] + u * ux + v * vx;
    points[3 * s + 1] = p[a + 1] + u * uy + v * vy;
    points[3 * s + 2] = p[a + 2] + u * uz + v * vz;
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const length = Math.sqrt(nx * nx + ny * ny + nz * nz);
    normals[3 * s] = nx / length;
    normals[3 * s + 1] = ny / length;
    normals[3 * s + 2] = nz / length;
    triangle[s] = f;
  }
  return { points, normals, triangle };
}
