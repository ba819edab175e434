// A table that never empties: a soft body or prop that started on a surface (the table) and has left it (fallen
// to the floor, pushed past its edge) floats back to its spawn once it has lain there unheld for AWAY_SECONDS,
// along a gentle arc, turning upright and easing its shape back to rest on the way. Things that start on the
// floor have the whole room as their surface: only leaving the room (SceneWorld's respawn) brings them back.

import { Quaternion } from "three";
import { quaternionToMatrix, rigidMotionCoordinates } from "../sim";
import type { SceneLayout } from "./layout";
import { spliced } from "./spliced";

/** Seconds a thing lies off its surface, unheld, before it floats home. */
export const AWAY_SECONDS = 3;
/** Seconds the flight home takes. */
export const FLIGHT_SECONDS = 1.5;
/** How far above the higher of its start and its spawn the arc peaks, m. */
const ARC_HEIGHT = 0.35;
/** A centre this far past the surface's edge (m) is off it: a body hanging over the edge is still on the table. */
const EDGE_MARGIN = 0.05;

/** The top face of the static box a thing started on: x, z centre, half extents, height. */
interface HomeSurface {
  x: number;
  z: number;
  halfX: number;
  halfZ: number;
  top: number;
}

/**
 * The top face of the highest drawn static box under a point (within its footprint, top at most `below` + 1 cm);
 * null when that is the floor (no box whose top is above 0) or nothing.
 */
export function homeSurfaceUnder(layout: SceneLayout, x: number, z: number, below: number): HomeSurface | null {
  let best: HomeSurface | null = null;
  for (const box of layout.statics) {
    if (box.hidden) continue;
    const top = box.center[1] + box.half[1];
    if (top <= 0.01 || top > below + 0.01) continue;
    if (Math.abs(x - box.center[0]) > box.half[0] || Math.abs(z - box.center[2]) > box.half[2]) continue;
    if (!best || top > best.top) best = { x: box.center[0], z: box.center[2], halfX: box.half[0], halfZ: box.half[2], top };
  }
  return best;
}

/** The pose of a flight at one moment: centre (world) and rotation (unit quaternion, x y z w). */
export interface FlightPose {
  centre: Float64Array;
  rotation: Quaternion;
  /** Eased progress, 0 at the start, 1 at the spawn. */
  progress: number;
}

/**
 * Watches a set of things (soft bodies, then props) and flies each home when it has been away long enough.
 * The world reports each thing's centre and whether it is held, every tick, and launches it when `watch` says so;
 * while a thing is in flight the world asks for its pose and places it there (nothing of it is simulated), and a
 * grab ends the flight where it is.
 */
export class Homecoming {
  private readonly surfaces: (HomeSurface | null)[];
  private awayTicks: Int32Array;
  /** Tick of the flight (0 .. flightTicks), or -1 when on the ground. */
  private flightTick: Int32Array;
  private startCentre: Float64Array;
  private homeCentre: Float64Array;
  private readonly startRotation: Quaternion[];
  private readonly upright = new Quaternion();
  private readonly pose: FlightPose = { centre: new Float64Array(3), rotation: new Quaternion(), progress: 0 };
  readonly awayLimitTicks: number;
  readonly flightTicks: number;
  /** Flights started since the world began (a test's and a log's figure). */
  flights = 0;

  /** `homes`: each thing's centre at its spawn (3 per thing); `dt`: the world's step. */
  constructor(private readonly layout: SceneLayout, homes: ArrayLike<number>, lowestPoints: ArrayLike<number>, dt: number) {
    const count = homes.length / 3;
    this.surfaces = Array.from({ length: count }, (_, i) => homeSurfaceUnder(layout, homes[3 * i], homes[3 * i + 2], lowestPoints[i]));
    this.awayTicks = new Int32Array(count);
    this.flightTick = new Int32Array(count).fill(-1);
    this.startCentre = new Float64Array(3 * count);
    this.homeCentre = Float64Array.from(homes);
    this.startRotation = Array.from({ length: count }, () => new Quaternion());
    this.awayLimitTicks = Math.round(AWAY_SECONDS / dt);
    this.flightTicks = Math.max(1, Math.round(FLIGHT_SECONDS / dt));
  }

  /** A thing that joined the room (an uploaded body) becomes thing i; those from i on move up one. */
  insert(i: number, home: ArrayLike<number>, lowestPoint: number): void {
    this.surfaces.splice(i, 0, homeSurfaceUnder(this.layout, home[0], home[2], lowestPoint));
    this.startRotation.splice(i, 0, new Quaternion());
    this.awayTicks = spliced(this.awayTicks, i, 1, [0]);
    this.flightTick = spliced(this.flightTick, i, 1, [-1]);
    this.startCentre = spliced(this.startCentre, 3 * i, 3, [0, 0, 0]);
    this.homeCentre = spliced(this.homeCentre, 3 * i, 3, [home[0], home[1], home[2]]);
  }

  /** Thing i left the room; those after it move down one. */
  remove(i: number): void {
    this.surfaces.splice(i, 1);
    this.startRotation.splice(i, 1);
    this.awayTicks = spliced(this.awayTicks, i, 1);
    this.flightTick = spliced(this.flightTick, i, 1);
    this.startCentre = spliced(this.startCentre, 3 * i, 3);
    this.homeCentre = spliced(this.homeCentre, 3 * i, 3);
  }

  /** Whether thing i is flying home. */
  flying(i: number): boolean {
    return this.flightTick[i] >= 0;
  }

  /** Whether thing i started on a surface it can leave (not the floor): only those are watched. */
  hasHome(i: number): boolean {
    return this.surfaces[i] !== null;
  }

  /** Whether a centre lies off thing i's surface: below its top, or past its edge. */
  isAway(i: number, x: number, y: number, z: number): boolean {
    const s = this.surfaces[i];
    if (!s) return false;
    return y < s.top || Math.abs(x - s.x) > s.halfX + EDGE_MARGIN || Math.abs(z - s.z) > s.halfZ + EDGE_MARGIN;
  }

  /** One tick's look at a thing on the ground: true when it has lain away, unheld, long enough to `launch`. */
  watch(i: number, x: number, y: number, z: number, held: boolean): boolean {
    if (held || !this.isAway(i, x, y, z)) {
      this.awayTicks[i] = 0;
      return false;
    }
    return ++this.awayTicks[i] >= this.awayLimitTicks;
  }

  /** Starts thing i's flight from its centre and rotation now (ask `advance` for its poses). */
  launch(i: number, x: number, y: number, z: number, rotation: Quaternion): void {
    this.awayTicks[i] = 0;
    this.flightTick[i] = 0;
    this.flights++;
    this.startCentre[3 * i] = x; this.startCentre[3 * i + 1] = y; this.startCentre[3 * i + 2] = z;
    this.startRotation[i].copy(rotation);
  }

  /** The next pose of thing i's flight (the object is reused); after the last one the thing is home. */
  advance(i: number): FlightPose {
    const tick = ++this.flightTick[i], t = Math.min(1, tick / this.flightTicks);
    const s = t * t * (3 - 2 * t), pose = this.pose, c = pose.centre, a = 3 * i;
    for (let k = 0; k < 3; k++) c[k] = this.startCentre[a + k] + s * (this.homeCentre[a + k] - this.startCentre[a + k]);
    // Up and over: the arc rises above the higher end, so a body from the floor clears the table's edge.
    const peak = Math.max(this.startCentre[a + 1], this.homeCentre[a + 1]) + ARC_HEIGHT;
    const straight = this.startCentre[a + 1] + 0.5 * (this.homeCentre[a + 1] - this.startCentre[a + 1]);
    c[1] += 4 * s * (1 - s) * (peak - straight);
    pose.rotation.slerpQuaternions(this.startRotation[i], this.upright, s);
    pose.progress = s;
    if (t >= 1) this.flightTick[i] = -1;
    return pose;
  }

  /** Ends thing i's flight where it is (someone grabbed it, or the room was reset). */
  land(i: number): void {
    this.flightTick[i] = -1;
    this.awayTicks[i] = 0;
  }
}

const QUATERNION = new Float64Array(4);
const ROTATION = new Float64Array(9);
const SHIFT = new Float64Array(3);

/**
 * The reduced coordinates of a soft body moved rigidly so that its mass centroid is `centre` (world) and it is
 * turned by `rotation` about it (rigidMotionCoordinates). `origin` and `restCentroid` are the body's frame origin
 * and its rest centroid in that frame.
 */
export function rigidCoordinates(q: Float64Array, m: number, origin: ArrayLike<number>, restCentroid: ArrayLike<number>, centre: ArrayLike<number>, rotation: Quaternion): void {
  QUATERNION[0] = rotation.x; QUATERNION[1] = rotation.y; QUATERNION[2] = rotation.z; QUATERNION[3] = rotation.w;
  quaternionToMatrix(QUATERNION, ROTATION);
  for (let a = 0; a < 3; a++) SHIFT[a] = centre[a] - origin[a] - restCentroid[a];
  rigidMotionCoordinates(q, m, restCentroid, ROTATION, SHIFT);
}
