// Other people's grabs, mirrored on the bodies this client predicts so that their pulls are predicted too: created
// where their hand is now, moved with it, dropped when they let go; on the very material the server's grab holds
// once the server has said which (grab-held), on the samples nearest the hand until then.

import type { GrabHeldMessage } from "../protocol";
import type { RoomState } from "../state";
import type { ClientBody } from "./client-body";

type Point = [number, number, number];

export class GrabMirror {
  /** Latest target of every grab in the room, by GrabState.slot (from snapshots). */
  readonly targets = new Map<number, Point>();
  /** Other people's grabs replicated on bodies this client predicts, by "sessionId:hand". */
  private readonly replicas = new Map<string, { body: ClientBody; grab: number; slot: number; exact: boolean }>();
  /** The material other people's grabs hold on bodies this client holds too (grab-held), by "sessionId:hand". */
  private readonly heldMaterial = new Map<string, GrabHeldMessage>();

  constructor(private readonly state: () => RoomState | undefined, private readonly sessionId: () => string) {}

  /** Mirrors the room's grabs on a predicted body (see above). */
  sync(body: ClientBody): void {
    const grabs = this.state()?.grabs;
    if (!grabs) return;
    for (const [key, replica] of this.replicas) {
      const state = grabs.get(key);
      if (replica.body === body && (!state || state.body !== body.id)) {
        body.entity.release(replica.grab);
        this.replicas.delete(key);
        this.heldMaterial.delete(key);
      }
    }
    const self = this.sessionId();
    for (const [key, state] of grabs) {
      if (state.owner === self || state.body !== body.id) continue;
      const target = this.targets.get(state.slot) ?? [state.x, state.y, state.z];
      const replica = this.replicas.get(key);
      if (replica) {
        body.entity.moveGrab(replica.grab, target[0], target[1], target[2]);
        continue;
      }
      const material = this.heldMaterial.get(key);
      const exact = material?.body === body.id;
      try {
        // The server's material when it has said (grab-held); until then the samples nearest the hand, which settle a
        // little off where the server's do, and snapshots correct the difference.
        const grab = exact
          ? body.entity.grabExactly(material.samples, material.offsets, target[0], target[1], target[2])
          : body.entity.grabAt(target[0], target[1], target[2]);
        if (grab >= 0) this.replicas.set(key, { body, grab, slot: state.slot, exact });
      } catch {
        // The solver's grab slots are full (or the samples do not fit the body): the server's corrections carry this pull.
      }
    }
  }

  /** The body is no longer predicted: its mirrored grabs leave its solver (told again, grab-held, when next held). */
  releaseOn(body: ClientBody): void {
    for (const [key, replica] of this.replicas) {
      if (replica.body !== body) continue;
      body.entity.release(replica.grab);
      this.replicas.delete(key);
      this.heldMaterial.delete(key);
    }
  }

  /** Another person's grab on a body this client holds: replicate it on the very material the server's grab holds. */
  onGrabHeld(held: GrabHeldMessage): void {
    this.heldMaterial.set(held.key, held);
    const replica = this.replicas.get(held.key);
    if (!replica) return;
    // The replica made before this arrived holds the samples nearest the hand (or an earlier grab's): made again.
    replica.body.entity.release(replica.grab);
    this.replicas.delete(held.key);
    if (replica.body.predicting) this.sync(replica.body);
  }
}
