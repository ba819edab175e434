/**
 * A uniform grid over a fixed set of points that answers "which point is nearest to q" by searching shells
 * of cells outward from q's cell, stopping once no unsearched cell can hold anything closer. Built in
 * O(points) by counting sort; queries allocate nothing.
 */
export class NearestPointGrid {
  /** Squared distance to the point the last `nearest` call returned. */
  lastDistance2 = Infinity;
  private readonly points: Float64Array;
  private readonly min: [number, number, number];
  private readonly cellSize: number;
  private readonly dims: [number, number, number];
  private readonly cellStart: Int32Array;
  private readonly cellItems: Int32Array;

  /** `cellSize` is best near the typical spacing of the points. Queries should lie within `bounds`. */
  constructor(points: Float64Array, bounds: { min: [number, number, number]; max: [number, number, number] }, cellSize: number) {
    this.points = points;
    this.min = [bounds.min[0], bounds.min[1], bounds.min[2]];
    this.cellSize = cellSize;
    this.dims = [0, 1, 2].map((k) => Math.max(1, Math.floor((bounds.max[k] - bounds.min[k]) / cellSize) + 1)) as [number, number, number];
    const count = points.length / 3;
    const cellCount = this.dims[0] * this.dims[1] * this.dims[2];
    const cellOfPoint = new Int32Array(count);
    this.cellStart = new Int32Array(cellCount + 1);
    for (let i = 0; i < count; i++) {
      const cell = this.cellIndex(this.cellCoordinate(points[3 * i], 0), this.cellCoordinate(points[3 * i + 1], 1), this.cellCoordinate(points[3 * i + 2], 2));
      cellOfPoint[i] = cell;
      this.cellStart[cell + 1]++;
    }
    for (let c = 0; c < cellCount; c++) this.cellStart[c + 1] += this.cellStart[c];
    const fill = this.cellStart.slice(0, cellCount);
    this.cellItems = new Int32Array(count);
    for (let i = 0; i < count; i++) this.cellItems[fill[cellOfPoint[i]]++] = i;
  }

  /** Index of the point nearest to (x, y, z); ties go to the first one met. -1 if there are no points. */
  nearest(x: number, y: number, z: number): number {
    const [nx, ny, nz] = this.dims;
    const cx = this.cellCoordinate(x, 0), cy = this.cellCoordinate(y, 1), cz = this.cellCoordinate(z, 2);
    const maxRing = Math.max(nx, ny, nz);
    const points = this.points, cellStart = this.cellStart, cellItems = this.cellItems;
    let best = -1, bestDistance2 = Infinity;
    for (let ring = 0; ring <= maxRing; ring++) {
      for (let dz = -ring; dz <= ring; dz++) {
        const iz = cz + dz;
        if (iz < 0 || iz >= nz) continue;
        for (let dy = -ring; dy <= ring; dy++) {
          const iy = cy + dy;
          if (iy < 0 || iy >= ny) continue;
          // Only the shell of the (2 ring + 1)^3 block is new: inner rows need just their two end cells.
          const onFace = dz === -ring || dz === ring || dy === -ring || dy === ring;
          const step = onFace || ring === 0 ? 1 : 2 * ring;
          for (let dx = -ring; dx <= ring; dx += step) {
            const ix = cx + dx;
            if (ix < 0 || ix >= nx) continue;
            const cell = ix + nx * (iy + ny * iz);
            for (let k = cellStart[cell], end = cellStart[cell + 1]; k < end; k++) {
              const p = 3 * cellItems[k];
              const ex = points[p] - x, ey = points[p + 1] - y, ez = points[p + 2] - z;
              const d2 = ex * ex + ey * ey + ez * ez;
              if (d2 < bestDistance2) {
                bestDistance2 = d2;
                best = p / 3;
              }
            }
          }
        }
      }
      // Anything in ring + 1 or beyond is at least ring * cellSize away from the query.
      const reach = ring * this.cellSize;
      if (best >= 0 && bestDistance2 <= reach * reach) break;
    }
    this.lastDistance2 = bestDistance2;
    return best;
  }

  private cellCoordinate(value: number, axis: number): number {
    const c = Math.floor((value - this.min[axis]) / this.cellSize);
    return c < 0 ? 0 : c >= this.dims[axis] ? this.dims[axis] - 1 : c;
  }

  private cellIndex(ix: number, iy: number, iz: number): number {
    return ix + this.dims[0] * (iy + this.dims[1] * iz);
  }
}
