// Which layer moves a room character's flesh, tick by tick. The learned layer (rnn-character.ts) costs a run of a
// small network; the solver costs ~1.6 ms a tick and is the only one that feels hands, fingertips and props. So the
// network moves an untouched character, and the solver takes over from the network's state as soon as anything
// touches it (or it plays a clip the network never learned), stays on while the flesh rings out (SOLVER_HOLD_SECONDS),
// and hands back by a crossfade
// (HANDBACK_SECONDS). While the network alone moves it, pages run the same network themselves and snapshots leave
// its soft part out.

import type { CharacterBody } from "../../shared/rig";
import type { RnnCharacter } from "../../shared/rig/rnn-character";

/** Where the soft part shown comes from: the solver, or the network alone. */
export type FleshSource = "sim" | "rnn";

/** Seconds the solver keeps the flesh after the last touch, then seconds of crossfade back to the network. */
export const SOLVER_HOLD_SECONDS = 1;
export const HANDBACK_SECONDS = 0.3;

export class FleshSwitch {
  /** The soft part shown after the last tick (3m). */
  readonly q: Float64Array;
  source: FleshSource = "sim";
  /** Ticks since the last touch (large: never touched). */
  private quiet = Number.MAX_SAFE_INTEGER;
  private readonly holdTicks: number;
  private readonly handbackTicks: number;
  private readonly velocity: Float64Array;
  private readonly previous: Float64Array;

  constructor(private readonly character: CharacterBody, private readonly learned: RnnCharacter, private readonly dt: number) {
    this.q = new Float64Array(character.body.n);
    this.velocity = new Float64Array(character.body.n);
    this.previous = new Float64Array(character.body.n);
    this.holdTicks = Math.round(SOLVER_HOLD_SECONDS / dt);
    this.handbackTicks = Math.max(1, Math.round(HANDBACK_SECONDS / dt));
  }

  /**
   * One tick, after the pose and frame are set: the motion is advanced once, the network takes the tick, and the
   * solver steps unless the network alone moves the flesh. `touched`: something needs the solver this tick.
   */
  step(touched: boolean): void {
    const body = this.character.body, learned = this.learned.q;
    if (touched) {
      // The solver picks up the flesh where the network had it, moving as it moved.
      if (this.source === "rnn") {
        for (let i = 0; i < learned.length; i++) this.velocity[i] = (learned[i] - this.previous[i]) / this.dt;
        body.setState(learned, this.velocity);
      }
      this.quiet = 0;
    } else if (this.quiet < Number.MAX_SAFE_INTEGER) {
      this.quiet++;
    }
    this.previous.set(learned);
    const alone = this.quiet > this.holdTicks + this.handbackTicks;
    if (alone) this.character.motion.advance();
    else this.character.step();
    this.learned.queueStep(false);
    this.source = alone ? "rnn" : "sim";
    if (alone) {
      this.q.set(learned);
      return;
    }
    const w = Math.max(0, Math.min(1, (this.quiet - this.holdTicks) / this.handbackTicks));
    for (let i = 0; i < this.q.length; i++) this.q[i] = body.q[i] + w * (learned[i] - body.q[i]);
  }
}
