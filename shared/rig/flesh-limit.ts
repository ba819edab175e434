// What keeps a character's flesh looking like flesh, whatever moves it (a hand, a fingertip, the rig's inertia, the
// secondary-motion network): its soft part u = B q may move a surface point at most a reach from where the rig puts
// it, and may change the distance between neighbouring surface points by at most a fraction of it (the stretch that
// draws long spiky triangles). Past `knee` of either limit the whole soft part is scaled down smoothly (a tanh
// saturation, not a clamp): it keeps its shape, stays complementary to the rig (a scaled q is), and stays continuous
// in time. Scaling is convex-safe: a mix of two limited soft parts (an interpolation, a crossfade) is limited too.

import { basisRows } from "../sim/subspace";
import { handleCount, type BakedBody } from "../skinning/baked-body";
import { FLESH_LIMIT } from "./character-defaults";
import { length3 } from "../linalg/vector-length";

/** Neighbours per surface sample in the stretch graph (the nearest ones, about their spacing apart). */
const NEIGHBOURS = 6;

/**
 * Smooth saturation of x >= 0 towards 1: x itself up to `knee`, then knee + (1 - knee) tanh((x - knee) / (1 - knee))
 * (same value and slope at the knee, never above 1).
 */
export function saturate(x: number, knee: number = FLESH_LIMIT.knee): number {
  if (x <= knee) return x;
  return knee + (1 - knee) * Math.tanh((x - knee) / (1 - knee));
}

export class FleshLimit {
  /** Most displacement of a surface point (m) and most relative change of a neighbour distance. */
  readonly reach: number;
  readonly stretch: number;
  /** The stretch graph: pairs of neighbouring samples and their rest distances. */
  readonly from: Int32Array;
  readonly to: Int32Array;
  readonly length: Float64Array;
  /** After the last measure: the largest displacement (m) and relative neighbour change. */
  displacement = 0;
  strain = 0;
  private readonly u: Float64Array;
  private readonly m: number;
  private readonly count: number;

  /**
   * `rows`: the surface samples' basis rows (count x m); `rest`: their rest positions (3 per sample, the body's
   * metres); `size`: the character's largest extent (m).
   */
  constructor(private readonly rows: Float64Array, rest: ArrayLike<number>, size: number) {
    this.count = rest.length / 3;
    this.m = rows.length / this.count;
    this.reach = FLESH_LIMIT.reach * size;
    this.stretch = FLESH_LIMIT.stretch;
    this.u = new Float64Array(3 * this.count);
    ({ from: this.from, to: this.to, length: this.length } = neighbourPairs(rest, NEIGHBOURS));
  }

  /** The limit of a bake's character at a size (its own basis rows of the surface samples). */
  static of(baked: BakedBody, size: number): FleshLimit {
    const rest = baked.surfacePositions.map((v) => (v * size) / 2);
    return new FleshLimit(basisRows({ positions: rest, weights: baked.surfaceWeights }, handleCount(baked)), rest, size);
  }

  /** How far q goes towards its limits: the larger of displacement / reach and strain / stretch (1 at a limit). */
  measure(q: ArrayLike<number>): number {
    const m = this.m, u = this.u, rows = this.rows;
    let largest = 0;
    for (let s = 0; s < this.count; s++) {
      let x = 0, y = 0, z = 0;
      for (let j = 0, r = s * m; j < m; j++, r++) {
        const b = rows[r];
        x += b * q[j]; y += b * q[m + j]; z += b * q[2 * m + j];
      }
      u[3 * s] = x; u[3 * s + 1] = y; u[3 * s + 2] = z;
      largest = Math.max(largest, x * x + y * y + z * z);
    }
    let strain = 0;
    const from = this.from, to = this.to, length = this.length;
    for (let e = 0; e < from.length; e++) {
      const a = 3 * from[e], b = 3 * to[e];
      strain = Math.max(strain, length3(u[a] - u[b], u[a + 1] - u[b + 1], u[a + 2] - u[b + 2]) / length[e]);
    }
    this.displacement = Math.sqrt(largest);
    this.strain = strain;
    return Math.max(this.displacement / this.reach, strain / this.stretch);
  }

  /** The factor (0, 1] that brings q within its limits: 1 below the knee. */
  factor(q: ArrayLike<number>): number {
    const extent = this.measure(q);
    return extent > FLESH_LIMIT.knee ? saturate(extent) / extent : 1;
  }

  /** Scales q (and its velocity, when given) into the limits in place; returns the factor. */
  apply(q: Float64Array, velocity?: Float64Array): number {
    const f = this.factor(q);
    if (f < 1) {
      for (let i = 0; i < q.length; i++) q[i] *= f;
      if (velocity) for (let i = 0; i < velocity.length; i++) velocity[i] *= f;
    }
    return f;
  }
}

/** Each point's `k` nearest others, as unique pairs with their distances. */
function neighbourPairs(points: ArrayLike<number>, k: number): { from: Int32Array; to: Int32Array; length: Float64Array } {
  const count = points.length / 3, nearest = new Int32Array(k), distance = new Float64Array(k);
  const seen = new Set<number>(), from: number[] = [], to: number[] = [], length: number[] = [];
  for (let i = 0; i < count; i++) {
    distance.fill(Infinity);
    for (let j = 0; j < count; j++) {
      if (j === i) continue;
      const d = length3(points[3 * i] - points[3 * j], points[3 * i + 1] - points[3 * j + 1], points[3 * i + 2] - points[3 * j + 2]);
      if (!(d < distance[k - 1]) || d === 0) continue;
      let p = k - 1;
      while (p > 0 && distance[p - 1] > d) { distance[p] = distance[p - 1]; nearest[p] = nearest[p - 1]; p--; }
      distance[p] = d; nearest[p] = j;
    }
    for (let p = 0; p < k && Number.isFinite(distance[p]); p++) {
      const a = Math.min(i, nearest[p]), b = Math.max(i, nearest[p]), key = a * count + b;
      if (seen.has(key)) continue;
      seen.add(key);
      from.push(a); to.push(b); length.push(distance[p]);
    }
  }
  return { from: Int32Array.from(from), to: Int32Array.from(to), length: Float64Array.from(length) };
}
