// Penalty contacts between a body's surface samples and obstacles the caller describes by a signed distance.
// Each step, samples near an obstacle get a half-space n . p >= offset (linearised at the predicted
// position), so the Newton-type iterations see a smooth quadratic penalty and query nothing themselves.

export interface ContactSurface {
  /**
   * Signed distances (metres, positive outside, negative inside) of `count` world points (points[3i..3i+2]) to the
   * obstacle into distances[i], with the unit outward normal there into normals[3i..3i+2]. margins[i] is how far
   * point i looks: past it the distance may be +Infinity, and the normal is then left unspecified. The solver asks
   * once a step for all of a body's surface samples, because a call per point that the engine does not inline boxes
   * the numbers it passes and returns (about 5 MiB of garbage a second in a full room). Allocates nothing once it
   * has answered for this many points.
   */
  signedDistances(count: number, points: Float64Array, margins: Float64Array, distances: Float64Array, normals: Float64Array): void;
}

/** The plane y = height, solid below. */
export class FloorContact implements ContactSurface {
  constructor(readonly height = 0) {}

  signedDistances(count: number, points: Float64Array, _margins: Float64Array, distances: Float64Array, normals: Float64Array): void {
    for (let i = 0; i < count; i++) {
      normals[3 * i] = 0;
      normals[3 * i + 1] = 1;
      normals[3 * i + 2] = 0;
      distances[i] = points[3 * i + 1] - this.height;
    }
  }
}

/** A wall: the plane n . p = offset (n a unit normal pointing out of the solid), solid behind it. */
export class PlaneContact implements ContactSurface {
  private readonly n: Float64Array;

  constructor(normal: ArrayLike<number>, readonly offset: number) {
    const length = Math.hypot(normal[0], normal[1], normal[2]);
    if (!(length > 0) || !Number.isFinite(length) || !Number.isFinite(offset)) throw new RangeError("a plane needs a finite non-zero normal and a finite offset");
    this.n = Float64Array.from([normal[0] / length, normal[1] / length, normal[2] / length]);
  }

  signedDistances(count: number, points: Float64Array, _margins: Float64Array, distances: Float64Array, normals: Float64Array): void {
    const nx = this.n[0], ny = this.n[1], nz = this.n[2];
    for (let i = 0; i < count; i++) {
      normals[3 * i] = nx;
      normals[3 * i + 1] = ny;
      normals[3 * i + 2] = nz;
      distances[i] = nx * points[3 * i] + ny * points[3 * i + 1] + nz * points[3 * i + 2] - this.offset;
    }
  }
}

/** Active half-space constraints of one step, in preallocated arrays. */
export class ContactSet {
  count = 0;
  readonly sample: Int32Array;
  /** Unit normals, 3 per constraint. */
  readonly normal: Float64Array;
  /** Half-space offsets: the sample must satisfy normal . p >= offset. */
  readonly offset: Float64Array;
  /** The sample's start-of-step reference position (3 per constraint): (p - reference) / h~ is its velocity. */
  readonly reference: Float64Array;

  constructor(readonly capacity: number) {
    this.sample = new Int32Array(capacity);
    this.normal = new Float64Array(3 * capacity);
    this.offset = new Float64Array(capacity);
    this.reference = new Float64Array(3 * capacity);
  }

  clear(): void {
    this.count = 0;
  }

  /** Adds a constraint; returns false when full (the remaining contacts of this step are dropped). */
  add(sample: number, nx: number, ny: number, nz: number, offset: number): boolean {
    if (this.count >= this.capacity) return false;
    const i = this.count++;
    this.sample[i] = sample;
    this.normal[3 * i] = nx;
    this.normal[3 * i + 1] = ny;
    this.normal[3 * i + 2] = nz;
    this.offset[i] = offset;
    return true;
  }
}
