// The rules for bodies visitors add (uploads): how many each may have and the room may hold, which leave to make
// room, and which snapshot index a new body gets.

import { UPLOAD_LIMITS } from "../../shared/net";

/** An added body or an upload being baked, as the rules see it. */
export interface AddedThing {
  id: string;
  owner: string;
  /** World tick it was added at (being baked: when it was announced). */
  since: number;
  baking: boolean;
}

/** The owner of an admin's uploads: not limited per owner. */
export const ADMIN_OWNER = "admin";

/**
 * What must leave before `owner` adds one more: their own oldest added bodies beyond UPLOAD_LIMITS.bodiesPerPlayer,
 * then the room's oldest beyond UPLOAD_LIMITS.softBodies (`roomBodies` counts every soft body staying, the room's
 * own included, and every upload being baked). A refusal when only bakes in flight stand in the way.
 */
export function makeRoomFor(owner: string, added: readonly AddedThing[], roomBodies: number): { leave: string[] } | { refusal: string } {
  const leave = new Set<string>();
  const oldestFirst = [...added].sort((a, b) => a.since - b.since);
  if (owner !== ADMIN_OWNER) {
    const mine = oldestFirst.filter((a) => a.owner === owner);
    if (mine.filter((a) => a.baking).length >= UPLOAD_LIMITS.bodiesPerPlayer) return { refusal: `you have ${UPLOAD_LIMITS.bodiesPerPlayer} meshes baking already; wait for them` };
    for (const a of mine) if (mine.length - leave.size >= UPLOAD_LIMITS.bodiesPerPlayer && !a.baking) leave.add(a.id);
  }
  let count = roomBodies - leave.size;
  for (const a of oldestFirst) {
    if (count < UPLOAD_LIMITS.softBodies) break;
    if (a.baking || leave.has(a.id)) continue;
    leave.add(a.id);
    count--;
  }
  if (count >= UPLOAD_LIMITS.softBodies) return { refusal: `the room holds ${UPLOAD_LIMITS.softBodies} soft bodies and the others are still baking; try again in a few seconds` };
  return { leave: [...leave] };
}

/**
 * Snapshot indices (BodyState.index, a byte) handed out in turn, skipping those in use: an index freed by a body
 * that left is not handed out again until every other one has been, so a page that has not yet heard of the
 * departure never mistakes a new body's snapshots for the old one's.
 */
export class SnapshotIndices {
  private cursor = 0;

  next(used: ReadonlySet<number>): number {
    for (let k = 0; k < 255; k++) {
      const index = (this.cursor + k) % 255;
      if (used.has(index)) continue;
      this.cursor = (index + 1) % 255;
      return index;
    }
    throw new Error("no free snapshot index");
  }
}
