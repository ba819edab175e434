// The room's snapshot, encoded once per send for every client (shared/net/snapshot.ts has the layout): the soft
// bodies, characters, props, avatars and grab targets that changed since they were last sent, or everything (a
// full snapshot for a client that joins or comes back). What counts as changed is IDLE_DISTANCE and IDLE_TURN.

import { IDLE_DISTANCE, IDLE_TURN, SnapshotWriter } from "../../shared/net";
import type { SceneWorld } from "../../shared/scene";
import type { RoomBody } from "./room-uploads";
import type { RoomCharacter } from "./room-character";

/** What a snapshot tells of a seat: its avatar's poses, sent when they changed. */
export interface AvatarSource {
  slot: number;
  poses: Float64Array;
  poseMask: number;
  poseDirty: boolean;
}

/** What a snapshot tells of a grab: its target, sent when it moved. */
export interface GrabTargetSource {
  slot: number;
  target: Float64Array;
  moved: boolean;
}

/** What the room holds that snapshots carry. */
export interface SnapshotSources {
  world: SceneWorld;
  /** The soft bodies, in the world's order. */
  bodies: readonly RoomBody[];
  characters: readonly RoomCharacter[];
  /** By seat and by grab (any keys). */
  avatars: ReadonlyMap<string, AvatarSource>;
  grabs: ReadonlyMap<string, GrabTargetSource>;
}

export class SnapshotEncoder {
  /** Each body's proxy centres when its q was last sent, in the world's order. */
  private readonly lastSent: Float64Array[] = [];
  /** Each prop's position and rotation (7 numbers) when it was last sent. */
  private readonly lastSentProps: Float64Array;

  constructor(private readonly writer: SnapshotWriter, props: number, private readonly sources: SnapshotSources) {
    this.lastSentProps = new Float64Array(7 * props).fill(NaN);
  }

  /** A body joined the room as the last one (sent in full with the next snapshot). */
  bodyEntered(body: RoomBody): void {
    this.lastSent.push(new Float64Array(body.entity.proxies.centers.length).fill(NaN));
  }

  /** The body at `index` left (those after it move down one). */
  bodyLeft(index: number): void {
    this.lastSent.splice(index, 1);
  }

  /** The snapshot of the world's tick now: what changed since last sent, or (`full`) everything, remembering nothing. */
  encode(full: boolean): Uint8Array {
    const w = this.writer, { world, bodies, characters } = this.sources;
    w.begin(world.tick);
    w.section();
    for (let b = 0; b < bodies.length; b++) {
      const entity = bodies[b].entity, at = entity.proxies.centers, last = this.lastSent[b];
      let moved = full;
      for (let i = 0; i < at.length && !moved; i++) moved = !(Math.abs(at[i] - last[i]) <= IDLE_DISTANCE);
      if (!moved) continue;
      w.body(bodies[b].slot, entity.body.q);
      if (!full) last.set(at);
    }
    for (const character of characters) character.writeBody(w, full);
    w.section();
    // Props as bodies: sent when they moved visibly since last sent, not whenever the physics keeps them awake (a
    // ball resting on a jelly never sleeps, and an idle room would never fall silent).
    const props = world.props, lastProps = this.lastSentProps;
    for (let p = 0; p < props.length; p++) {
      const body = props[p].body, o = 7 * p;
      if (!full && body.isSleeping()) continue;
      const t = body.translation(), r = body.rotation();
      const moved = full || !(Math.abs(t.x - lastProps[o]) <= IDLE_DISTANCE && Math.abs(t.y - lastProps[o + 1]) <= IDLE_DISTANCE
        && Math.abs(t.z - lastProps[o + 2]) <= IDLE_DISTANCE && Math.abs(r.x - lastProps[o + 3]) <= IDLE_TURN
        && Math.abs(r.y - lastProps[o + 4]) <= IDLE_TURN && Math.abs(r.z - lastProps[o + 5]) <= IDLE_TURN && Math.abs(r.w - lastProps[o + 6]) <= IDLE_TURN);
      if (!moved) continue;
      w.prop(p, t.x, t.y, t.z, r.x, r.y, r.z, r.w);
      if (full) continue;
      lastProps[o] = t.x; lastProps[o + 1] = t.y; lastProps[o + 2] = t.z;
      lastProps[o + 3] = r.x; lastProps[o + 4] = r.y; lastProps[o + 5] = r.z; lastProps[o + 6] = r.w;
    }
    w.section();
    for (const seat of this.sources.avatars.values()) {
      if (seat.poseMask === 0 || (!full && !seat.poseDirty)) continue;
      w.avatar(seat.slot, seat.poseMask, seat.poses);
      if (!full) seat.poseDirty = false;
    }
    w.section();
    for (const held of this.sources.grabs.values()) {
      if (!full && !held.moved) continue;
      w.grab(held.slot, held.target[0], held.target[1], held.target[2]);
      if (!full) held.moved = false;
    }
    w.section();
    for (const character of characters) character.writeEntry(w, full);
    return w.finish();
  }
}
