// A room's acks and snapshots are written to the sockets just after its tick, not inside it. The tick encodes the
// snapshot once for every client (the world's state at that tick); the writes run as a microtask, once the timer's
// callback has returned and before any message, join or reconnection is handled, so a crowd of watchers adds no time
// to the tick itself (the send still takes its share of the 16.7 ms period: see reserveMs). A tick that finds the
// last snapshot still waiting (Colyseus's fixed timestep ran two ticks in one callback) sends it before it applies
// any input, so an ack always goes out with the snapshot of the tick it describes.

import { EMPTY_SNAPSHOT_BYTES } from "../../shared/net";
import type { TickStats } from "./tick-stats";

/** Per send, how much of the costliest recent send the expected cost keeps. */
const SEND_COST_DECAY = 0.5;
/**
 * The most a send may take from a tick's soft-body budget (ms). It runs in the same period as the tick, so the tick
 * that encodes it leaves room for it; a one-off hiccup (a GC pause) cannot starve the bodies.
 */
const MAX_SEND_RESERVE_MS = 3;

export interface SnapshotSenderHost {
  /** The snapshot of the tick just stepped (a view the next encode may overwrite). */
  encode(): Uint8Array;
  /** Each client's ack of its inputs, for the snapshot of `tick`. */
  sendAcks(tick: number): void;
  broadcast(bytes: Uint8Array): void;
  clientCount(): number;
  /** Whether the room closed (nothing is sent any more). */
  closed(): boolean;
  /** A send threw: the room closes, as after a tick that throws. */
  fail(error: unknown): void;
}

export class SnapshotSender {
  /** What sending acks and a snapshot costs (ms): the recent sends' decaying maximum. */
  private expectedMs = 0;
  private pending = false;
  private pendingTick = 0;
  /** The waiting snapshot's bytes: a copy, so that nothing encoded before the send can change them. */
  private buffer = new Uint8Array(1024);
  private length = 0;
  private readonly sendSoon = () => {
    try {
      this.flush();
    } catch (error) {
      this.host.fail(error);
    }
  };

  constructor(private readonly host: SnapshotSenderHost, private readonly stats: TickStats) {}

  /** What a tick that encodes a snapshot leaves its soft bodies for the send after it (ms). */
  get reserveMs(): number {
    return Math.min(MAX_SEND_RESERVE_MS, this.expectedMs);
  }

  /** In a tick that sends: the snapshot of `tick` encoded now, sent as soon as the tick's callback returns. */
  prepare(tick: number): void {
    const bytes = this.host.encode();
    if (bytes.byteLength > this.buffer.byteLength) this.buffer = new Uint8Array(2 * bytes.byteLength);
    this.buffer.set(bytes);
    this.length = bytes.byteLength;
    this.pendingTick = tick;
    this.pending = true;
    queueMicrotask(this.sendSoon);
  }

  /** Sends what waits, if anything: the acks, then the snapshot (left out when nothing moved). */
  flush(): void {
    if (!this.pending) return;
    this.pending = false;
    if (this.host.closed()) return;
    const started = performance.now();
    this.host.sendAcks(this.pendingTick);
    if (this.length > EMPTY_SNAPSHOT_BYTES) {
      this.host.broadcast(this.buffer.subarray(0, this.length));
      this.stats.snapshotBytes += this.length * this.host.clientCount();
    }
    const ms = performance.now() - started;
    this.expectedMs = Math.max(ms, SEND_COST_DECAY * this.expectedMs);
    this.stats.sends.record(ms);
  }
}
