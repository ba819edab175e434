// The room's grabs: hands holding soft bodies (a solver grab each, in the room state for everyone and in snapshots
// by slot) and hands holding characters (held in the character's frame; nobody predicts those). Grab inputs are
// applied here one at a time (input-queue.ts gives them in frame order); a grab pulled too far slips, a body put
// back or leaving drops its grabs, and whoever loses a grab they did not release is told why.

import type { Client } from "@colyseus/core";
import { CHARACTER_GRAB_SLIP } from "../../shared/rig/character-defaults";
import { GrabState, LIMITS, MESSAGES, type GrabHeldMessage, type GrabResultMessage, type Hand, type RoomState } from "../../shared/net";
import type { GrabInput } from "./input-queue";
import type { RoomCharacter } from "./room-character";
import type { RoomBody } from "./room-uploads";
import { length3 } from "../../shared/linalg/vector-length";

export interface HeldGrab {
  sessionId: string;
  hand: Hand;
  body: RoomBody;
  grab: number;
  /** GrabState.slot: the grab's index in snapshots. */
  slot: number;
  target: Float64Array;
  /** Its target moved since the last snapshot. */
  moved: boolean;
}

/** What of the room the grabs work with. */
export interface GrabsHost {
  state: RoomState;
  /** A seat's client and role, and the count of what it holds (undefined once the seat is gone). */
  seat(sessionId: string): { client: Client; role: "player" | "spectator"; holding: number } | undefined;
  characters(): readonly RoomCharacter[];
  body(id: string): RoomBody | undefined;
  /** An exception applying a client's input: the reason when it is the client's fault, null when it is the server's. */
  clientsFault(type: string, error: unknown): string | null;
}

export class RoomGrabs {
  /** Hands holding soft bodies, by "sessionId:hand". */
  readonly onBodies = new Map<string, HeldGrab>();
  /** Hands holding a character, by "sessionId:hand". */
  readonly onCharacters = new Map<string, { character: RoomCharacter; sessionId: string; hand: Hand }>();

  constructor(private readonly host: GrabsHost) {}

  /** Whether anyone holds anything. */
  get active(): boolean {
    return this.onBodies.size > 0 || this.onCharacters.size > 0;
  }

  /** Applies one grab input of a client; a reason when it refused it. */
  apply(client: Client, input: GrabInput): string | null {
    try {
      switch (input.kind) {
        case "start":
          return this.start(client, input.message.hand, input.message.body, input.message.point);
        case "end":
          this.release(client.sessionId, input.message.hand);
          return null;
        case "move": {
          const key = `${client.sessionId}:${input.message.hand}`;
          const holding = this.onCharacters.get(key);
          if (holding) {
            // It walks on: a hand it has left behind lets go, as a slip (the player did nothing wrong).
            if (!holding.character.moveGrab(key, input.message.target)) this.letGoOfCharacter(key, `the ${holding.character.name} slipped out of your hand`);
            return null;
          }
          const held = this.onBodies.get(key);
          if (!held) return `no grab held by ${input.message.hand}`;
          const bound = held.body.entity.proxies.bound;
          const [x, y, z] = input.message.target;
          if (length3(x - bound[0], y - bound[1], z - bound[2]) > LIMITS.grabStretch + bound[3]) return `grab target is more than ${LIMITS.grabStretch} m from the body`;
          held.body.entity.moveGrab(held.grab, x, y, z);
          held.target[0] = x; held.target[1] = y; held.target[2] = z;
          held.moved = true;
          return null;
        }
      }
    } catch (error) {
      const problem = this.host.clientsFault(`grab-${input.kind}`, error);
      // A start that threw answered nothing yet: the page waits for its grab-result.
      if (input.kind === "start") {
        const { hand, body } = input.message;
        client.send(MESSAGES.grabResult, { hand, body, ok: false, reason: problem ?? "the server could not start this grab" } satisfies GrabResultMessage);
      }
      return problem;
    }
  }

  /** A hand lets go (its own grab-end, or a new grab by the same hand). */
  release(sessionId: string, hand: Hand): void {
    const key = `${sessionId}:${hand}`;
    const holding = this.onCharacters.get(key);
    if (holding) {
      holding.character.release(key);
      this.onCharacters.delete(key);
      const seat = this.host.seat(sessionId);
      if (seat) seat.holding--;
      return;
    }
    const held = this.onBodies.get(key);
    if (!held) return;
    held.body.entity.release(held.grab);
    this.onBodies.delete(key);
    const seat = this.host.seat(sessionId);
    if (seat) seat.holding--;
    this.host.state.grabs.delete(key);
  }

  /** Ends every grab whose holder `which` picks; with a `reason`, each holder is told. */
  releaseWhere(which: (sessionId: string) => boolean, reason?: string): void {
    for (const held of [...this.onBodies.values()]) {
      if (!which(held.sessionId)) continue;
      if (reason) this.letGo(held, reason);
      else this.release(held.sessionId, held.hand);
    }
    for (const [key, held] of [...this.onCharacters]) if (which(held.sessionId)) this.letGoOfCharacter(key, reason);
  }

  /** Ends every hold on a character (it is leaving the room), telling each holder `reason`. */
  releaseOnCharacter(character: RoomCharacter, reason: string): void {
    for (const [key, held] of [...this.onCharacters]) if (held.character === character) this.letGoOfCharacter(key, reason);
  }

  /** Ends every grab on a body (it left, or was put back at its spawn), telling each holder `reason`. */
  releaseOn(body: RoomBody, reason: string): void {
    for (const held of [...this.onBodies.values()]) if (held.body === body) this.letGo(held, reason);
  }

  /**
   * A grab that cannot bring its material anywhere near its target (hands pulling one body far apart, a target
   * behind a wall) slips out of the hand, as it would in real life: that keeps stiff grab springs from tearing a
   * soft body apart faster than the solver can follow.
   */
  slipOverstretched(): void {
    // The live maps (no copy each tick): letting go deletes only the entry being visited, which a Map allows.
    for (const held of this.onBodies.values()) {
      if (held.body.entity.slipping(held.grab)) this.letGo(held, "the body slipped out of your hand");
    }
    for (const [key, held] of this.onCharacters) {
      if (held.character.stretch(key) > CHARACTER_GRAB_SLIP) this.letGoOfCharacter(key, `the ${held.character.name} slipped out of your hand`);
    }
  }

  private start(client: Client, hand: Hand, bodyId: string, point: [number, number, number]): string | null {
    const seat = this.host.seat(client.sessionId)!, state = this.host.state;
    if (seat.role === "spectator" && !state.spectatorGrabs) {
      client.send(MESSAGES.grabResult, { hand, body: bodyId, ok: false, reason: "spectators cannot grab in this room" });
      return "spectators cannot grab in this room";
    }
    const character = this.host.characters().find((c) => c.id === bodyId);
    if (character) return this.startOnCharacter(client, hand, character, point);
    const placed = this.host.body(bodyId);
    if (!placed || placed.leaving) {
      client.send(MESSAGES.grabResult, { hand, body: bodyId, ok: false, reason: `the ${state.bodies.get(bodyId)?.name || bodyId} is leaving the room` });
      return null;
    }
    const entity = placed.entity;
    this.release(client.sessionId, hand);
    let grab = -1;
    try {
      grab = entity.grabAt(point[0], point[1], point[2]);
    } catch (error) {
      client.send(MESSAGES.grabResult, { hand, body: bodyId, ok: false, reason: (error as Error).message });
      return null;
    }
    if (grab < 0) {
      client.send(MESSAGES.grabResult, { hand, body: bodyId, ok: false, reason: "the point is not on the body's surface" });
      return null;
    }
    const slot = this.freeSlot();
    const key = `${client.sessionId}:${hand}`;
    this.onBodies.set(key, { sessionId: client.sessionId, hand, body: placed, grab, slot, target: Float64Array.from(point), moved: true });
    seat.holding++;
    const held = entity.grabbedSamples(grab);
    state.grabs.set(key, new GrabState({ slot, body: bodyId, owner: client.sessionId, hand, x: point[0], y: point[1], z: point[2] }));
    client.send(MESSAGES.grabResult, { hand, body: bodyId, ok: true, point: [point[0], point[1], point[2]], samples: held.samples, offsets: held.offsets } satisfies GrabResultMessage);
    this.shareHeldMaterial(key, placed);
    return null;
  }

  /**
   * People holding the same body predict each other's pulls: each is told the material the others' grabs hold (the
   * new grab to those already holding it, theirs to the new grabber). Nobody else needs it.
   */
  private shareHeldMaterial(key: string, placed: RoomBody): void {
    const started = this.onBodies.get(key)!;
    const startedMaterial = { key, body: placed.spec.id, ...placed.entity.grabbedSamples(started.grab) } satisfies GrabHeldMessage;
    const told = new Set<string>();
    for (const [otherKey, other] of this.onBodies) {
      if (other.body !== placed || other.sessionId === started.sessionId) continue;
      const grabber = this.host.seat(started.sessionId)?.client;
      grabber?.send(MESSAGES.grabHeld, { key: otherKey, body: placed.spec.id, ...placed.entity.grabbedSamples(other.grab) } satisfies GrabHeldMessage);
      if (told.has(other.sessionId)) continue;
      told.add(other.sessionId);
      this.host.seat(other.sessionId)?.client.send(MESSAGES.grabHeld, startedMaterial);
    }
  }

  /** A hand on a character: held in its frame (it walks on under the hand); nobody predicts it, so no samples go back. */
  private startOnCharacter(client: Client, hand: Hand, character: RoomCharacter, point: [number, number, number]): string | null {
    this.release(client.sessionId, hand);
    const key = `${client.sessionId}:${hand}`;
    const refusal = character.grab(key, point);
    if (refusal) {
      client.send(MESSAGES.grabResult, { hand, body: character.id, ok: false, reason: refusal } satisfies GrabResultMessage);
      return null;
    }
    this.onCharacters.set(key, { character, sessionId: client.sessionId, hand });
    this.host.seat(client.sessionId)!.holding++;
    client.send(MESSAGES.grabResult, { hand, body: character.id, ok: true, point: [point[0], point[1], point[2]] } satisfies GrabResultMessage);
    return null;
  }

  /** Ends a hand's hold on a character; with a reason, its holder is told (a slip, an admin's switch). */
  private letGoOfCharacter(key: string, reason?: string): void {
    const held = this.onCharacters.get(key);
    if (!held) return;
    this.release(held.sessionId, held.hand);
    if (reason) this.host.seat(held.sessionId)?.client.send(MESSAGES.grabResult, { hand: held.hand, body: held.character.id, ok: false, reason } satisfies GrabResultMessage);
  }

  /** Ends a grab the holder did not release, and tells them why. */
  private letGo(held: HeldGrab, reason: string): void {
    this.release(held.sessionId, held.hand);
    this.host.seat(held.sessionId)?.client.send(MESSAGES.grabResult, { hand: held.hand, body: held.body.spec.id, ok: false, reason } satisfies GrabResultMessage);
  }

  private freeSlot(): number {
    const used = new Set([...this.onBodies.values()].map((g) => g.slot));
    let slot = 0;
    while (used.has(slot)) slot++;
    return slot;
  }
}
