// Winding numbers of a closed, consistently oriented triangle mesh: the signed count of the surface's crossings by
// a ray from the point along +x (an exit, where the surface faces +x, counts +1; an entry -1). On such a mesh it is
// the generalised winding number itself (an integer), found from the few triangles whose (y, z) shadow holds the
// point, where the fast winding-number tree descends deep near the surface (several times the cost). Triangles are
// binned by their (y, z) bounds on a grid of about one bin a triangle.
//
// A ray through an edge or a vertex must count one crossing there, not two or none. Every side test is exact
// (Shewchuk's orient2d, robust-predicates), and a point exactly on an edge's line takes the side it would have if
// moved by (epsilon, epsilon^2) in (y, z): the same for every triangle, so the count is that of a ray in general
// position, whatever the mesh's vertices line up with. Only where the point is within rounding of the surface
// itself (the crossing's x against the point's) may it come out on either side.

import { orient2d } from "robust-predicates";

/**
 * Bin entries per triangle above which the bins are not built (long thin triangles across the shadow fill many
 * bins each): the caller uses another inside test.
 */
const MAX_ENTRIES_PER_TRIANGLE = 64;

export class RayCrossings {
  /** The crossings of a mesh, or null when its shadow's bins would hold too many entries (MAX_ENTRIES_PER_TRIANGLE). */
  static create(positions: Float64Array, triangles: Uint32Array): RayCrossings | null {
    const crossings = new RayCrossings(positions, triangles);
    return crossings.binTriangles ? crossings : null;
  }

  private readonly minY: number;
  private readonly minZ: number;
  private readonly binsY: number;
  private readonly binsZ: number;
  private readonly binY: number;
  private readonly binZ: number;
  /** Triangles of each bin, CSR: binStart[b] .. binStart[b + 1] index binTriangles. */
  private readonly binStart: Int32Array;
  private readonly binTriangles: Int32Array | null;
  /** Per triangle: the sign of its normal's x (its shadow's orientation), 0 for a shadow without area. */
  private readonly facing: Int8Array;

  private constructor(private readonly positions: Float64Array, private readonly triangles: Uint32Array) {
    const count = triangles.length / 3, p = positions;
    let minY = Infinity, maxY = -Infinity, minZ = Infinity, maxZ = -Infinity;
    for (let v = 0; v < p.length; v += 3) {
      minY = Math.min(minY, p[v + 1]); maxY = Math.max(maxY, p[v + 1]);
      minZ = Math.min(minZ, p[v + 2]); maxZ = Math.max(maxZ, p[v + 2]);
    }
    const spanY = Math.max(maxY - minY, 1e-300), spanZ = Math.max(maxZ - minZ, 1e-300);
    // About one bin a triangle, shaped like the shadow's box.
    const perLength = Math.sqrt(Math.max(1, count) / (spanY * spanZ));
    this.binsY = Math.max(1, Math.min(1024, Math.round(spanY * perLength)));
    this.binsZ = Math.max(1, Math.min(1024, Math.round(spanZ * perLength)));
    this.minY = minY;
    this.minZ = minZ;
    this.binY = spanY / this.binsY;
    this.binZ = spanZ / this.binsZ;
    this.facing = new Int8Array(count);
    const ranges = new Int32Array(4 * count), sizes = new Int32Array(this.binsY * this.binsZ + 1);
    let entries = 0;
    for (let t = 0; t < count; t++) {
      const a = 3 * triangles[3 * t], b = 3 * triangles[3 * t + 1], c = 3 * triangles[3 * t + 2];
      // The shadow's orientation in (y, z), exactly: the sign of the normal's x.
      const facing = Math.sign(side(p[a + 1], p[a + 2], p[b + 1], p[b + 2], p[c + 1], p[c + 2]));
      this.facing[t] = facing;
      if (facing === 0) continue;
      const y0 = this.column(Math.min(p[a + 1], p[b + 1], p[c + 1]), minY, this.binY, this.binsY), y1 = this.column(Math.max(p[a + 1], p[b + 1], p[c + 1]), minY, this.binY, this.binsY);
      const z0 = this.column(Math.min(p[a + 2], p[b + 2], p[c + 2]), minZ, this.binZ, this.binsZ), z1 = this.column(Math.max(p[a + 2], p[b + 2], p[c + 2]), minZ, this.binZ, this.binsZ);
      ranges[4 * t] = y0;
      ranges[4 * t + 1] = y1;
      ranges[4 * t + 2] = z0;
      ranges[4 * t + 3] = z1;
      entries += (y1 - y0 + 1) * (z1 - z0 + 1);
    }
    if (entries > MAX_ENTRIES_PER_TRIANGLE * Math.max(count, 1024)) {
      this.binStart = new Int32Array(0);
      this.binTriangles = null;
      return;
    }
    for (let t = 0; t < count; t++) {
      if (this.facing[t] === 0) continue;
      for (let k = ranges[4 * t + 2]; k <= ranges[4 * t + 3]; k++) for (let j = ranges[4 * t]; j <= ranges[4 * t + 1]; j++) sizes[j + this.binsY * k + 1]++;
    }
    for (let b = 0; b < this.binsY * this.binsZ; b++) sizes[b + 1] += sizes[b];
    this.binStart = sizes;
    const binTriangles = new Int32Array(sizes[this.binsY * this.binsZ]), fill = sizes.slice(0, this.binsY * this.binsZ);
    for (let t = 0; t < count; t++) {
      if (this.facing[t] === 0) continue;
      for (let k = ranges[4 * t + 2]; k <= ranges[4 * t + 3]; k++) for (let j = ranges[4 * t]; j <= ranges[4 * t + 1]; j++) binTriangles[fill[j + this.binsY * k]++] = t;
    }
    this.binTriangles = binTriangles;
  }

  /** The winding number at (x, y, z): an integer (0 outside, 1 inside an outward-wound solid). */
  windingNumber(x: number, y: number, z: number): number {
    if (!(y >= this.minY && z >= this.minZ)) return 0;
    const j = Math.floor((y - this.minY) / this.binY), k = Math.floor((z - this.minZ) / this.binZ);
    if (j > this.binsY || k > this.binsZ) return 0;
    const bin = Math.min(j, this.binsY - 1) + this.binsY * Math.min(k, this.binsZ - 1);
    const p = this.positions, tri = this.triangles, binTriangles = this.binTriangles!;
    let winding = 0;
    for (let at = this.binStart[bin], end = this.binStart[bin + 1]; at < end; at++) {
      const t = binTriangles[at], s = this.facing[t];
      const a = tri[3 * t], b = tri[3 * t + 1], c = tri[3 * t + 2];
      // Inside the shadow taken counter-clockwise: on the inner side of every edge, a point on an edge's line as if moved.
      if (!this.onInnerSide(a, b, s, y, z) || !this.onInnerSide(b, c, s, y, z) || !this.onInnerSide(c, a, s, y, z)) continue;
      const ax = 3 * a, bx = 3 * b, cx = 3 * c;
      const uy = p[bx + 1] - p[ax + 1], uz = p[bx + 2] - p[ax + 2], vy = p[cx + 1] - p[ax + 1], vz = p[cx + 2] - p[ax + 2];
      const ux = p[bx] - p[ax], vx = p[cx] - p[ax];
      const normalX = uy * vz - uz * vy, normalY = uz * vx - ux * vz, normalZ = ux * vy - uy * vx;
      const crossing = p[ax] - (normalY * (y - p[ax + 1]) + normalZ * (z - p[ax + 2])) / normalX;
      if (crossing > x) winding += s;
    }
    return winding;
  }

  /**
   * Whether (y, z) is on the inner side of edge u -> v of a shadow of orientation s (counter-clockwise once times
   * s), or, exactly on the edge's line, would be once moved by (epsilon, epsilon^2).
   */
  private onInnerSide(u: number, v: number, s: number, y: number, z: number): boolean {
    const p = this.positions, lo = 3 * Math.min(u, v), hi = 3 * Math.max(u, v);
    // As traversed counter-clockwise: the edge in index order, reversed when traversed the other way or the shadow is clockwise.
    const flip = (u < v ? 1 : -1) * s;
    const along = side(p[lo + 1], p[lo + 2], p[hi + 1], p[hi + 2], y, z) * flip;
    if (along !== 0) return along > 0;
    // On the line: the move (epsilon, epsilon^2) is to the left of direction (dy, dz) when dz < 0, or dz = 0 and dy > 0.
    const dy = (p[hi + 1] - p[lo + 1]) * flip, dz = (p[hi + 2] - p[lo + 2]) * flip;
    return dz < 0 || (dz === 0 && dy > 0);
  }

  private column(value: number, min: number, size: number, count: number): number {
    return Math.min(count - 1, Math.max(0, Math.floor((value - min) / size)));
  }
}

/** Exact sign of the cross product (b - a) x (c - a) in the (y, z) plane: positive when c is to the left of a -> b. */
function side(ay: number, az: number, by: number, bz: number, cy: number, cz: number): number {
  // robust-predicates' orient2d is positive for the opposite turn (it takes y as pointing down).
  return -orient2d(ay, az, by, bz, cy, cz);
}
