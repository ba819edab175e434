// Penalty contacts between a body's surface samples and obstacles the caller describes by a signed distance.
// Each step, samples near an obstacle get a half-space n . p >= offset (linearised at the predicted
// position), so the Newton-type iterations see a smooth quadratic penalty and query nothing themselves.

export interface ContactSurface {
  /**
   * Signed distance (metres) from the world point to the obstacle (positive outside, negative inside),
   * with the unit outward normal of the obstacle written to `normalOut`. May return +Infinity when the
   * point is farther than `maxDistance`. Must not allocate (it runs for many points every step).
   */
  signedDistance(x: number, y: number, z: number, maxDistance: number, normalOut: Float64Array): number;
}

/** The plane y = height, solid below. */
export class FloorContact implements ContactSurface {
  constructor(readonly height = 0) {}

  signedDistance(_x: number, y: number, _z: number, _maxDistance: number, normalOut: Float64Array): number {
    normalOut[0] = 0;
    normalOut[1] = 1;
    normalOut[2] = 0;
    return y - this.height;
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

  signedDistance(x: number, y: number, z: number, _maxDistance: number, normalOut: Float64Array): number {
    const n = this.n;
    normalOut[0] = n[0];
    normalOut[1] = n[1];
    normalOut[2] = n[2];
    return n[0] * x + n[1] * y + n[2] * z - this.offset;
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
