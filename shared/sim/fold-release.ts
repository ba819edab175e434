// Folds the reduced elastic energy cannot undo. With a few affine handles and a few hundred cubature points the
// energy has local minima away from the rest shape: whipped hard, the 0.16 m dough spot came to rest crumpled,
// 15 mm from its rest shape and holding 0.47 J with nothing pressing on it, for ever (it stayed so with gravity
// off and 200 iterations a step), with eigen's fields and the network's alike. The continuum's only unstressed
// shape is the rest shape, so such a state belongs to the discretisation: a body found resting in one is put back
// in its rest shape where it lies (a rigid placement: mass centroid kept, turned by the rotation of the mean F, and
// lifted onto the support the fold rests on).
//
// A fold is told from strain the body holds for a reason (its weight on the table, a slow sag) by the elastic
// energy's slope towards that placement. Strain that can relax by itself loses energy at once on the way:
// -g.d is about 2E (a quadratic near rest; measured 0.81-1.0 on bodies resting after the whip and on resting
// jelly and dough). In a fold the energy rises first: measured -0.02 to 0.05 on the three folds found.

import { extractRotation, quaternionToMatrix } from "./linalg";
import { meanDeformationGradient, removeNullComponents, rigidMotionCoordinates, type Subspace } from "./subspace";

/** A body is judged only when its material moves slower than this (mass-weighted RMS, m/s): at rest. */
export const FOLD_SPEED = 0.005;
/**
 * ...on its FOLD_FIRST_JUDGED-th slow step and every FOLD_JUDGED_EVERY after (a judgement costs one elastic
 * evaluation). Not on the first: a body a hand held still and let go starts moving on its own first, and strain it
 * unwinds by itself is not a fold. A room puts a body asleep after 30 slow ticks: it is judged three times first.
 */
export const FOLD_FIRST_JUDGED = 5;
export const FOLD_JUDGED_EVERY = 10;
/** ...and holds more elastic energy than this share of m g size (g = 9.81 m/s^2, a scale): visibly strained. */
const FOLD_ENERGY_SHARE = 1e-3;
/** A fold: -g.d / 2E under this (about 1 for strain the body can relax by itself, about 0 in a fold). */
const FOLD_DESCENT = 0.25;

const STANDARD_GRAVITY = 9.81;

/** Elastic energy (J) above which a resting body of this mass (kg) and size (m) is strained enough to judge. */
export function foldJudgedAbove(mass: number, size: number): number {
  return FOLD_ENERGY_SHARE * mass * STANDARD_GRAVITY * size;
}

export class FoldRelease {
  /** The rigid placement of the rest shape for the last state judged (q coordinates). */
  readonly placement: Float64Array;
  private readonly f = new Float64Array(9);
  private readonly rotation = new Float64Array(9);
  private readonly quat = new Float64Array(4);
  private readonly shift = new Float64Array(3);
  /** Steps in a row the body has started left alone and slower than FOLD_SPEED. */
  private slowSteps = 0;

  constructor(private readonly subspace: Subspace) {
    this.placement = new Float64Array(subspace.n);
  }

  /** Counts a step's start (left to itself, at this speed, m/s): whether the body is to be judged at it. */
  due(leftAlone: boolean, speed: number): boolean {
    if (!leftAlone || speed > FOLD_SPEED) {
      this.slowSteps = 0;
      return false;
    }
    return ++this.slowSteps % FOLD_JUDGED_EVERY === FOLD_FIRST_JUDGED;
  }

  /** Starts the count again (the body's state was set from outside). */
  restart(): void {
    this.slowSteps = 0;
  }

  /**
   * Whether q, with elastic energy `energy` and its gradient, lies in a fold; sets `placement` on the way.
   * `centroid` is q's mass centroid in the body frame (world minus origin); `guess` a rotation (quaternion) near q's.
   */
  folded(q: Float64Array, energy: number, gradient: Float64Array, centroid: ArrayLike<number>, guess: ArrayLike<number>): boolean {
    const s = this.subspace, f = this.f;
    // The rotation of q's volume-averaged deformation gradient.
    meanDeformationGradient(s, q, f);
    for (let k = 0; k < 4; k++) this.quat[k] = guess[k];
    extractRotation(f, this.quat, 30);
    quaternionToMatrix(this.quat, this.rotation);
    for (let a = 0; a < 3; a++) this.shift[a] = centroid[a] - s.restCentroid[a];
    rigidMotionCoordinates(this.placement, s.m, s.restCentroid, this.rotation, this.shift);
    removeNullComponents(s, this.placement);
    let slope = 0;
    for (let i = 0; i < q.length; i++) slope += gradient[i] * (this.placement[i] - q[i]);
    if (!(-slope < FOLD_DESCENT * 2 * energy)) return false;
    // On the support the fold rests on: a crumpled body is flatter than its rest shape, which at the fold's centroid
    // reached into the floor, and the contact threw it up (a release that put 0.1 J in). Lifted so that its lowest
    // surface point is no lower than the fold's (gravity is -y; elastic energy does not change with a translation).
    const lift = this.lowestSurfaceY(q) - this.lowestSurfaceY(this.placement);
    if (lift > 0) this.placement[s.m + 3] += lift;
    return true;
  }

  /** The lowest surface sample's height (body frame) for coordinates q. */
  private lowestSurfaceY(q: Float64Array): number {
    const s = this.subspace, m = s.m, rows = s.surfaceRows, rest = s.surfaceRest;
    let lowest = Infinity;
    for (let i = 0; i < s.surfaceCount; i++) {
      let y = rest[3 * i + 1];
      for (let k = 0; k < m; k++) y += rows[i * m + k] * q[m + k];
      if (y < lowest) lowest = y;
    }
    return lowest;
  }
}
