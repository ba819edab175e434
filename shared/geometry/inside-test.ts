import { classifyGridCells } from "./grid-inside";
import { MeshError } from "./mesh-error";
import { RayCrossings } from "./ray-crossings";
import type { TriangleMesh } from "./types";
import { WindingNumberTree } from "./winding-number-tree";

export interface InsideTest {
  contains(x: number, y: number, z: number): boolean;
  /**
   * `contains` for one point a cell of a regular grid (`cells` along x, y, z from `min`, edges `cell`; `points` 3 a
   * cell, x fastest), as flags: the same answers, with far fewer tests where the test can tell which cells the
   * surface misses (grid-inside.ts).
   */
  containsInGrid?(cells: [number, number, number], min: ArrayLike<number>, cell: ArrayLike<number>, points: Float64Array): Uint8Array;
  dispose?(): void;
}

export interface WindingInsideTest extends InsideTest {
  /**
   * The generalised winding number behind `contains`: ~1 inside, ~0 outside, ~0.5 across holes
   * (negated for an inward-wound mesh). Far from 0.5 it is the fast estimate, good to a few hundredths.
   */
  windingNumber(x: number, y: number, z: number): number;
}

/** Fast estimates closer than this to the 0.5 threshold are recomputed accurately. */
const AMBIGUOUS_BAND = 0.15;
/** Accuracy (beta) for the recomputation: far-field error below ~0.005. */
const REFINED_ACCURACY = 8;

/** Whether each point, one a cell of the grid (cells, min, cell), is inside: coherently when the test can, else one by one. */
export function insideAtGrid(inside: InsideTest, cells: [number, number, number], min: ArrayLike<number>, cell: ArrayLike<number>, points: Float64Array): Uint8Array {
  if (inside.containsInGrid) return inside.containsInGrid(cells, min, cell, points);
  const out = new Uint8Array(points.length / 3);
  for (let c = 0; c < out.length; c++) out[c] = inside.contains(points[3 * c], points[3 * c + 1], points[3 * c + 2]) ? 1 : 0;
  return out;
}

/**
 * Inside test by winding numbers, |w| > 0.5 (so inward-wound meshes work too). On a closed surface w is an integer
 * off it, counted by a ray's signed crossings with exact side tests (ray-crossings.ts): no far-field estimate, and
 * a fraction of the tree's cost near the surface, where grids need most of their tests. On an open one (holes, gaps), the
 * generalised winding number by the fast tree (winding-number-tree.ts), robust by construction (no ray can slip
 * through a hole and flip a count); its fast estimate is refined with a much tighter far field only when it lands
 * near 0.5.
 */
export function createInsideTest(mesh: TriangleMesh): WindingInsideTest {
  if (mesh.triangles.length < 3) throw new MeshError("cannot build an inside test for a mesh with no triangles");
  // Chosen and built on first use (a caller may never test a point).
  let chosen: { closed: boolean; windingNumber: (x: number, y: number, z: number) => number } | undefined;
  const choose = () => {
    const closed = isClosedSurface(mesh.triangles);
    // A closed surface whose shadow's bins would be too large takes the tree too (its winding number is still constant off it).
    const rays = closed ? RayCrossings.create(mesh.positions, mesh.triangles) : null;
    if (rays) return { closed, windingNumber: (x: number, y: number, z: number) => rays.windingNumber(x, y, z) };
    const tree = new WindingNumberTree(mesh.positions, mesh.triangles);
    return {
      closed,
      windingNumber: (x: number, y: number, z: number) => {
        const fast = tree.windingNumber(x, y, z);
        return Math.abs(Math.abs(fast) - 0.5) < AMBIGUOUS_BAND ? tree.windingNumber(x, y, z, REFINED_ACCURACY) : fast;
      },
    };
  };
  const windingNumber = (x: number, y: number, z: number) => (chosen ??= choose()).windingNumber(x, y, z);
  const test: WindingInsideTest = {
    windingNumber,
    contains: (x, y, z) => Math.abs(windingNumber(x, y, z)) > 0.5,
    // Only a closed surface has a winding number that is constant off it; an open one is tested point by point.
    containsInGrid: (cells, min, cell, points) => {
      if ((chosen ??= choose()).closed) return classifyGridCells(mesh, test, cells, min, cell, points);
      const out = new Uint8Array(points.length / 3);
      for (let c = 0; c < out.length; c++) out[c] = test.contains(points[3 * c], points[3 * c + 1], points[3 * c + 2]) ? 1 : 0;
      return out;
    },
    dispose: () => {},
  };
  return test;
}

/**
 * Whether the triangles close up: every edge a -> b of one triangle is matched by as many b -> a of others (the
 * surface has no boundary), so the winding number is an integer everywhere off it (holes and gaps give 0.5-ish
 * values between). Edges are matched by vertex index.
 */
export function isClosedSurface(triangles: Uint32Array): boolean {
  const balance = new Map<number, number>();
  let vertices = 0;
  for (let i = 0; i < triangles.length; i++) vertices = Math.max(vertices, triangles[i] + 1);
  for (let t = 0; t < triangles.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const a = triangles[t + e], b = triangles[t + ((e + 1) % 3)];
      if (a === b) continue;
      // Keyed by the undirected edge; a -> b counts +1 when a < b, -1 otherwise.
      const key = a < b ? a * vertices + b : b * vertices + a;
      balance.set(key, (balance.get(key) ?? 0) + (a < b ? 1 : -1));
    }
  }
  for (const value of balance.values()) if (value !== 0) return false;
  return true;
}
