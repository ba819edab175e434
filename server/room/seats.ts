// A room's seats: who is connected (or waiting to reconnect), in which role and slot, with their budgets, poses,
// grab inputs and connection health. The room keeps them in a map by session id; these are the rules over it.

import type { Client, Deferred } from "@colyseus/core";
import { LIMITS, MESSAGES, UPLOAD_LIMITS, type AckMessage, type PlayerState, type PoseMessage } from "../../shared/net";
import { RateLimiter } from "./rate-limiter";
import { LatencyProbe } from "./latency-probe";
import { InputQueue, type GrabInput } from "./input-queue";

export type SeatRole = "player" | "spectator";

export interface Seat {
  client: Client;
  role: SeatRole;
  slot: number;
  limiter: RateLimiter;
  /** Grab starts, limited apart: each one patches the shared state. */
  grabStarts: RateLimiter;
  /** Upload tickets asked for (each is a presence key until it expires). */
  tickets: RateLimiter;
  lastNoticeAt: number;
  /** When this client was last told that the table cannot be reset yet (ms). */
  resetRefusedAt: number;
  admin: boolean;
  /** head, left, right poses (7 each) and which are present. */
  poses: Float64Array;
  poseMask: number;
  poseDirty: boolean;
  /** Its grab inputs, applied one frame (seq) per tick, and what was applied last (its ack). */
  inputs: InputQueue;
  /** Being kicked: its remaining messages are ignored. */
  kicked: boolean;
  /** A stand's big screen: while one watches, an idle room's bodies bounce now and then (attract-wobble.ts). */
  kiosk: boolean;
  /** Its connection's round-trip time (for the admin page); undefined for a connection that cannot be pinged. */
  latency: LatencyProbe | undefined;
  /** Grabs it holds now. */
  holding: number;
  /** World tick of its last message. */
  lastHeard: number;
  /** World tick of the last ping it sent over its budget that was still answered (one a second at most). */
  overBudgetPingTick: number;
  /** Its connection dropped: in which order (the room's count of drops), and the reconnection its seat waits for. */
  awaiting?: { order: number; reconnection: Deferred<Client> };
}

export interface NewSeat {
  client: Client;
  role: SeatRole;
  slot: number;
  admin: boolean;
  /** Only a spectator's seat is a kiosk. */
  kiosk: boolean;
  /** The world's tick now. */
  tick: number;
  /** Applies one of its grab inputs when its frame comes (InputQueue). */
  applyInput(seat: Seat, input: GrabInput): void;
}

export function newSeat(settings: NewSeat): Seat {
  const { client, role, slot, admin, kiosk, tick, applyInput } = settings;
  const seat: Seat = {
    client, role, slot, limiter: new RateLimiter(LIMITS.messagesPerSecond, LIMITS.messageBurst), lastNoticeAt: 0, resetRefusedAt: 0,
    grabStarts: new RateLimiter(LIMITS.grabStartsPerSecond, LIMITS.grabStartsPerSecond),
    tickets: new RateLimiter(UPLOAD_LIMITS.ticketsPerSecond, UPLOAD_LIMITS.ticketBurst),
    admin, poses: new Float64Array(21), poseMask: 0, poseDirty: false,
    inputs: new InputQueue((input) => applyInput(seat, input)),
    kicked: false, holding: 0, overBudgetPingTick: -Infinity,
    lastHeard: tick, latency: LatencyProbe.of(client), kiosk: kiosk && role === "spectator",
  };
  return seat;
}

export function playerCount(seats: ReadonlyMap<string, Seat>): number {
  let count = 0;
  for (const seat of seats.values()) if (seat.role === "player") count++;
  return count;
}

/** The lowest slot no seat has (255 when all are taken). */
export function freeSlot(seats: ReadonlyMap<string, Seat>): number {
  const used = new Set([...seats.values()].map((s) => s.slot));
  for (let slot = 0; slot < 255; slot++) if (!used.has(slot)) return slot;
  return 255;
}

/** The seat of `role` that has waited longest for its dropped connection, if one waits. */
export function oldestWaitingSeat(seats: ReadonlyMap<string, Seat>, role: SeatRole): [string, Seat] | undefined {
  let oldest: [string, Seat] | undefined;
  for (const entry of seats) {
    const waiting = entry[1].awaiting;
    if (entry[1].role === role && waiting && (!oldest || waiting.order < oldest[1].awaiting!.order)) oldest = entry;
  }
  return oldest;
}

/** Why a seat may not `act` (null when it may): spectators play only in a room that lets them. */
export function playRefusal(seat: Seat, spectatorsPlay: boolean, act: string): string | null {
  return seat.role === "spectator" && !spectatorsPlay ? `spectators cannot ${act} in this room` : null;
}

/** Colours a new seat must stand apart from: a player's from the other players', a spectator's from everyone's. */
export function coloursToAvoid(players: Iterable<PlayerState>, role: SeatRole): string[] {
  return [...players].filter((p) => role === "spectator" || p.role === "player").map((p) => p.color);
}

/**
 * Tells each seat which of its input frames the world has applied (at `tick`), when that changed or while it holds
 * something: sent before the snapshot, so that on the same socket it arrives before the snapshot it describes.
 */
export function sendAcks(seats: ReadonlyMap<string, Seat>, tick: number): void {
  for (const seat of seats.values()) {
    const inputs = seat.inputs;
    if (!inputs.ackDirty && seat.holding === 0) continue;
    seat.client.send(MESSAGES.ack, { tick, seq: inputs.ack, lag: tick - inputs.ackTick } satisfies AckMessage);
    inputs.ackDirty = false;
  }
}

/** Where the seat's head and hands are now (what avatars show in the next snapshot). */
export function takePose(seat: Seat, pose: PoseMessage): void {
  seat.poses.set(pose.head, 0);
  seat.poseMask = 1;
  if (pose.left) { seat.poses.set(pose.left, 7); seat.poseMask |= 2; }
  if (pose.right) { seat.poses.set(pose.right, 14); seat.poseMask |= 4; }
  seat.poseDirty = true;
}
