// This client's own grabs: the hands holding a body (predicted at once, confirmed or undone by the server), their
// targets, and the hands holding a character (only the server moves those). A grab stays known after it ends
// while frames of the prediction's history may replay it (body-predictor.ts keeps those).

import { LIMITS, type GrabResultMessage, type Hand } from "../protocol";
import type { ClientBody } from "./client-body";
import { length3 } from "../../linalg/vector-length";

export type Point = [number, number, number];

/** A grab of this client's on a body: live while held; kept after it ends while history frames may replay it. */
export interface OwnGrab {
  hand: Hand;
  serial: number;
  body: ClientBody;
  /** Solver grab id, or -1 while not in the solver. */
  grab: number;
  /** Where it was grabbed (the grab-start point). */
  point: Point;
  /** The samples held and their offsets (to recreate it in a replay). */
  samples: number[];
  offsets: number[];
  /** Holds the server's samples (from its grab-result). */
  exact: boolean;
  /** The targets of the last two frames, newest first (sent along with each move). */
  recent: Point[];
  /** A grab-end is queued for it (the prediction saw it slip). */
  ending: boolean;
}

/** Grab targets stay this far inside the server's limit (LIMITS.grabStretch beyond the body's bounding sphere). */
const TARGET_MARGIN = 0.98;

export class OwnGrabs {
  /** Live grabs on bodies, by hand. */
  readonly held = new Map<Hand, OwnGrab>();
  /** Current grab target per hand (world m). */
  readonly targets = new Map<Hand, Point>();
  /** Hands holding a character: its id. */
  readonly characters = new Map<Hand, string>();
  private serial = 0;

  /** Starts holding `body` with solver grab `grab` (its samples as the solver chose them). */
  hold(hand: Hand, body: ClientBody, grab: number, point: Point): OwnGrab {
    const { samples, offsets } = body.entity.grabbedSamples(grab);
    const own: OwnGrab = { hand, serial: ++this.serial, body, grab, point, samples, offsets, exact: false, recent: [], ending: false };
    this.held.set(hand, own);
    return own;
  }

  /** The server took a grab up (grab-result ok): from now on the hand holds exactly the material the server's holds. */
  confirmed(result: GrabResultMessage): void {
    const held = this.held.get(result.hand), point = result.point;
    if (!held || held.exact || held.body.id !== result.body || !point || !result.samples || !result.offsets) return;
    if (!(length3(point[0] - held.point[0], point[1] - held.point[1], point[2] - held.point[2]) <= 1e-6)) return;
    held.samples = result.samples;
    held.offsets = result.offsets;
    held.exact = true;
    if (held.grab < 0) return;
    const target = this.targets.get(result.hand) ?? held.point, solver = held.body.body;
    solver.release(held.grab);
    held.grab = solver.grabExactly(held.samples, held.offsets, target[0], target[1], target[2]);
  }

  /** Whether any hand holds `body`. */
  holds(body: ClientBody): boolean {
    for (const own of this.held.values()) if (own.body === body) return true;
    return false;
  }

  /** Whether this client holds anything (a body or a character). */
  get holdingAnything(): boolean {
    return this.held.size > 0 || this.characters.size > 0;
  }
}

/** Takes an own grab out of the solver, keeping what recreates it. */
export function deactivateGrab(own: OwnGrab): void {
  if (own.grab < 0) return;
  own.body.entity.release(own.grab);
  own.grab = -1;
}

/** Puts an own grab (back) in the solver at a target: the same samples and offsets it held. */
export function activateGrab(own: OwnGrab, x: number, y: number, z: number): void {
  if (own.grab >= 0) {
    own.body.entity.moveGrab(own.grab, x, y, z);
    return;
  }
  try {
    own.grab = own.body.entity.grabExactly(own.samples, own.offsets, x, y, z);
  } catch {
    own.grab = -1; // no free slot: replayed without it
  }
}

/** Keeps a target where the server accepts it: within LIMITS.grabStretch of the body's bounding sphere. */
export function limitTarget(body: ClientBody, target: Point): void {
  const bound = body.entity.proxies.bound, limit = TARGET_MARGIN * (LIMITS.grabStretch + bound[3]);
  const dx = target[0] - bound[0], dy = target[1] - bound[1], dz = target[2] - bound[2], d = length3(dx, dy, dz);
  if (!(d > limit)) return;
  target[0] = bound[0] + (dx * limit) / d; target[1] = bound[1] + (dy * limit) / d; target[2] = bound[2] + (dz * limit) / d;
}
