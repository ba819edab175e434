// Grab bookkeeping: which surface samples each hand holds, at what offsets from its target, how stiffly.
// Grabs live in fixed slots so grabbing and moving allocate nothing per step.

import { SimParameterError } from "./material";
import type { Subspace } from "./subspace";
import { pointPositionAt } from "./point-positions";
import { length3 } from "../linalg/vector-length";

/** Grabs one body holds at most (two hands for each of eight players). */
export const MAX_GRABS = 16;
/** Surface samples one grab holds at most. */
export const MAX_GRAB_POINTS = 12;

export class GrabSet {
  readonly active = new Uint8Array(MAX_GRABS);
  readonly count = new Int32Array(MAX_GRABS);
  readonly samples = new Int32Array(MAX_GRABS * MAX_GRAB_POINTS);
  readonly offsets = new Float64Array(MAX_GRABS * MAX_GRAB_POINTS * 3);
  readonly target = new Float64Array(MAX_GRABS * 3);
  /** Row-major rotation of each held patch. */
  readonly rotation = new Float64Array(MAX_GRABS * 9);
  /** Spring stiffness per held sample, N/m. */
  readonly pointStiffness = new Float64Array(MAX_GRABS);
  /** Bumped whenever the set of springs changes (the preconditioner holds them). */
  version = 0;
  private readonly distances = new Float64Array(MAX_GRAB_POINTS);

  constructor(private readonly subspace: Subspace) {}

  has(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < MAX_GRABS && this.active[id] === 1;
  }

  held(): number {
    let count = 0;
    for (let id = 0; id < MAX_GRABS; id++) count += this.active[id];
    return count;
  }

  private freeSlot(): number {
    const slot = this.active.indexOf(0);
    if (slot < 0) throw new SimParameterError(`a body holds at most ${MAX_GRABS} grabs`);
    return slot;
  }

  /** The surface samples a grab holds and their offsets from its target (to recreate it elsewhere). */
  grabbedSamples(id: number): { samples: number[]; offsets: number[] } {
    if (!this.has(id)) throw new SimParameterError(`unknown grab ${id}`);
    const count = this.count[id], base = id * MAX_GRAB_POINTS;
    return {
      samples: Array.from(this.samples.subarray(base, base + count)),
      offsets: Array.from(this.offsets.subarray(3 * base, 3 * (base + count))),
    };
  }

  /**
   * How far (m, mean over its samples) a grab's samples are, for coordinates q of a body at `origin`, from where
   * it pulls them: how hard it is pulling. `point` and `anchor` are scratch (3 each).
   */
  stretch(id: number, q: Float64Array, origin: Float64Array, point: Float64Array, anchor: Float64Array): number {
    if (!this.has(id)) throw new SimParameterError(`unknown grab ${id}`);
    const s = this.subspace, count = this.count[id];
    let total = 0;
    for (let j = 0; j < count; j++) {
      pointPositionAt(q, s.m, origin, s.surfaceRows, s.surfaceRest, this.sample(id, j), point, 0);
      this.anchor(id, j, anchor);
      total += length3(point[0] - anchor[0], point[1] - anchor[1], point[2] - anchor[2]);
    }
    return total / count;
  }

  /**
   * Holds the (at most MAX_GRAB_POINTS) samples nearest to (x, y, z) within `radius`, given their current world
   * positions (3 per surface sample). Returns the grab id, or -1 when none is within the radius.
   */
  grabNearest(positions: Float64Array, x: number, y: number, z: number, radius: number, stiffness: number): number {
    const slot = this.freeSlot();
    const best = this.samples.subarray(slot * MAX_GRAB_POINTS, (slot + 1) * MAX_GRAB_POINTS);
    const bestDistance = this.distances.fill(Infinity);
    let found = 0;
    for (let s = 0; s < this.subspace.surfaceCount; s++) {
      const d = length3(positions[3 * s] - x, positions[3 * s + 1] - y, positions[3 * s + 2] - z);
      if (d > radius || d >= bestDistance[MAX_GRAB_POINTS - 1]) continue;
      // Insertion sort into the fixed-size list.
      let k = Math.min(found, MAX_GRAB_POINTS - 1);
      while (k > 0 && bestDistance[k - 1] > d) {
        bestDistance[k] = bestDistance[k - 1];
        best[k] = best[k - 1];
        k--;
      }
      bestDistance[k] = d;
      best[k] = s;
      found = Math.min(found + 1, MAX_GRAB_POINTS);
    }
    if (found === 0) return -1;
    for (let k = 0; k < found; k++) {
      const o = (slot * MAX_GRAB_POINTS + k) * 3, s = best[k];
      this.offsets[o] = positions[3 * s] - x;
      this.offsets[o + 1] = positions[3 * s + 1] - y;
      this.offsets[o + 2] = positions[3 * s + 2] - z;
    }
    return this.activate(slot, found, x, y, z, stiffness);
  }

  /** Holds exactly these samples at these offsets from (x, y, z) (a replica of another copy's grab). */
  grabExactly(samples: ArrayLike<number>, offsets: ArrayLike<number>, x: number, y: number, z: number, stiffness: number): number {
    const found = samples.length;
    if (found < 1 || found > MAX_GRAB_POINTS || offsets.length !== 3 * found) throw new SimParameterError(`a grab holds 1 to ${MAX_GRAB_POINTS} samples with 3 offsets each`);
    for (let k = 0; k < found; k++) {
      if (!Number.isInteger(samples[k]) || samples[k] < 0 || samples[k] >= this.subspace.surfaceCount) throw new SimParameterError(`grab sample ${samples[k]} is not a surface sample`);
      if (!Number.isFinite(offsets[3 * k]) || !Number.isFinite(offsets[3 * k + 1]) || !Number.isFinite(offsets[3 * k + 2])) throw new SimParameterError("grab offsets must be finite");
    }
    const slot = this.freeSlot();
    for (let k = 0; k < found; k++) {
      this.samples[slot * MAX_GRAB_POINTS + k] = samples[k];
      for (let a = 0; a < 3; a++) this.offsets[(slot * MAX_GRAB_POINTS + k) * 3 + a] = offsets[3 * k + a];
    }
    return this.activate(slot, found, x, y, z, stiffness);
  }

  private activate(slot: number, found: number, x: number, y: number, z: number, stiffness: number): number {
    if (!(stiffness > 0) || !Number.isFinite(stiffness)) throw new SimParameterError(`grab stiffness must be positive, got ${stiffness}`);
    this.active[slot] = 1;
    this.count[slot] = found;
    this.pointStiffness[slot] = stiffness / found;
    this.target[3 * slot] = x;
    this.target[3 * slot + 1] = y;
    this.target[3 * slot + 2] = z;
    this.rotation.set(IDENTITY, 9 * slot);
    this.version++;
    return slot;
  }

  move(id: number, x: number, y: number, z: number, rotation?: ArrayLike<number>): void {
    if (!this.has(id)) throw new SimParameterError(`unknown grab ${id}`);
    if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) throw new SimParameterError("grab target must be finite");
    if (rotation) {
      for (let k = 0; k < 9; k++) if (!Number.isFinite(rotation[k])) throw new SimParameterError("grab rotation must be finite");
      for (let k = 0; k < 9; k++) this.rotation[9 * id + k] = rotation[k];
    }
    this.target[3 * id] = x;
    this.target[3 * id + 1] = y;
    this.target[3 * id + 2] = z;
  }

  release(id: number): void {
    if (!this.has(id)) return;
    this.active[id] = 0;
    this.version++;
  }

  /** Where the hand pulls sample j of grab id: target + rotation * offset, into out[0..2]. */
  anchor(id: number, j: number, out: Float64Array): void {
    const t = 3 * id, r = 9 * id, rot = this.rotation, o = (id * MAX_GRAB_POINTS + j) * 3;
    const ox = this.offsets[o], oy = this.offsets[o + 1], oz = this.offsets[o + 2];
    out[0] = this.target[t] + rot[r] * ox + rot[r + 1] * oy + rot[r + 2] * oz;
    out[1] = this.target[t + 1] + rot[r + 3] * ox + rot[r + 4] * oy + rot[r + 5] * oz;
    out[2] = this.target[t + 2] + rot[r + 6] * ox + rot[r + 7] * oy + rot[r + 8] * oz;
  }

  sample(id: number, j: number): number {
    return this.samples[id * MAX_GRAB_POINTS + j];
  }
}

const IDENTITY = [1, 0, 0, 0, 1, 0, 0, 0, 1];
