// The client's 60 Hz frame clock: how many frames each update() runs, and its frame numbers (grab inputs are sent
// with them). It keeps in step with the server so that the server applies exactly one of this client's frames per
// tick, as the prediction assumes: it follows a slow server's pace, runs ahead of its own slow updates, and skips
// frames when the server's queue of its inputs grows.

import { TICK_RATE, unwrapSeq, type AckMessage } from "../protocol";

const DT = 1 / TICK_RATE;
/**
 * Most 60 Hz frames one update() catches up: twice the usual interval between updates, from MIN_CATCH_UP_FRAMES to
 * MAX_CATCH_UP_FRAMES. A longer stall is skipped, not simulated: the server held this client's grabs where they were
 * meanwhile (it steps on with the last target when no input waits), which the next reconciliation takes in.
 */
const MIN_CATCH_UP_FRAMES = 4;
const MAX_CATCH_UP_FRAMES = 15;
/**
 * The server's queue of this client's grab inputs must not grow: when the server falls behind (a slow or
 * stalled server drops ticks; a client stalled and then caught up in a burst) it grows, and beyond
 * LIMITS.inputBacklog the server applies several frames in one tick, which no prediction can follow. The lead
 * (this client's frame minus the frame an acknowledgement says the server applied, at its arrival) measures it
 * but for the round trip: its least over QUEUE_WINDOW acknowledgements is compared with the least seen since the
 * grab began, and this client skips frames (runs slower) to take back any growth beyond QUEUE_SLACK frames.
 * Its clock follows the server's.
 */
const QUEUE_WINDOW = 4;
const QUEUE_SLACK = 3;
/**
 * A server that runs slower than TICK_RATE (overloaded, or catching up less than it fell behind) is followed:
 * its tick rate, measured over the snapshots of the last RATE_WINDOW_MS, sets this client's frame rate when it is
 * below RATE_FOLLOW_BELOW of the nominal rate (and never below a quarter of it).
 */
const RATE_WINDOW_MS = 1000;
const RATE_FOLLOW_BELOW = 0.9;
/**
 * A client whose frames come far apart (a slow renderer: update() every 50 ms) sends its inputs in bursts, and the
 * server's queue would run dry between them (it then steps with a stale target). So such a client runs ahead by
 * its update interval less one frame (at most MAX_LOOKAHEAD frames): the queue holds what the next burst brings.
 */
const MAX_LOOKAHEAD = 6;
/** The lead is measured once the server's queue has settled after the grab began (its jitter buffer filled). */
const QUEUE_SETTLE_FRAMES = 30;

/** What one update() of the clock gives: the frames to run, the frames skipped, and the ms since the last update. */
export interface ClockAdvance {
  frames: number;
  skipped: number;
  elapsed: number;
}

export class InputClock {
  /** This client's frame number: frames run so far. */
  frame = 0;
  /** The latest acknowledgement, its frame unwrapped (null before any). */
  lastAck: AckMessage | null = null;
  private lastUpdate = 0;
  private accumulator = 0;
  /** Leads at recent acknowledgements, the least lead since the grab began, and frames still to skip. */
  private readonly leads: number[] = [];
  private leastLead = Infinity;
  private framesToSkip = 0;
  private holdingSince = -1;
  /** Mean interval between update() calls (ms), and the frames this client runs ahead for it. */
  private updateInterval = 1000 / TICK_RATE;
  private lookahead = 0;
  /** When recent snapshots arrived and their ticks, oldest first (the server's pace). */
  private readonly snapshotArrivals: { at: number; tick: number }[] = [];

  /** `skipped` counts the frames skipped to let a server that fell behind catch up. */
  constructor(private readonly skipped: { skippedFrames: number }) {}

  /** The frames an update at `now` (ms) runs. */
  advance(now: number): ClockAdvance {
    if (this.lastUpdate === 0) this.lastUpdate = now;
    const elapsed = Math.max(0, now - this.lastUpdate);
    const catchUp = Math.max(MIN_CATCH_UP_FRAMES, Math.min(MAX_CATCH_UP_FRAMES, Math.ceil((2 * this.updateInterval * TICK_RATE) / 1000) + this.lookahead));
    this.accumulator = Math.min(this.accumulator + (elapsed / 1000) * this.serverPace(now), catchUp * DT);
    // Run ahead by the interval between updates (see MAX_LOOKAHEAD): a longer one adds frames now, a shorter one skips some.
    // (A one-off stall barely moves the mean; the lookahead shrinks only when the interval has clearly shrunk,
    // since each frame taken back is a tick the server's queue may run dry.)
    if (elapsed > 0) this.updateInterval += 0.1 * (Math.min(elapsed, 100) - this.updateInterval);
    const wanted = Math.max(0, Math.min(MAX_LOOKAHEAD, Math.ceil((this.updateInterval * TICK_RATE) / 1000 - 0.25) - 1));
    const lookahead = wanted > this.lookahead ? wanted : wanted < this.lookahead - 1 ? wanted + 1 : this.lookahead;
    if (lookahead > this.lookahead) this.accumulator += (lookahead - this.lookahead) * DT;
    else if (lookahead < this.lookahead) this.framesToSkip += this.lookahead - lookahead;
    this.lookahead = lookahead;
    this.lastUpdate = now;
    let frames = 0;
    while (this.accumulator >= DT) {
      this.accumulator -= DT;
      frames++;
    }
    const skipped = Math.min(frames, this.framesToSkip);
    this.framesToSkip -= skipped;
    return { frames: frames - skipped, skipped, elapsed };
  }

  /** Starts the next frame: its number. */
  nextFrame(): number {
    return ++this.frame;
  }

  /** A snapshot of server tick `tick` arrived at `now`: whether it is the newest so far. */
  snapshotArrived(tick: number, now: number): boolean {
    const arrivals = this.snapshotArrivals;
    const newest = !arrivals.length || tick > arrivals[arrivals.length - 1].tick;
    if (newest) arrivals.push({ at: now, tick });
    return newest;
  }

  /**
   * An acknowledgement arrived (`holding`: whether this client holds a body): keeps the server's queue of this
   * client's frames from growing (see QUEUE_WINDOW). Returns it with its frame unwrapped.
   */
  onAck(wrapped: AckMessage, holding: boolean): AckMessage {
    // Frames count on past 2^31 here (a double holds them for millennia); on the wire they wrap.
    const ack = { ...wrapped, seq: unwrapSeq(wrapped.seq, this.frame) };
    this.lastAck = ack;
    if (!holding) {
      this.leads.length = 0;
      this.leastLead = Infinity;
      this.holdingSince = -1;
      return ack;
    }
    if (this.holdingSince < 0) this.holdingSince = this.frame;
    if (this.frame - this.holdingSince < QUEUE_SETTLE_FRAMES) return ack;
    // Each lead counts the skips decided since (frames skipped lower the queue from then on).
    const leads = this.leads;
    leads.push(this.frame - ack.seq - this.framesToSkip - this.lookahead);
    if (leads.length > QUEUE_WINDOW) leads.shift();
    if (leads.length < QUEUE_WINDOW) return ack;
    let least = Infinity;
    for (const lead of leads) least = Math.min(least, lead);
    this.leastLead = Math.min(this.leastLead, least);
    const excess = least - this.leastLead - QUEUE_SLACK;
    if (excess < 1) return ack;
    this.framesToSkip += excess;
    this.skipped.skippedFrames += excess;
    for (let i = 0; i < leads.length; i++) leads[i] -= excess;
    return ack;
  }

  /** The server's tick rate over the last snapshots as a share of TICK_RATE, when it is clearly slower (else 1). */
  private serverPace(now: number): number {
    const arrivals = this.snapshotArrivals;
    while (arrivals.length > 2 && now - arrivals[0].at > RATE_WINDOW_MS) arrivals.shift();
    if (arrivals.length < 2) return 1;
    const first = arrivals[0], last = arrivals[arrivals.length - 1];
    // Time since the last snapshot counts too: a server that stopped sending is not fast.
    const span = Math.max(last.at, now) - first.at;
    if (span < RATE_WINDOW_MS / 2) return 1;
    const pace = ((last.tick - first.tick) * 1000) / TICK_RATE / span;
    return pace >= RATE_FOLLOW_BELOW ? 1 : Math.max(0.25, pace);
  }
}
