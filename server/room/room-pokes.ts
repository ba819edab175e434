// The room's fingertips: each hand that pokes holds one of the world's MAX_POKES poke slots while it keeps
// refreshing it, and lets it go when told (radius 0), when its seat goes, or when it has been silent too long.

import { LIMITS, TICK_RATE } from "../../shared/net";
import { MAX_POKES, type SceneWorld } from "../../shared/scene";

/** Pokes not refreshed for this long end on their own. */
const POKE_TIMEOUT_TICKS = LIMITS.silentHoldSeconds * TICK_RATE;

export class RoomPokes {
  /** By "sessionId:hand": the world's poke slot, and the tick it was last refreshed at. */
  private readonly held = new Map<string, { slot: number; lastTick: number }>();
  private readonly free: number[] = [];

  constructor(private readonly world: SceneWorld) {
    for (let i = MAX_POKES - 1; i >= 0; i--) this.free.push(i);
  }

  /** Fingertips held now. */
  get size(): number {
    return this.held.size;
  }

  /**
   * A client's fingertip message, for its `hand` ("sessionId:hand" is its key): radius 0 ends it (anyone may end
   * their own, even one an admin's change has since forbidden); else it presses, unless `refusal` says why not.
   */
  fromClient(sessionId: string, hand: string, center: readonly [number, number, number], radius: number, refusal: string | null): string | null {
    const key = `${sessionId}:${hand}`;
    if (radius > 0) return refusal ?? this.press(key, center, radius);
    this.end(key);
    return null;
  }

  /** A fingertip at `center` (radius > 0) for `key`; a reason when the room has no slot left for it. */
  press(key: string, center: readonly [number, number, number], radius: number): string | null {
    let held = this.held.get(key);
    if (!held) {
      const slot = this.free.pop();
      if (slot === undefined) return "too many pokes in the room right now";
      held = { slot, lastTick: this.world.tick };
      this.held.set(key, held);
    }
    held.lastTick = this.world.tick;
    this.world.setPoke(held.slot, center[0], center[1], center[2], radius);
    return null;
  }

  end(key: string): void {
    const held = this.held.get(key);
    if (!held) return;
    this.world.setPoke(held.slot, 0, 0, 0, 0);
    this.free.push(held.slot);
    this.held.delete(key);
  }

  /** Ends every fingertip whose key `which` picks (all without it). */
  endAll(which: (key: string) => boolean = () => true): void {
    for (const key of [...this.held.keys()]) if (which(key)) this.end(key);
  }

  /** Ends the fingertips not refreshed for POKE_TIMEOUT_TICKS. */
  expire(): void {
    for (const [key, poke] of this.held) if (this.world.tick - poke.lastTick > POKE_TIMEOUT_TICKS) this.end(key);
  }
}
