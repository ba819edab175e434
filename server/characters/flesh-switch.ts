// Which layer moves a room character's flesh, tick by tick. The solver (~1.6 ms a tick) is the only one that feels
// hands, fingertips and props, so it moves the flesh from the moment anything touches it until the flesh has rung out
// after the last touch (SOLVER_HOLD_SECONDS). Untouched, the flesh comes from layers that only answer the rig's motion:
// the linearised flesh (linear-flesh.ts: the solver's own equations linearised, nothing fitted, so any rig and any
// clip; about half the solver's cost) and, on the clips its trained network learned, the learned layer
// (rnn-character.ts: a run of a small network, which pages run themselves, so snapshots then leave the flesh out).
// Each layer takes over from the state the one before it showed; the network, which keeps its own hidden state,
// comes in by a crossfade (HANDBACK_SECONDS) from the linearised flesh. A character beyond the room's budget of flesh
// it moves itself (SERVER_FLESH_CHARACTERS) has its untouched flesh off the network's clips from the spring layer
// each page runs ("springs": spring-character.ts); the server then moves none of it, and the solver starts from rest.

import type { CharacterBody, LinearFlesh } from "../../shared/rig";

/** Where the soft part shown comes from: the solver, the linearised flesh, the network alone, or the pages' springs. */
export type FleshSource = "sim" | "linear" | "rnn" | "springs";

/** Seconds the solver keeps the flesh after the last touch, then seconds of crossfade from the linearised flesh to the network. */
export const SOLVER_HOLD_SECONDS = 1;
export const HANDBACK_SECONDS = 0.3;

/** What the switch needs of a learned layer (rnn-character.ts's RnnCharacter): its answer, and a step queued each tick. */
export interface LearnedFlesh {
  readonly q: Float64Array;
  queueStep(advance: boolean): void;
}

export class FleshSwitch {
  /** The soft part shown after the last tick (3m). */
  readonly q: Float64Array;
  source: FleshSource = "sim";
  private learned: LearnedFlesh | null = null;
  /** Whether the solver moves the flesh (else the linearised flesh, or the network alone at full weight). */
  private solving = true;
  /** Ticks since the last touch (large: never touched). */
  private quiet = Number.MAX_SAFE_INTEGER;
  /** Ticks into the crossfade to the network (handbackTicks: the network alone). */
  private fade = 0;
  private started = false;
  /** Whether pages move the untouched flesh off the network's clips (the springs), and whether they do now. */
  pagesMoveFlesh = false;
  private inPages = false;
  private readonly holdTicks: number;
  private readonly handbackTicks: number;
  /** What was shown on the two ticks before, and its rate now: the state the next layer takes over. */
  private readonly previous: Float64Array;
  private readonly older: Float64Array;
  private readonly velocity: Float64Array;

  constructor(private readonly character: CharacterBody, private readonly linear: LinearFlesh, private readonly dt: number) {
    const n = character.body.n;
    this.q = new Float64Array(n);
    this.previous = new Float64Array(n);
    this.older = new Float64Array(n);
    this.velocity = new Float64Array(n);
    this.holdTicks = Math.round(SOLVER_HOLD_SECONDS / dt);
    this.handbackTicks = Math.max(1, Math.round(HANDBACK_SECONDS / dt));
  }

  /** The learned layer for the clips it learned (null: none); it comes in by the crossfade, unless at the first tick. */
  setNetwork(learned: LearnedFlesh | null): void {
    if (this.fade > 0) this.linear.setState(this.q, this.velocity);
    this.learned = learned;
    this.fade = 0;
  }

  /**
   * One tick, after the pose and frame are set: the motion is advanced once, and the layers the flesh needs step.
   * `touched`: something needs the solver this tick; `learnedClip`: the network (if any) learned what plays now.
   */
  step(touched: boolean, learnedClip: boolean): void {
    const body = this.character.body, linear = this.linear, wantsNetwork = this.learned !== null && learnedClip;
    this.older.set(this.previous);
    this.previous.set(this.q);
    if (touched) {
      // The solver picks up the flesh where it was shown, moving as it moved.
      if (!this.solving) body.setState(this.q, this.velocity);
      this.solving = true;
      this.fade = 0;
      this.quiet = 0;
    } else if (this.quiet < Number.MAX_SAFE_INTEGER) {
      this.quiet++;
    }
    if (this.solving && this.quiet > this.holdTicks) {
      this.solving = false;
      linear.setState(body.q, body.velocity);
    }
    // Off the network's clips, untouched, a character beyond the room's budget is the pages' (they run its springs):
    // the server shows rest, from which the solver starts at a touch, and the linearised flesh fades to the network.
    const inPages = !this.solving && !wantsNetwork && this.pagesMoveFlesh;
    if (this.inPages && !inPages && !this.solving) linear.setState(this.q, this.velocity);
    this.inPages = inPages;
    if (inPages) {
      this.fade = 0;
    } else if (!this.solving && !wantsNetwork && this.fade > 0) {
      // A clip the network never learned: the linearised flesh goes on from what was shown.
      linear.setState(this.q, this.velocity);
      this.fade = 0;
    } else if (!this.solving && wantsNetwork) {
      // From rest at the first tick there is nothing to fade from.
      this.fade = this.started ? Math.min(this.handbackTicks, this.fade + 1) : this.handbackTicks;
    }
    this.started = true;

    const alone = this.fade === this.handbackTicks;
    if (this.solving) this.character.step();
    else if (!alone && !inPages) this.character.stepLinear(linear);
    else this.character.advancePose();
    this.learned?.queueStep(false);

    if (this.solving) {
      this.q.set(body.q);
      this.velocity.set(body.velocity);
    } else if (inPages) {
      this.q.fill(0);
      this.velocity.fill(0);
    } else if (this.fade === 0) {
      this.q.set(linear.q);
      this.velocity.set(linear.velocity);
    } else {
      const shown = this.learned!.q, w = this.fade / this.handbackTicks, l = linear.q;
      if (alone) this.q.set(shown);
      else for (let i = 0; i < this.q.length; i++) this.q[i] = l[i] + w * (shown[i] - l[i]);
      // The network's rate, second order (BDF2's own difference): a first-order one lags half a tick.
      const q = this.q, p = this.previous, o = this.older, scale = 1 / (2 * this.dt);
      for (let i = 0; i < q.length; i++) this.velocity[i] = (3 * q[i] - 4 * p[i] + o[i]) * scale;
    }
    this.source = this.solving ? "sim" : inPages ? "springs" : alone ? "rnn" : "linear";
  }
}
