// Prediction with rollback for the bodies this client holds (room-client.ts wires it; input-clock.ts keeps the
// frames in step with the server's ticks): each is stepped locally at 60 Hz with this client's grabs applied at
// once, its frames kept in a history (prediction-history.ts). A server state resets it and the frames since are
// replayed, over several updates when they do not fit in one (reconciler.ts). The work is bounded in milliseconds
// (prediction-budget.ts): replays first, keeping room for the update's new frames; of a long update's new frames
// only the last ones that fit step, the earlier ones coast (the next replay recomputes them), and a held body
// always steps in the newest, so that it follows the hand every frame. Corrections are shown gradually
// (shown-corrections.ts). A body no longer held is predicted on, free, until it settles or the budget leaves it
// coasting; then it is shown from snapshots again.

import type { PredictedScene } from "../../scene/predicted-scene";
import { HANDS, TICK_RATE, type Hand } from "../protocol";
import { interpolateBody, type ClientBody } from "./client-body";
import type { GrabMirror } from "./grab-mirror";
import { deactivateGrab, type OwnGrab, type OwnGrabs } from "./own-grabs";
import { PredictionBudget } from "./prediction-budget";
import { endCoasting, newPrediction, takeEntry, type Prediction } from "./prediction-history";
import { newPredictionStats, type PredictionStats, type ReconcileEvent } from "./prediction-stats";
import { Reconciler } from "./reconciler";
import { ShownCorrections } from "./shown-corrections";

export type { PredictionStats, ReconcileEvent } from "./prediction-stats";
export { PREDICTION_MS_BUDGET, PREDICTION_MS_PER_FRAME, SLOW_PAGE_MS_PER_FRAME } from "./prediction-budget";

export const INTERPOLATION_DELAY_MS = 100;
const DT = 1 / TICK_RATE;
/** Frames of each update's new frames the budget keeps free of replays (each predicted body's step in them). */
const NEW_FRAME_RESERVE = 2;
/** A released body is predicted on until it moves slower than this (m/s, RMS) for SETTLED_FRAMES frames... */
const SETTLED_SPEED = 0.02;
const SETTLED_FRAMES = 12;
/** ...or for at most this many frames, or until the budget has left it without a step for this many updates in a row; then it is shown from snapshots again. */
const FREE_FRAMES = 150;
const FREE_COASTED_UPDATES = 6;
/** The hand-over to and from interpolation fades with this time constant (ms). */
export const HANDOVER_FADE_MS = 80;

/** What the predictor works with: the world its bodies step in, this client's grabs, the mirrored ones, a clock. */
export interface PredictorHost {
  scene(): PredictedScene;
  grabs: OwnGrabs;
  mirror: GrabMirror;
  /** The prediction saw an own grab slip (as the server will): end it in the next frame. */
  slipped(hand: Hand): void;
  /** The clock the budget measures steps with, ms (performance.now in pages; scripted in tests). */
  now(): number;
  /** Whether steps run to deadlines (JoinSettings.stepDeadlines; `now` is then performance.now, the deadlines' clock). */
  stepDeadlines(): boolean;
}

export class BodyPredictor {
  /** What the prediction did so far (benchmarks and tests). */
  readonly stats: PredictionStats = newPredictionStats();
  /** Called after each reconciliation of a predicted body with a server state. */
  onReconcile: ((event: ReconcileEvent) => void) | undefined;
  private readonly predictions = new Map<ClientBody, Prediction>();
  private readonly corrections = new ShownCorrections();
  private readonly budget: PredictionBudget;
  private readonly reconciler: Reconciler;
  /** stats.steps at the start of this update(). */
  private stepsAtStart = 0;

  constructor(private readonly host: PredictorHost) {
    this.budget = new PredictionBudget(() => host.now(), () => host.stepDeadlines());
    this.reconciler = new Reconciler({
      scene: () => host.scene(), grabs: host.grabs, budget: this.budget, stats: this.stats, corrections: this.corrections, reconciled: (event) => this.onReconcile?.(event),
    });
  }

  /** Bodies predicted now. */
  get count(): number {
    return this.predictions.size;
  }

  /** Makes room for bodies of `n` coordinates (no allocation per frame). */
  growScratch(n: number): void {
    this.reconciler.growScratch(n);
  }

  /**
   * An update() begins with `frames` new frames (and `skipped` ones, whose time still refills the budget): server
   * states first, replayed as far as the budget allows beside the new frames.
   */
  beginUpdate(frames: number, skipped: number): void {
    this.budget.begin(frames + skipped);
    this.stepsAtStart = this.stats.steps;
    const reserve = Math.min(frames, NEW_FRAME_RESERVE) * this.frameCost();
    for (const [body, prediction] of this.predictions) {
      // Reconciliation waits for an update with frames: one without (a display faster than 60 Hz) has gained no
      // budget, so a replay sliced there fell behind the frames added meanwhile and was shifted instead.
      if (frames > 0 && (prediction.pending || prediction.spread?.active)) this.reconciler.reconcile(body, prediction, reserve);
    }
  }

  /**
   * One 60 Hz frame `seq` for every predicted body, with `later` frames of this update() after it: a body steps
   * in the last frames the budget covers and coasts before them; a held body always steps in the newest.
   */
  frame(seq: number, later: number): void {
    const share = Math.floor(this.budget.remaining / Math.max(1e-9, this.frameCost()));
    for (const [body, prediction] of [...this.predictions]) {
      const held = prediction.freeFrames < 0;
      this.predictFrame(body, prediction, seq, (later === 0 && held) || (later < share && this.budget.fits(body)));
    }
  }

  /** The update's frames are done: coasting bodies take up their carried state. */
  endUpdate(): void {
    for (const [body, prediction] of this.predictions) {
      endCoasting(body, prediction);
      const coasted = prediction.freeFrames >= 0 && !prediction.steppedInUpdate;
      prediction.updatesCoasted = coasted ? prediction.updatesCoasted + 1 : 0;
      prediction.steppedInUpdate = false;
      if (prediction.updatesCoasted >= FREE_COASTED_UPDATES) this.stop(body);
    }
    this.stats.mostStepsInUpdate = Math.max(this.stats.mostStepsInUpdate, this.stats.steps - this.stepsAtStart);
    this.stats.mostMsInUpdate = Math.max(this.stats.mostMsInUpdate, this.budget.spent);
  }

  /** Sets what the body shows at `now` (ms): its prediction or its interpolated snapshots, plus a fading correction. */
  show(body: ClientBody, now: number, elapsed: number): void {
    if (body.predicting) body.displayQ.set(body.body.q);
    else interpolateBody(body, now - INTERPOLATION_DELAY_MS);
    this.corrections.apply(body, elapsed);
  }

  /** A server state of a body arrived (acknowledging `frame` of this client's, or null): reconciled in the next update. */
  serverState(body: ClientBody, tick: number, q: Float64Array, frame: number | null): void {
    const prediction = this.predictions.get(body);
    if (!prediction) return;
    // A newer state replaces one not reconciled yet.
    if (prediction.pending) this.stats.deferred++;
    prediction.pending = { tick, q, frame };
  }

  /** Starts predicting a body (or keeps predicting it, held again): from its latest server state, fading over. */
  start(body: ClientBody): void {
    const existing = this.predictions.get(body);
    if (existing) {
      existing.freeFrames = -1;
      endCoasting(body, existing);
      return;
    }
    // Start from the latest server state, moving as the last two snapshots did; the shown state fades over.
    const s = body.snapshots;
    const velocity = new Float64Array(body.body.n);
    if (s.length >= 2) {
      const a = s[s.length - 2], b = s[s.length - 1], dt = Math.max((b.tick - a.tick) * DT, DT);
      for (let i = 0; i < velocity.length; i++) velocity[i] = (b.q[i] - a.q[i]) / dt;
    }
    body.body.setState(s.length ? s[s.length - 1].q : body.displayQ, velocity);
    body.entity.updateProxies();
    this.host.scene().setPredicted(body.entity, true);
    this.corrections.add(body, body.displayQ, body.body.q, HANDOVER_FADE_MS);
    body.predicting = true;
    this.predictions.set(body, newPrediction(body.body.n));
    this.host.mirror.sync(body);
  }

  /** Back to snapshots: the body is shown interpolated again, fading over from the prediction. */
  stop(body: ClientBody): void {
    const prediction = this.predictions.get(body);
    if (!prediction) return;
    endCoasting(body, prediction);
    this.host.mirror.releaseOn(body);
    for (const ghost of prediction.ghosts.values()) deactivateGrab(ghost);
    this.predictions.delete(body);
    body.predicting = false;
    const shown = Float64Array.from(body.body.q);
    this.corrections.addTo(body, shown);
    interpolateBody(body, Date.now() - INTERPOLATION_DELAY_MS);
    this.corrections.forget(body);
    this.corrections.add(body, shown, body.displayQ, HANDOVER_FADE_MS);
    this.host.scene().setPredicted(body.entity, false);
  }

  /** The body left the room: nothing of it is kept. */
  forget(body: ClientBody): void {
    this.stop(body);
    this.predictions.delete(body);
    this.corrections.forget(body);
  }

  /**
   * An own grab ended on this client (its solver grab already out): frames of the history still hold it, so it is
   * kept for their replays; with no other own grab on the body, the body starts settling free.
   */
  grabEnded(own: OwnGrab): void {
    const prediction = this.predictions.get(own.body);
    if (!prediction) return;
    prediction.ghosts.set(own.serial, own);
    if (!this.host.grabs.holds(own.body)) {
      prediction.freeFrames = 0;
      prediction.slowFrames = 0;
    }
  }

  /** The server ended an own grab: every snapshot from now on is after that, so no frame may replay its pull again. */
  grabRefused(own: OwnGrab): void {
    const prediction = this.predictions.get(own.body);
    if (!prediction) return;
    prediction.ghosts.delete(own.serial);
    for (const entry of prediction.history) {
      const slot = entry.serials.indexOf(own.serial);
      if (slot >= 0) entry.serials[slot] = -1;
    }
  }

  /** One frame of every predicted body, at their step costs: ms. */
  private frameCost(): number {
    let cost = 0;
    for (const body of this.predictions.keys()) cost += this.budget.cost(body);
    return cost;
  }

  private predictFrame(body: ClientBody, prediction: Prediction, seq: number, step: boolean): void {
    const solver = body.body, n = solver.n, grabs = this.host.grabs;
    const history = prediction.history;
    const last = history.length ? history[history.length - 1] : null;
    const tick = last ? last.tick + 1 : NaN;
    if (step) {
      endCoasting(body, prediction);
      const scene = this.host.scene();
      // A held body steps in every frame, whatever the budget: its step runs to a deadline (heldStepLeastMs), so that
      // only an outlier is cut. A free body steps only when its usual cost fits, and runs to convergence: cut free
      // steps (a thrown body tumbling on the table) mispredicted it by metres.
      const held = grabs.holds(body);
      const deadline = this.budget.stepStarts(held ? this.budget.heldStepLeastMs(body) : 0);
      scene.prepare(body.entity, tick);
      const cut = body.entity.step(held ? deadline : Infinity).cutShort;
      scene.pushProps(body.entity);
      this.stats.steps++;
      if (cut) this.stats.cutSteps++;
      this.budget.stepDone(body, cut);
      prediction.steppedInUpdate = true;
      // The server lets a grab slip when it pulls too hard: so does the prediction, in the same step.
      // (Not after a cut step: its unconverged stretch is not the server's; the server's slip will show.)
      for (const held of grabs.held.values()) {
        if (cut || held.body !== body || held.grab < 0 || held.ending || !body.entity.slipping(held.grab)) continue;
        held.ending = true;
        this.stats.predictedSlips++;
        this.host.slipped(held.hand);
      }
    } else {
      // Over budget: a free body is carried forward on its velocity, a held one stays (its stiff grab springs make
      // it oscillate, and an extrapolation over many frames amplified that until it flew off); into the solver
      // before its next step.
      if (!prediction.coasting) {
        prediction.coastQ.set(solver.q);
        prediction.coasting = true;
      }
      if (!grabs.holds(body)) for (let i = 0; i < n; i++) prediction.coastQ[i] += DT * solver.velocity[i];
      this.stats.coasted++;
    }
    const entry = takeEntry(prediction, n);
    entry.seq = seq;
    entry.tick = tick;
    entry.q.set(prediction.coasting ? prediction.coastQ : solver.q);
    entry.v.set(solver.velocity);
    entry.serials.fill(-1);
    entry.targets.fill(NaN);
    HANDS.forEach((hand, k) => {
      const held = grabs.held.get(hand), target = grabs.targets.get(hand);
      if (!held || held.body !== body || !target) return;
      entry.serials[k] = held.serial;
      entry.targets.set(target, 3 * k);
    });
    history.push(entry);
    // A body no longer held is predicted on until it settles (or for FREE_FRAMES), then shown from snapshots.
    if (prediction.freeFrames >= 0) {
      prediction.freeFrames++;
      prediction.slowFrames = solver.rmsSpeed() < SETTLED_SPEED ? prediction.slowFrames + 1 : 0;
      if (prediction.slowFrames >= SETTLED_FRAMES || prediction.freeFrames >= FREE_FRAMES) this.stop(body);
    }
  }
}
