// Rigid obstacles as signed distances for the soft-body solver's contacts (shared/sim ContactSurface, through
// NearbyObstacles): static scene boxes, rigid props that Rapier moves, and the proxy spheres of other soft bodies.
// Nothing here allocates per query; poses are written in place by the world once per tick. Each obstacle answers
// `nearest` with its numbers in arrays: the near obstacles are of several classes, so the call from NearbyObstacles
// is not inlined, and a call that is not inlined boxes the numbers it passes and returns (5 a query: about 20 MiB
// of garbage a second in a full room).

import { quaternionToMatrix, type ContactSurface } from "../sim";
import type { PropSpec, StaticBoxSpec } from "./layout";
import { length3 } from "../linalg/vector-length";

/** An obstacle that can say roughly where it is: a bounding sphere (x, y, z, r) for the broad phase. */
export interface BoundedObstacle {
  boundingSphere(out: Float64Array): void;
  /**
   * Its signed distance with the numbers in arrays: the point and the farthest distance wanted in query[0..3]; the
   * outward normal into out[0..2] and the distance (+Infinity past the farthest) into out[3].
   */
  nearest(query: Float64Array, out: Float64Array): void;
  /** The same for one point, returned (ContactSurface.signedDistances for a whole body goes through NearbyObstacles). */
  signedDistance(x: number, y: number, z: number, maxDistance: number, normalOut: Float64Array): number;
}

const QUERY = new Float64Array(4), ANSWER = new Float64Array(4);

/** An obstacle's signedDistance by its `nearest` (one thread, and `nearest` queries nothing else). */
function signedDistanceOf(obstacle: BoundedObstacle, x: number, y: number, z: number, maxDistance: number, normalOut: Float64Array): number {
  QUERY[0] = x; QUERY[1] = y; QUERY[2] = z; QUERY[3] = maxDistance;
  obstacle.nearest(QUERY, ANSWER);
  normalOut[0] = ANSWER[0]; normalOut[1] = ANSWER[1]; normalOut[2] = ANSWER[2];
  return ANSWER[3];
}

/** An oriented box: centre, half extents, rotation (row-major 3x3, body -> world). */
export class BoxObstacle implements BoundedObstacle {
  readonly center = new Float64Array(3);
  readonly half = new Float64Array(3);
  readonly rotation = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  private readonly quaternion = new Float64Array(4);

  constructor(half: ArrayLike<number>, center: ArrayLike<number> = [0, 0, 0]) {
    this.half.set(half);
    this.center.set(center);
  }

  /** Pose from a unit quaternion (x, y, z, w) and a position. */
  setPose(px: number, py: number, pz: number, qx: number, qy: number, qz: number, qw: number): void {
    this.center[0] = px; this.center[1] = py; this.center[2] = pz;
    const quaternion = this.quaternion;
    quaternion[0] = qx; quaternion[1] = qy; quaternion[2] = qz; quaternion[3] = qw;
    quaternionToMatrix(quaternion, this.rotation);
  }

  boundingSphere(out: Float64Array): void {
    out[0] = this.center[0]; out[1] = this.center[1]; out[2] = this.center[2];
    out[3] = length3(this.half[0], this.half[1], this.half[2]);
  }

  signedDistance(x: number, y: number, z: number, maxDistance: number, normalOut: Float64Array): number {
    return signedDistanceOf(this, x, y, z, maxDistance, normalOut);
  }

  nearest(query: Float64Array, out: Float64Array): void {
    const r = this.rotation, h = this.half, maxDistance = query[3];
    const dx = query[0] - this.center[0], dy = query[1] - this.center[1], dz = query[2] - this.center[2];
    // Local coordinates: R^T d.
    const lx = r[0] * dx + r[3] * dy + r[6] * dz;
    const ly = r[1] * dx + r[4] * dy + r[7] * dz;
    const lz = r[2] * dx + r[5] * dy + r[8] * dz;
    const qx = Math.abs(lx) - h[0], qy = Math.abs(ly) - h[1], qz = Math.abs(lz) - h[2];
    let nx = 0, ny = 0, nz = 0, distance: number;
    if (qx > 0 || qy > 0 || qz > 0) {
      const ox = Math.max(qx, 0), oy = Math.max(qy, 0), oz = Math.max(qz, 0);
      distance = Math.sqrt(ox * ox + oy * oy + oz * oz);
      if (distance > maxDistance) { out[3] = Infinity; return; }
      nx = (ox / distance) * Math.sign(lx); ny = (oy / distance) * Math.sign(ly); nz = (oz / distance) * Math.sign(lz);
    } else {
      // Inside: the nearest face.
      distance = Math.max(qx, qy, qz);
      if (distance === qx) nx = lx >= 0 ? 1 : -1;
      else if (distance === qy) ny = ly >= 0 ? 1 : -1;
      else nz = lz >= 0 ? 1 : -1;
    }
    out[0] = r[0] * nx + r[1] * ny + r[2] * nz;
    out[1] = r[3] * nx + r[4] * ny + r[5] * nz;
    out[2] = r[6] * nx + r[7] * ny + r[8] * nz;
    out[3] = distance;
  }
}

/** Where idle spheres (fingertips, props not yet seen) wait: far from everything. */
export const PARKED = 1e6;

/** A fingertip sphere in the world (radius > 0), or parked far away (radius 0). */
export function placeFingertip(poke: SphereObstacle, x: number, y: number, z: number, radius: number): void {
  if (radius > 0) {
    poke.center[0] = x; poke.center[1] = y; poke.center[2] = z;
    poke.radius = radius;
  } else {
    poke.center.fill(PARKED);
  }
}

export class SphereObstacle implements BoundedObstacle {
  readonly center = new Float64Array(3);

  constructor(public radius: number, center: ArrayLike<number> = [0, 0, 0]) {
    this.center.set(center);
  }

  boundingSphere(out: Float64Array): void {
    out[0] = this.center[0]; out[1] = this.center[1]; out[2] = this.center[2]; out[3] = this.radius;
  }

  /** Pose like BoxObstacle.setPose (a ball's turn changes nothing). */
  setPose(px: number, py: number, pz: number): void {
    this.center[0] = px; this.center[1] = py; this.center[2] = pz;
  }

  signedDistance(x: number, y: number, z: number, maxDistance: number, normalOut: Float64Array): number {
    return signedDistanceOf(this, x, y, z, maxDistance, normalOut);
  }

  nearest(query: Float64Array, out: Float64Array): void {
    sphereDistance(this.center, 0, this.radius, query, out);
  }
}

/** A union of spheres (another soft body's proxies), positions updated in place each tick. */
export class SphereSetObstacle implements BoundedObstacle {
  readonly centers: Float64Array;
  /** Bounding sphere of the set, for a cheap early out. */
  readonly bound = new Float64Array(4);

  constructor(readonly radii: Float64Array) {
    this.centers = new Float64Array(3 * radii.length);
  }

  boundingSphere(out: Float64Array): void {
    out.set(this.bound);
  }

  /** Call after writing `centers`. */
  updateBound(): void {
    const n = this.radii.length, c = this.centers;
    let cx = 0, cy = 0, cz = 0;
    for (let i = 0; i < n; i++) { cx += c[3 * i]; cy += c[3 * i + 1]; cz += c[3 * i + 2]; }
    cx /= n; cy /= n; cz /= n;
    let r = 0;
    for (let i = 0; i < n; i++) r = Math.max(r, length3(c[3 * i] - cx, c[3 * i + 1] - cy, c[3 * i + 2] - cz) + this.radii[i]);
    this.bound[0] = cx; this.bound[1] = cy; this.bound[2] = cz; this.bound[3] = r;
  }

  signedDistance(x: number, y: number, z: number, maxDistance: number, normalOut: Float64Array): number {
    return signedDistanceOf(this, x, y, z, maxDistance, normalOut);
  }

  nearest(query: Float64Array, out: Float64Array): void {
    const b = this.bound;
    if (length3(query[0] - b[0], query[1] - b[1], query[2] - b[2]) - b[3] > query[3]) { out[3] = Infinity; return; }
    let best = Infinity, bx = 0, by = 0, bz = 0;
    for (let i = 0; i < this.radii.length; i++) {
      sphereDistance(this.centers, 3 * i, this.radii[i], query, out);
      if (out[3] < best) { best = out[3]; bx = out[0]; by = out[1]; bz = out[2]; }
    }
    out[0] = bx; out[1] = by; out[2] = bz; out[3] = best;
  }
}

/** A static box of a layout (floor, table, wall) as an obstacle. */
export function staticObstacle(box: StaticBoxSpec): BoxObstacle {
  return new BoxObstacle(box.half, box.center);
}

/** A rigid prop's obstacle (a ball or a cube of half extent `size`), at `position` until posed. */
export function propObstacle(shape: PropSpec["shape"], size: number, position: ArrayLike<number>): BoxObstacle | SphereObstacle {
  return shape === "ball" ? new SphereObstacle(size, position) : new BoxObstacle([size, size, size], position);
}

/**
 * The obstacles near one soft body, re-selected once per tick from all of the room's (bounding spheres within
 * reach): the body queries only these, so idle pokes, far walls and far props cost nothing per sample.
 */
export class NearbyObstacles implements ContactSurface {
  private readonly active: BoundedObstacle[] = [];
  private count = 0;
  private readonly sphere = new Float64Array(4);
  private readonly query = new Float64Array(4);
  private readonly answer = new Float64Array(4);
  private readonly candidate = new Float64Array(4);

  constructor(private readonly all: BoundedObstacle[]) {
    for (let i = 0; i < all.length; i++) this.active.push(all[i]);
  }

  /** Keeps the obstacles whose bounding sphere comes within `reach` of the sphere (x, y, z, radius). */
  select(x: number, y: number, z: number, radius: number, reach: number): void {
    const s = this.sphere;
    this.count = 0;
    for (let i = 0; i < this.all.length; i++) {
      this.all[i].boundingSphere(s);
      if (length3(s[0] - x, s[1] - y, s[2] - z) - s[3] - radius <= reach) this.active[this.count++] = this.all[i];
    }
  }

  /** A body that joined the room (an upload): its proxies become an obstacle. */
  add(obstacle: BoundedObstacle): void {
    this.all.push(obstacle);
    this.active.push(obstacle);
  }

  /** A body that left the room. */
  remove(obstacle: BoundedObstacle): void {
    const i = this.all.indexOf(obstacle);
    if (i < 0) return;
    this.all.splice(i, 1);
    this.active.length = this.all.length;
    this.count = 0;
  }

  get selected(): number {
    return this.count;
  }

  /** The nearest of the selected obstacles to one point (as BoundedObstacle.signedDistance answers). */
  signedDistance(x: number, y: number, z: number, maxDistance: number, normalOut: Float64Array): number {
    const query = this.query, answer = this.answer;
    query[0] = x; query[1] = y; query[2] = z; query[3] = maxDistance;
    this.nearestSelected(query, answer);
    normalOut[0] = answer[0]; normalOut[1] = answer[1]; normalOut[2] = answer[2];
    return answer[3];
  }

  signedDistances(count: number, points: Float64Array, margins: Float64Array, distances: Float64Array, normals: Float64Array): void {
    const query = this.query, answer = this.answer;
    for (let i = 0; i < count; i++) {
      query[0] = points[3 * i]; query[1] = points[3 * i + 1]; query[2] = points[3 * i + 2]; query[3] = margins[i];
      this.nearestSelected(query, answer);
      normals[3 * i] = answer[0]; normals[3 * i + 1] = answer[1]; normals[3 * i + 2] = answer[2];
      distances[i] = answer[3];
    }
  }

  /** The nearest selected obstacle's answer to `query` (BoundedObstacle.nearest); the first of equals wins. */
  private nearestSelected(query: Float64Array, out: Float64Array): void {
    const answer = this.candidate;
    out[3] = Infinity;
    for (let i = 0; i < this.count; i++) {
      this.active[i].nearest(query, answer);
      if (answer[3] < out[3]) { out[0] = answer[0]; out[1] = answer[1]; out[2] = answer[2]; out[3] = answer[3]; }
    }
  }
}

/** The sphere at c[o..o+3] of `radius`, as BoundedObstacle.nearest answers. */
function sphereDistance(c: Float64Array, o: number, radius: number, query: Float64Array, out: Float64Array): void {
  const dx = query[0] - c[o], dy = query[1] - c[o + 1], dz = query[2] - c[o + 2];
  const length = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const distance = length - radius;
  if (distance > query[3]) { out[3] = Infinity; return; }
  if (length > 1e-12) {
    out[0] = dx / length; out[1] = dy / length; out[2] = dz / length;
  } else {
    out[0] = 0; out[1] = 1; out[2] = 0;
  }
  out[3] = distance;
}
