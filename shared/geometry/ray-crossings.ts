// Exact winding numbers of a closed, consistently oriented triangle mesh: the signed count of the surface's
// crossings by a ray from the point along +x (an exit, where the surface faces +x, counts +1; an entry -1). On such a
// mesh it is the generalised winding number itself (an integer), found from the few triangles whose (y, z)
// shadow holds the point, where the fast winding-number tree descends deep near the surface (several times the
// cost). Triangles are binned by their (y, z) bounds on a grid of about one bin a triangle.
//
// A ray through an edge or a vertex must count one crossing there, not two or none: each edge's side test is
// computed once per edge, with its vertices in index order (so the two triangles sharing it see exactly negated
// values), and a point on an edge belongs to the triangle for which that edge is a "top-left" one (the fill rule
// of rasterisers), with every triangle's shadow taken counter-clockwise. Shadows of neighbours that fold over
// each other (a silhouette) are traversed the same way, so both or neither count, with opposite signs.

export class RayCrossings {
  private readonly minY: number;
  private readonly minZ: number;
  private readonly binsY: number;
  private readonly binsZ: number;
  private readonly binY: number;
  private readonly binZ: number;
  /** Triangles of each bin, CSR: binStart[b] .. binStart[b + 1] index binTriangles. */
  private readonly binStart: Int32Array;
  private readonly binTriangles: Int32Array;
  /** Per triangle: the sign of its normal's x (its shadow's orientation), 0 for a shadow without area. */
  private readonly facing: Int8Array;

  constructor(private readonly positions: Float64Array, private readonly triangles: Uint32Array) {
    const count = triangles.length / 3, p = positions;
    let minY = Infinity, maxY = -Infinity, minZ = Infinity, maxZ = -Infinity;
    for (let v = 0; v < p.length; v += 3) {
      minY = Math.min(minY, p[v + 1]); maxY = Math.max(maxY, p[v + 1]);
      minZ = Math.min(minZ, p[v + 2]); maxZ = Math.max(maxZ, p[v + 2]);
    }
    const spanY = Math.max(maxY - minY, 1e-300), spanZ = Math.max(maxZ - minZ, 1e-300);
    // About one bin a triangle, shaped like the shadow's box.
    const side = Math.sqrt(Math.max(1, count) / (spanY * spanZ));
    this.binsY = Math.max(1, Math.min(1024, Math.round(spanY * side)));
    this.binsZ = Math.max(1, Math.min(1024, Math.round(spanZ * side)));
    this.minY = minY;
    this.minZ = minZ;
    this.binY = spanY / this.binsY;
    this.binZ = spanZ / this.binsZ;
    this.facing = new Int8Array(count);
    const ranges = new Int32Array(4 * count), sizes = new Int32Array(this.binsY * this.binsZ + 1);
    for (let t = 0; t < count; t++) {
      const a = 3 * triangles[3 * t], b = 3 * triangles[3 * t + 1], c = 3 * triangles[3 * t + 2];
      const normalX = (p[b + 1] - p[a + 1]) * (p[c + 2] - p[a + 2]) - (p[b + 2] - p[a + 2]) * (p[c + 1] - p[a + 1]);
      this.facing[t] = Math.sign(normalX);
      if (normalX === 0) continue;
      const y0 = this.column(Math.min(p[a + 1], p[b + 1], p[c + 1]), minY, this.binY, this.binsY), y1 = this.column(Math.max(p[a + 1], p[b + 1], p[c + 1]), minY, this.binY, this.binsY);
      const z0 = this.column(Math.min(p[a + 2], p[b + 2], p[c + 2]), minZ, this.binZ, this.binsZ), z1 = this.column(Math.max(p[a + 2], p[b + 2], p[c + 2]), minZ, this.binZ, this.binsZ);
      ranges.set([y0, y1, z0, z1], 4 * t);
      for (let k = z0; k <= z1; k++) for (let j = y0; j <= y1; j++) sizes[j + this.binsY * k + 1]++;
    }
    for (let b = 0; b < this.binsY * this.binsZ; b++) sizes[b + 1] += sizes[b];
    this.binStart = sizes;
    this.binTriangles = new Int32Array(sizes[this.binsY * this.binsZ]);
    const fill = sizes.slice(0, this.binsY * this.binsZ);
    for (let t = 0; t < count; t++) {
      if (this.facing[t] === 0) continue;
      for (let k = ranges[4 * t + 2]; k <= ranges[4 * t + 3]; k++) for (let j = ranges[4 * t]; j <= ranges[4 * t + 1]; j++) this.binTriangles[fill[j + this.binsY * k]++] = t;
    }
  }

  /** The winding number at (x, y, z): an integer (0 outside, 1 inside an outward-wound solid). */
  windingNumber(x: number, y: number, z: number): number {
    if (!(y >= this.minY && z >= this.minZ)) return 0;
    const j = Math.floor((y - this.minY) / this.binY), k = Math.floor((z - this.minZ) / this.binZ);
    if (j > this.binsY || k > this.binsZ) return 0;
    const bin = Math.min(j, this.binsY - 1) + this.binsY * Math.min(k, this.binsZ - 1);
    const p = this.positions, tri = this.triangles;
    let winding = 0;
    for (let at = this.binStart[bin], end = this.binStart[bin + 1]; at < end; at++) {
      const t = this.binTriangles[at], s = this.facing[t];
      const a = tri[3 * t], b = tri[3 * t + 1], c = tri[3 * t + 2];
      // The shadow taken counter-clockwise: each edge's side test times the facing must be positive, or zero on a top-left edge.
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

  /** Whether (y, z) is on the inner side of edge u -> v of a shadow of orientation s (counter-clockwise once times s), or on a top-left edge. */
  private onInnerSide(u: number, v: number, s: number, y: number, z: number): boolean {
    const p = this.positions, lo = 3 * Math.min(u, v), hi = 3 * Math.max(u, v);
    const dy = p[hi + 1] - p[lo + 1], dz = p[hi + 2] - p[lo + 2];
    // Side of (y, z) against the edge in index order, then as traversed, then counter-clockwise.
    const flip = (u < v ? 1 : -1) * s;
    const side = (dy * (z - p[lo + 2]) - dz * (y - p[lo + 1])) * flip;
    if (side !== 0) return side > 0;
    // On the edge: its direction as traversed counter-clockwise decides (exactly one of two opposite directions is top-left).
    const ey = dy * flip, ez = dz * flip;
    return ez < 0 || (ez === 0 && ey > 0);
  }

  private column(value: number, min: number, size: number, count: number): number {
    return Math.min(count - 1, Math.max(0, Math.floor((value - min) / size)));
  }
}
