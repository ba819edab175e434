// How a room's ticks have gone: the last ticks' durations, overruns of the tick's period, the last sends' durations
// (acks and a snapshot, written just after the tick that encodes them: snapshot-sender.ts; a tick's time leaves
// them out) and the snapshot bytes sent. The admin page and the benchmarks read them.

import { TICK_RATE, TICKS_PER_SNAPSHOT } from "../../shared/net";

/** Ticks whose durations are kept (68 s), and sends (one a snapshot: the same span). */
const KEPT_TICKS = 4096;
const KEPT_SENDS = Math.ceil(KEPT_TICKS / TICKS_PER_SNAPSHOT);

/** The last durations recorded (ms), in a ring buffer: the newest at `cursor - 1`. */
export class RecentDurations {
  readonly values: Float64Array;
  cursor = 0;
  /** Recorded in all (also those no longer kept). */
  count = 0;

  constructor(kept: number) {
    this.values = new Float64Array(kept);
  }

  record(ms: number): void {
    this.values[this.cursor] = ms;
    this.cursor = (this.cursor + 1) % this.values.length;
    this.count++;
  }

  /** Appends to `out` what was recorded since the cursor `from` (read earlier); returns the cursor now. */
  readSince(from: number, out: number[]): number {
    for (let c = from; c !== this.cursor; c = (c + 1) % this.values.length) out.push(this.values[c]);
    return this.cursor;
  }

  /** The 99th percentile of those kept, ms (0 before the first). */
  p99(): number {
    const n = Math.min(this.count, this.values.length);
    if (n === 0) return 0;
    const recent = Float64Array.from(this.values.subarray(0, n)).sort();
    return recent[Math.min(n - 1, Math.floor(0.99 * n))];
  }
}

export class TickStats {
  readonly ticks = new RecentDurations(KEPT_TICKS);
  readonly sends = new RecentDurations(KEPT_SENDS);
  /** Ticks that took longer than the tick's period (the sends after them not counted). */
  overruns = 0;
  /** Snapshot bytes sent, times the clients each went to. */
  snapshotBytes = 0;

  record(ms: number): void {
    this.ticks.record(ms);
    if (ms > 1000 / TICK_RATE) this.overruns++;
  }
}
