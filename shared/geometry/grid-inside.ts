// The inside test over a regular grid of points, one a cell, done coherently: only cells the surface crosses, and a
// few points of each region of the others, are tested (createInsideTest's containsInGrid).

import type { WindingInsideTest } from "./inside-test";
import type { TriangleMesh } from "./types";

/** Cells of a probed region that are tested; more when the region is larger (one in PROBE_SHARE, at least MIN_PROBES). */
const MIN_PROBES = 8;
const PROBE_SHARE = 64;
/** A probe's winding number must be this far from the 0.5 threshold for its region to be classified by probes. */
const PROBE_MARGIN = 0.3;

/**
 * Whether each cell's point (`points`, 3 a cell, each within its own cell) is inside. The inside test is coherent: a cell no triangle
 * reaches (its box clear of every triangle's plane within the triangle's bounding box) lies wholly on one side of the
 * surface, and so does every region of such cells joined by faces. Each region is classified by a few of its own
 * points (spread through it), accepted only when they agree and are clearly inside or outside (winding numbers far
 * from 0.5, which a hole in the surface would not give); otherwise, and in the cells the surface crosses, every point
 * is tested. A closed mesh then needs a test only near its surface: a few times fewer tests than cells.
 */
export function classifyGridCells(mesh: TriangleMesh, inside: WindingInsideTest, n: [number, number, number], min: ArrayLike<number>, cell: ArrayLike<number>, points: Float64Array): Uint8Array {
  const [nx, ny, nz] = n, cells = nx * ny * nz, result = new Uint8Array(cells);
  const test = (c: number) => (result[c] = inside.contains(points[3 * c], points[3 * c + 1], points[3 * c + 2]) ? 1 : 0);
  const winding = inside.windingNumber;
  const crossed = surfaceCells(mesh, n, min, cell);
  // Regions of uncrossed cells (6-connected), each flood-filled into `order` with its start in `regionStart`.
  const region = new Int32Array(cells).fill(-1), order = new Int32Array(cells), stack = new Int32Array(cells);
  let filled = 0;
  for (let seed = 0; seed < cells; seed++) {
    if (crossed[seed]) {
      test(seed);
      continue;
    }
    if (region[seed] >= 0) continue;
    const start = filled;
    let top = 0;
    stack[top++] = seed;
    region[seed] = seed;
    while (top > 0) {
      const c = stack[--top];
      order[filled++] = c;
      const i = c % nx, j = Math.floor(c / nx) % ny, k = Math.floor(c / (nx * ny));
      // The six face neighbours not crossed and not yet in a region join this one.
      for (let side = 0; side < 6; side++) {
        const axis = side >> 1, up = side & 1;
        const at = axis === 0 ? i : axis === 1 ? j : k, count = axis === 0 ? nx : axis === 1 ? ny : nz;
        if (up ? at + 1 >= count : at === 0) continue;
        const step = axis === 0 ? 1 : axis === 1 ? nx : nx * ny, other = up ? c + step : c - step;
        if (crossed[other] || region[other] >= 0) continue;
        region[other] = seed;
        stack[top++] = other;
      }
    }
    const size = filled - start, probes = Math.min(size, Math.max(MIN_PROBES, Math.ceil(size / PROBE_SHARE)));
    let agreed = -1;
    for (let q = 0; q < probes; q++) {
      const c = order[start + Math.floor((q * size) / probes)];
      const w = Math.abs(winding(points[3 * c], points[3 * c + 1], points[3 * c + 2]));
      const side = w > 0.5 ? 1 : 0;
      if (Math.abs(w - 0.5) < PROBE_MARGIN || (agreed >= 0 && side !== agreed)) {
        agreed = -2;
        break;
      }
      agreed = side;
    }
    for (let at = start; at < filled; at++) {
      if (agreed >= 0) result[order[at]] = agreed;
      else test(order[at]);
    }
  }
  return result;
}

/**
 * Cells the surface may cross: for each triangle, the cells of its bounding box whose box reaches the triangle's
 * plane (a conservative test: a cell left unmarked holds no part of any triangle).
 */
function surfaceCells(mesh: TriangleMesh, n: [number, number, number], min: ArrayLike<number>, cell: ArrayLike<number>): Uint8Array {
  const [nx, ny, nz] = n, marked = new Uint8Array(nx * ny * nz), p = mesh.positions, t = mesh.triangles;
  const half = [cell[0] / 2, cell[1] / 2, cell[2] / 2];
  const index = (x: number, axis: number, count: number) => Math.min(count - 1, Math.max(0, Math.floor((x - min[axis]) / cell[axis])));
  for (let f = 0; f < t.length; f += 3) {
    const a = 3 * t[f], b = 3 * t[f + 1], c = 3 * t[f + 2];
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    const normalX = uy * vz - uz * vy, normalY = uz * vx - ux * vz, normalZ = ux * vy - uy * vx;
    // A box of half-extents h reaches the plane when |normal . (centre - a)| <= sum |normal_i| h_i (a margin for rounding).
    const reach = (Math.abs(normalX) * half[0] + Math.abs(normalY) * half[1] + Math.abs(normalZ) * half[2]) * (1 + 1e-9) + 1e-300;
    const i0 = index(Math.min(p[a], p[b], p[c]), 0, nx), i1 = index(Math.max(p[a], p[b], p[c]), 0, nx);
    const j0 = index(Math.min(p[a + 1], p[b + 1], p[c + 1]), 1, ny), j1 = index(Math.max(p[a + 1], p[b + 1], p[c + 1]), 1, ny);
    const k0 = index(Math.min(p[a + 2], p[b + 2], p[c + 2]), 2, nz), k1 = index(Math.max(p[a + 2], p[b + 2], p[c + 2]), 2, nz);
    for (let k = k0; k <= k1; k++) {
      const cz = min[2] + (k + 0.5) * cell[2] - p[a + 2];
      for (let j = j0; j <= j1; j++) {
        const cy = min[1] + (j + 0.5) * cell[1] - p[a + 1];
        for (let i = i0; i <= i1; i++) {
          const cx = min[0] + (i + 0.5) * cell[0] - p[a];
          if (Math.abs(normalX * cx + normalY * cy + normalZ * cz) <= reach) marked[i + nx * (j + ny * k)] = 1;
        }
      }
    }
  }
  return marked;
}
