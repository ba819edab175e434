// One client's grab inputs, queued as they arrive and applied one frame (seq) per tick, as the client's prediction
// assumes: a lost move is recovered from the `earlier` targets the next one carries, a queue that ran dry refills a
// few frames before it is applied again (network jitter then rarely empties it), and a queue that has grown beyond
// LIMITS.inputBacklog frames is caught up several frames a tick. What the room last applied is acknowledged.
//
// Not Colyseus 0.18's defineInput: its input is one schema frame per client per tick in its own wire format, and its
// buffer drops or idles. Pliant's protocol (docs/protocol.md) sends grab-start, grab-move and grab-end per hand with
// their frame numbers and lost-move recovery, and needs the refill and the catch-up above; taking defineInput would
// change the public protocol every client speaks.

import { LIMITS, seqAfter, seqMinus, type GrabEndMessage, type GrabMoveMessage, type GrabStartMessage, type Hand } from "../../shared/net";

export type GrabInput = ({ kind: "start"; message: GrabStartMessage } | { kind: "move"; message: GrabMoveMessage } | { kind: "end"; message: GrabEndMessage }) & {
  /** World tick it arrived at. */
  arrived: number;
};

/**
 * After a client's input queue ran empty, wait for this many frames before applying again, so that network jitter
 * rarely empties it: every tick should apply exactly one frame, as the client's prediction did (an empty tick steps
 * with a stale target, which the prediction cannot know).
 */
const JITTER_FRAMES = 3;
/** ...but never longer than this many ticks (a last input must not wait for a next one). */
const JITTER_TICKS = 4;
/** Queued grab inputs a client may have at most (the rate limit keeps honest clients far below). */
const MAX_QUEUED_INPUTS = 64;

export class InputQueue {
  /** Grab inputs not applied yet, in arrival order. */
  private readonly inputs: GrabInput[] = [];
  /** The queue ran empty: refill JITTER_FRAMES before applying again. */
  private starved = true;
  /** Newest grab-move frame queued per hand (moves at or before it are repeats). */
  private readonly lastMove = new Map<Hand, number>();
  /** Last applied input frame, the world tick its state is at, and whether the client has not been told yet. */
  ack = -1;
  ackTick = 0;
  ackDirty = false;

  /** `apply`: applies one input to the world (a start, a move or an end). */
  constructor(private readonly apply: (input: GrabInput) => void) {}

  /** Queues an input (with the moves its `earlier` says were lost); a reason when the queue is full. */
  push(input: GrabInput): string | null {
    if (this.inputs.length >= MAX_QUEUED_INPUTS) return `more than ${MAX_QUEUED_INPUTS} grab inputs waiting`;
    if (input.kind === "move") {
      const message = input.message, hand = message.hand;
      const last = this.lastMove.get(hand);
      if (last !== undefined && !seqAfter(message.seq, last)) return null; // already have it (a repeat carried in `earlier`)
      // Frames this one says we missed (lost messages): queue them first, oldest first.
      const earlier = message.earlier ?? [];
      for (let back = earlier.length / 3; back >= 1; back--) {
        const seq = seqMinus(message.seq, back);
        if (last !== undefined && !seqAfter(seq, last)) continue;
        const o = 3 * (back - 1);
        this.inputs.push({ kind: "move", message: { hand, seq, target: [earlier[o], earlier[o + 1], earlier[o + 2]] }, arrived: input.arrived });
      }
      this.lastMove.set(hand, message.seq);
    } else {
      // A new grab or a release starts the hand's move sequence afresh (a grab's first move shares its frame).
      this.lastMove.set(input.message.hand, input.kind === "start" ? seqMinus(input.message.seq, 1) : input.message.seq);
    }
    this.inputs.push(input);
    return null;
  }

  /**
   * Applies this tick's frames, oldest first (more than one frame when the queue has fallen behind; none while it
   * refills). `tick`: the world's tick, about to step.
   */
  applyTick(tick: number): void {
    const inputs = this.inputs;
    if (inputs.length === 0) {
      this.starved = true;
      return;
    }
    let frames = 0;
    for (let i = 0, last = -1; i < inputs.length; i++) {
      if (inputs[i].message.seq !== last) { frames++; last = inputs[i].message.seq; }
    }
    if (this.starved && frames < JITTER_FRAMES && tick - inputs[0].arrived < JITTER_TICKS) return;
    this.starved = false;
    let take = Math.max(1, frames - LIMITS.inputBacklog);
    while (inputs.length && take > 0) {
      const seq = inputs[0].message.seq;
      while (inputs.length && inputs[0].message.seq === seq) this.apply(inputs.shift()!);
      if (this.ack < 0 || seqAfter(seq, this.ack)) this.ack = seq;
      // The world steps once after this: the state after that step is the client's frame `seq`.
      this.ackTick = tick + 1;
      this.ackDirty = true;
      take--;
    }
  }

  /** Nothing queued is applied any more (the connection dropped); the queue refills before it is applied again. */
  clear(): void {
    this.inputs.length = 0;
    this.starved = true;
  }

  /** The move sequences start afresh (a new connection numbers its frames anew). */
  forgetMoves(): void {
    this.lastMove.clear();
  }
}
