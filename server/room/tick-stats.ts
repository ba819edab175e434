// How a room's ticks have gone: the last ticks' durations (a ring buffer), overruns of the tick's period, the last
// sends' durations (acks and a snapshot, written after the tick: snapshot-sender.ts) and the snapshot bytes sent.
// The admin page and the benchmarks read them.

import { TICK_RATE } from "../../shared/net";

/** Ticks whose durations are kept. */
const KEPT_TICKS = 4096;

export class TickStats {
  /** Milliseconds of the last ticks (ring buffer, newest at `cursor - 1`). */
  readonly durations = new Float64Array(KEPT_TICKS);
  cursor = 0;
  count = 0;
  /** Ticks that took longer than the tick's period. */
  overruns = 0;
  /** Snapshot bytes sent, times the clients each went to. */
  snapshotBytes = 0;
  /** Milliseconds of the last sends (ring buffer, newest at `sendCursor - 1`). */
  readonly sendDurations = new Float64Array(KEPT_TICKS);
  sendCursor = 0;
  sendCount = 0;

  record(ms: number): void {
    this.durations[this.cursor] = ms;
    this.cursor = (this.cursor + 1) % this.durations.length;
    this.count++;
    if (ms > 1000 / TICK_RATE) this.overruns++;
  }

  recordSend(ms: number): void {
    this.sendDurations[this.sendCursor] = ms;
    this.sendCursor = (this.sendCursor + 1) % this.sendDurations.length;
    this.sendCount++;
  }

  /** The 99th percentile of the kept ticks' durations, ms (0 before the first). */
  p99(): number {
    const n = Math.min(this.count, this.durations.length);
    if (n === 0) return 0;
    const recent = Float64Array.from(this.durations.subarray(0, n)).sort();
    return recent[Math.min(n - 1, Math.floor(0.99 * n))];
  }
}
