// How a room treats what its clients send: a valid message within budget is applied; anything else is dropped with
// a reason the client is told (once a second at most) and the log gets; too many drops and the client is kicked.
// A handler's own exception is the client's fault only when it is a validation error (SimParameterError); any
// other is the server's, logged once a minute per message type with its stack, and the room goes on.

import type { Client } from "@colyseus/core";
import { KICK_CLOSE_CODE, LIMITS, MESSAGES, TICK_RATE, type NoticeMessage, type Parsed } from "../../shared/net";
import { SimParameterError } from "../../shared/sim";
import { throttledLog } from "../logging/throttled-log";
import { frameRefusal, isPingFrame } from "./room-frames";
import type { Seat } from "./seats";

/** A server failure on one kind of message is logged at most this often (ms), with a count of the ones held back. */
const SERVER_FAULT_LOG_MS = 60_000;
/** Milliseconds a kicked client's socket is given to finish closing before it is cut (a flooder need not answer). */
const KICKED_SOCKET_GRACE_MS = 1000;

export interface GuardHost {
  roomId(): string;
  seat(sessionId: string): Seat | undefined;
  /** The world's tick now. */
  tick(): number;
  log(line: string): void;
  /** Ends a seat now (what it held is let go; it leaves the state). */
  endSeat(sessionId: string): void;
  /** Runs `callback` after `ms` on the room's clock. */
  later(callback: () => void, ms: number): void;
}

export class ClientGuard {
  /** The server's own failures on a message, per message type: a bug hit 60 times a second is one line a minute. */
  private readonly serverFaults;

  constructor(private readonly host: GuardHost) {
    this.serverFaults = throttledLog(host.log, SERVER_FAULT_LOG_MS);
  }

  /**
   * Whether a client's raw frame is read: from a seated client, within its message budget, of a kind the room
   * serves (room-frames.ts). Every frame counts against the budget; what is refused is dropped like a bad message.
   */
  admitFrame(client: Client, buffer: Uint8Array): boolean {
    const seat = this.host.seat(client.sessionId);
    // Not seated (yet), or kicked: nothing it sends is read.
    if (!seat || seat.kicked) return false;
    if (!seat.limiter.take()) {
      this.reject(client, `over ${LIMITS.messagesPerSecond} messages a second`);
      // A ping over the budget counts towards a kick like any frame, but one a second is still answered: a client
      // sends no other ping until its pong comes, so a dropped one would leave it measuring nothing for good.
      const tick = this.host.tick();
      if (!isPingFrame(buffer) || seat.kicked || tick - seat.overBudgetPingTick < TICK_RATE) return false;
      seat.overBudgetPingTick = tick;
    }
    const refusal = frameRefusal(buffer);
    if (refusal) this.reject(client, refusal);
    return refusal === null;
  }

  /** Runs `apply` on a valid, in-budget message; drops anything else with a logged reason. */
  handle<T>(client: Client, type: string, parsed: Parsed<T>, apply: (value: T) => string | null): void {
    const seat = this.host.seat(client.sessionId);
    if (!seat || seat.kicked) return;
    // Heard: a message, even a bad one, is not the silence of a frozen page (pings are: a sleeping page's timers
    // may still run; a page sends keepalives only while it draws). Counted against its budget as its frame arrived
    // (the room's frame screen).
    seat.lastHeard = this.host.tick();
    if (!parsed.ok) return this.reject(client, `${type}: ${parsed.reason}`);
    try {
      const problem = apply(parsed.value);
      if (problem) this.reject(client, `${type}: ${problem}`);
    } catch (error) {
      const problem = this.clientsFault(type, error);
      if (problem) this.reject(client, `${type}: ${problem}`);
    }
  }

  /**
   * What a message's handler threw: a solver parameter error is the message's fault (its reason, for a refusal);
   * anything else is the server's, logged with its stack (throttled) without blaming the client, and the room
   * goes on (null).
   */
  clientsFault(type: string, error: unknown): string | null {
    if (error instanceof SimParameterError) return error.message;
    this.serverFaults(type, `room ${this.host.roomId()}: the server failed on a ${type} message (not the client's fault): ${(error as Error)?.stack ?? String(error)}`);
    return null;
  }

  reject(client: Client, reason: string): void {
    const seat = this.host.seat(client.sessionId);
    if (!seat) return;
    const dropped = seat.limiter.drop();
    const now = Date.now();
    if (now - seat.lastNoticeAt > 1000) {
      seat.lastNoticeAt = now;
      this.host.log(`room ${this.host.roomId()}: dropped a message from ${client.sessionId}: ${reason}`);
      client.send(MESSAGES.notice, { kind: "rejected", message: reason } satisfies NoticeMessage);
    }
    if (dropped > LIMITS.kickAfterDropped) this.kick(client, `kicked: ${dropped} messages dropped in 10 s`);
  }

  kick(client: Client, message: string): void {
    const seat = this.host.seat(client.sessionId);
    if (!seat || seat.kicked) return;
    seat.kicked = true;
    this.host.log(`room ${this.host.roomId()}: ${client.sessionId} ${message}`);
    client.send(MESSAGES.notice, { kind: "kicked", message } satisfies NoticeMessage);
    client.leave(KICK_CLOSE_CODE, message);
    // Its seat ends now, not when its socket has finished closing, and nobody may reconnect into it; a socket that
    // does not answer the close is cut.
    this.host.endSeat(client.sessionId);
    seat.awaiting?.reconnection.reject(new Error("kicked"));
    const socket = client.ref as { terminate?(): void } | undefined;
    this.host.later(() => socket?.terminate?.(), KICKED_SOCKET_GRACE_MS);
  }
}
