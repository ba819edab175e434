// Held-out procedural solids for judging skinning fields against full FEM: unions of grid cells (bars with a
// kink, letters, tables, creatures, rings with a hole, 3D crosses), the cells stretched by a random scale per
// axis and the whole turned by a random rotation, so nothing lines up with the voxel grids that the fields are
// solved on. The surface is every exposed cell face, welded at shared corners: closed and manifold, so tetgen
// meshes it. Deterministic per index; no network was trained on them.

import { Random, type TriangleMesh } from "../../shared/geometry";

export const HELD_OUT_FAMILIES = ["bar", "letter", "table", "creature", "ring", "cross"] as const;
export type HeldOutFamily = (typeof HELD_OUT_FAMILIES)[number];

export interface HeldOutShape {
  name: string;
  family: HeldOutFamily;
  mesh: TriangleMesh;
}

/** Seeds of the held-out set start here (far from any training seed). */
const SEED_BASE = 900_001;

export function heldOutShape(index: number): HeldOutShape {
  if (!Number.isInteger(index) || index < 0 || index > 9999) throw new RangeError(`held-out shape index must be an integer in [0, 9999], got ${index}`);
  const random = new Random(SEED_BASE + index);
  const family = HELD_OUT_FAMILIES[index % HELD_OUT_FAMILIES.length];
  const cells = new CellSet();
  build(family, cells, random);
  cells.makeManifold();
  const scale = [0, 1, 2].map(() => 0.6 + 0.8 * random.next());
  return { name: `heldout-${index}-${family}`, family, mesh: rotated(cells.surface(scale), random) };
}

/** Integer in [lo, hi]. */
function between(random: Random, lo: number, hi: number): number {
  return lo + Math.floor(random.next() * (hi - lo + 1));
}

function build(family: HeldOutFamily, cells: CellSet, random: Random): void {
  const t = between(random, 1, 2);
  switch (family) {
    case "bar": {
      const first = between(random, 5, 9), second = between(random, 0, 5);
      cells.box([0, 0, 0], [first, t, t]);
      if (second > 0) cells.box([first - t, t, 0], [first, t + second, t]);
      break;
    }
    case "letter": {
      // L, T, U or H in the x-y plane, t cells thick.
      const w = between(random, 4, 7), h = between(random, 4, 7), letter = between(random, 0, 3);
      if (letter === 0) { cells.box([0, 0, 0], [t, h, t]); cells.box([0, 0, 0], [w, t, t]); }
      if (letter === 1) { cells.box([0, h - t, 0], [w, h, t]); cells.box([(w - t) >> 1, 0, 0], [((w - t) >> 1) + t, h, t]); }
      if (letter === 2) { cells.box([0, 0, 0], [t, h, t]); cells.box([w - t, 0, 0], [w, h, t]); cells.box([0, 0, 0], [w, t, t]); }
      if (letter === 3) { cells.box([0, 0, 0], [t, h, t]); cells.box([w - t, 0, 0], [w, h, t]); cells.box([0, (h - t) >> 1, 0], [w, ((h - t) >> 1) + t, t]); }
      break;
    }
    case "table": {
      const w = between(random, 4, 7), d = between(random, 3, 6), legs = between(random, 2, 4);
      cells.box([0, legs, 0], [w, legs + 1, d]);
      for (const [x, z] of [[0, 0], [w - 1, 0], [0, d - 1], [w - 1, d - 1]]) cells.box([x, 0, z], [x + 1, legs, z + 1]);
      break;
    }
    case "creature": {
      const length = between(random, 3, 6), legs = between(random, 1, 3), neck = between(random, 1, 3);
      cells.box([0, legs, 0], [length, legs + 2, 2]);
      for (const [x, z] of [[0, 0], [length - 1, 0], [0, 1], [length - 1, 1]]) cells.box([x, 0, z], [x + 1, legs, z + 1]);
      cells.box([length - 1, legs + 2, 0], [length, legs + 2 + neck, 1]);
      cells.box([length - 1, legs + 2 + neck, 0], [length + 1, legs + 3 + neck, 2]);
      cells.box([-between(random, 1, 3), legs + 1, 0], [0, legs + 2, 1]);
      break;
    }
    case "ring": {
      const outer = between(random, 5, 8), hole = between(random, 1, outer - 4);
      const lo = (outer - hole) >> 1;
      cells.box([0, 0, 0], [outer, outer, t]);
      cells.remove([lo, lo, 0], [lo + hole, lo + hole, t]);
      break;
    }
    case "cross": {
      const arms = [0, 1, 2].map(() => between(random, 2, 4));
      cells.box([-arms[0], 0, 0], [arms[0] + 1, 1, 1]);
      cells.box([0, -arms[1], 0], [1, arms[1] + 1, 1]);
      cells.box([0, 0, -arms[2]], [1, 1, arms[2] + 1]);
      break;
    }
  }
}

class CellSet {
  private readonly filled = new Set<string>();

  box(lo: number[], hi: number[]): void {
    for (let i = lo[0]; i < hi[0]; i++) for (let j = lo[1]; j < hi[1]; j++) for (let k = lo[2]; k < hi[2]; k++) this.filled.add(key(i, j, k));
  }

  remove(lo: number[], hi: number[]): void {
    for (let i = lo[0]; i < hi[0]; i++) for (let j = lo[1]; j < hi[1]; j++) for (let k = lo[2]; k < hi[2]; k++) this.filled.delete(key(i, j, k));
  }

  has(i: number, j: number, k: number): boolean {
    return this.filled.has(key(i, j, k));
  }

  /** Fills a cell beside every pair of cells that touch only along an edge or at a corner (non-manifold). */
  makeManifold(): void {
    for (let changed = true; changed; ) {
      changed = false;
      for (const cell of [...this.filled]) {
        const [i, j, k] = cell.split(",").map(Number);
        for (let di = -1; di <= 1; di++) for (let dj = -1; dj <= 1; dj++) for (let dk = -1; dk <= 1; dk++) {
          const steps = Math.abs(di) + Math.abs(dj) + Math.abs(dk);
          if (steps < 2 || !this.has(i + di, j + dj, k + dk)) continue;
          // Joined through a face-connected path inside the pair's bounding block?
          if (this.faceJoined(i, j, k, di, dj, dk)) continue;
          // Fill the path that steps in x, then y, then z, short of the far cell.
          const path = [[i + di, j, k], [i + di, j + dj, k]].filter(([a, b, c]) => !(a === i + di && b === j + dj && c === k + dk) && !(a === i && b === j && c === k));
          for (const [a, b, c] of path) this.filled.add(key(a, b, c));
          changed = true;
        }
      }
    }
  }

  private faceJoined(i: number, j: number, k: number, di: number, dj: number, dk: number): boolean {
    // Breadth-first over the filled cells of the block spanned by the two cells, by faces.
    const lo = [Math.min(i, i + di), Math.min(j, j + dj), Math.min(k, k + dk)], hi = [Math.max(i, i + di), Math.max(j, j + dj), Math.max(k, k + dk)];
    const seen = new Set([key(i, j, k)]), queue = [[i, j, k]];
    while (queue.length > 0) {
      const [a, b, c] = queue.pop()!;
      if (a === i + di && b === j + dj && c === k + dk) return true;
      for (const [x, y, z] of [[a + 1, b, c], [a - 1, b, c], [a, b + 1, c], [a, b - 1, c], [a, b, c + 1], [a, b, c - 1]]) {
        if (x < lo[0] || y < lo[1] || z < lo[2] || x > hi[0] || y > hi[1] || z > hi[2]) continue;
        const name = key(x, y, z);
        if (seen.has(name) || !this.filled.has(name)) continue;
        seen.add(name);
        queue.push([x, y, z]);
      }
    }
    return false;
  }

  /** Every exposed face as two outward triangles, corners shared; cell edges `scale` long per axis. */
  surface(scale: number[]): TriangleMesh {
    const vertexOf = new Map<string, number>(), positions: number[] = [], triangles: number[] = [];
    const vertex = (i: number, j: number, k: number) => {
      const name = key(i, j, k);
      let index = vertexOf.get(name);
      if (index === undefined) {
        index = positions.length / 3;
        vertexOf.set(name, index);
        positions.push(i * scale[0], j * scale[1], k * scale[2]);
      }
      return index;
    };
    for (const cell of this.filled) {
      const [i, j, k] = cell.split(",").map(Number);
      for (let axis = 0; axis < 3; axis++) for (const side of [0, 1]) {
        const n = [i, j, k];
        n[axis] += side ? 1 : -1;
        if (this.has(n[0], n[1], n[2])) continue;
        // The face's corners in counter-clockwise order seen from outside.
        const u = (axis + 1) % 3, v = (axis + 2) % 3, corner = (du: number, dv: number) => {
          const c = [i, j, k];
          c[axis] += side;
          c[u] += du;
          c[v] += dv;
          return vertex(c[0], c[1], c[2]);
        };
        const quad = side ? [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)] : [corner(0, 0), corner(0, 1), corner(1, 1), corner(1, 0)];
        triangles.push(quad[0], quad[1], quad[2], quad[0], quad[2], quad[3]);
      }
    }
    return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
  }
}

function key(i: number, j: number, k: number): string {
  return `${i},${j},${k}`;
}

/** The mesh turned by a uniformly random rotation (a random unit quaternion). */
function rotated(mesh: TriangleMesh, random: Random): TriangleMesh {
  const u1 = random.next(), u2 = random.next() * 2 * Math.PI, u3 = random.next() * 2 * Math.PI;
  const a = Math.sqrt(1 - u1), b = Math.sqrt(u1);
  const [x, y, z, w] = [a * Math.sin(u2), a * Math.cos(u2), b * Math.sin(u3), b * Math.cos(u3)];
  const r = [
    1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
    2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
    2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
  ];
  const p = mesh.positions, out = new Float64Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    for (let row = 0; row < 3; row++) out[i + row] = r[3 * row] * p[i] + r[3 * row + 1] * p[i + 1] + r[3 * row + 2] * p[i + 2];
  }
  return { positions: out, triangles: mesh.triangles };
}
