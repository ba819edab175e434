// Prediction with rollback for the bodies this client holds (room-client.ts wires it; input-clock.ts keeps the
// frames in step with the server's ticks): each is stepped locally at 60 Hz with this client's grabs applied at
// once, its frames kept in a history. A server state resets it to the snapshot's q after the acknowledged frame
// (with the velocity predicted for it, corrected by the error over the time since the last reset when the server
// kept one frame per tick), and the frames since are replayed with their recorded grabs. Every update() spends at
// most PREDICTION_STEP_BUDGET solver steps, replays first; a replay that does not fit is cut short (the rest shifted
// by its correction) or left to the next snapshot, and new frames beyond the budget coast. Corrections are shown
// gradually. A body no longer held is predicted on, free, until it settles; then it is shown from snapshots again.

import type { PredictedScene } from "../../scene/predicted-scene";
import { HANDS, TICK_RATE, type Hand } from "../protocol";
import { interpolateBody, type ClientBody } from "./client-body";
import type { GrabMirror } from "./grab-mirror";
import { activateGrab, deactivateGrab, type OwnGrab, type OwnGrabs } from "./own-grabs";

export const INTERPOLATION_DELAY_MS = 100;
/** Local prediction history kept for reconciliation, frames (2 s: round trips beyond that are not replayed). */
const HISTORY = 120;
const DT = 1 / TICK_RATE;
/**
 * Most solver steps one update() spends on prediction: replays and new frames of every predicted body together.
 * Replays come first (they correct every frame since the server's state), keeping NEW_FRAME_RESERVE steps for
 * the new frames; frames a replay cannot reach keep their prediction, shifted by the correction. New frames
 * step in what is left, the last ones of a long frame first; earlier ones coast on their velocity (the next
 * replay recomputes them).
 */
export const PREDICTION_STEP_BUDGET = 30;
/** Steps the budget gains per 60 Hz frame of time (so a client calling update() often cannot spend more). */
const STEPS_PER_FRAME = 10;
/** Steps of each update's new frames the budget keeps free of replays (per predicted body). */
const NEW_FRAME_RESERVE = 2;
/** Most frames beyond a (budget-limited) replay that are shifted by its correction, and snapshots left unreconciled in a row for want of budget. */
const SHIFT_LIMIT = 6;
const MAX_DEFERRED = 3;
/** A released body is predicted on until it moves slower than this (m/s, RMS) for SETTLED_FRAMES frames... */
const SETTLED_SPEED = 0.02;
const SETTLED_FRAMES = 12;
/** ...or for at most this many frames; then it is shown from snapshots again. */
const FREE_FRAMES = 150;
/** Corrections of a predicted body, and the hand-over to and from interpolation, fade with these time constants (ms). */
const CORRECTION_FADE_MS = 40;
export const HANDOVER_FADE_MS = 80;
/**
 * The velocity correction uses a server state at most this many ticks before the current one, and only errors
 * up to VELOCITY_CORRECTION_ERROR (m): a larger one comes from something the prediction did not know (a contact
 * it missed, inputs the server applied late), not from a velocity that was a little off.
 */
const VELOCITY_CORRECTION_TICKS = 12;
const VELOCITY_CORRECTION_ERROR = 0.01;

export interface PredictionStats {
  /** Solver steps run by the prediction: new frames, and frames replayed. */
  steps: number;
  replayed: number;
  /** Frames carried forward without the solver (over budget). */
  coasted: number;
  /** Reconciliations done by replaying, by shifting (over budget), and snapshots left for a later one (over budget). */
  replays: number;
  shifts: number;
  deferred: number;
  /** Most solver steps one update() spent. */
  mostStepsInUpdate: number;
  /** Own grabs the prediction saw slip. */
  predictedSlips: number;
  /** Frames skipped to let a server that fell behind catch up. */
  skippedFrames: number;
}

export interface ReconcileEvent {
  body: string;
  /** The server tick of the state, and the frame of this client's it follows. */
  tick: number;
  frame: number;
  /** ClientBody.lastReconcileError (NaN when not measured) and lastCorrection, m. */
  error: number;
  correction: number;
  /** Frames after the server's state, and whether they were replayed (true) or shifted (over budget). */
  frames: number;
  replayed: boolean;
}

/** One predicted frame: the state after it, the server tick it predicts, and this client's grabs in it. */
interface HistoryEntry {
  /** The frame number (the seq its inputs were sent with). */
  seq: number;
  /** The server tick whose state this predicts (NaN until the first acknowledged snapshot). */
  tick: number;
  q: Float64Array;
  v: Float64Array;
  /** Per hand slot (HANDS order): the serial of this client's grab on the body in this frame, or -1, and its target. */
  serials: Int32Array;
  targets: Float64Array;
}

/** Per body prediction state. */
interface Prediction {
  /** Consecutive frames, oldest first; the first is the last server state the prediction was reset to. */
  history: HistoryEntry[];
  spare: HistoryEntry[];
  /** Latest server state not reconciled yet, and the frame the server acknowledged with it (or null). */
  pending: { tick: number; q: Float64Array; frame: number | null } | null;
  /** Tick of the server state the prediction was last reset to (-1: none). */
  baseTick: number;
  /** Snapshots in a row not reconciled for want of budget. */
  deferred: number;
  /** Ended own grabs that history frames still hold, by serial. */
  ghosts: Map<number, OwnGrab>;
  /** Frames since the last own grab on the body ended (-1 while one is held), and frames it has been slow. */
  freeFrames: number;
  slowFrames: number;
  /** Coasting: the state being carried forward without the solver (set into the body before its next step). */
  coasting: boolean;
  coastQ: Float64Array;
}

/** What the predictor works with: the world its bodies step in, this client's grabs, the mirrored ones. */
export interface PredictorHost {
  scene(): PredictedScene;
  grabs: OwnGrabs;
  mirror: GrabMirror;
  /** The prediction saw an own grab slip (as the server will): end it in the next frame. */
  slipped(hand: Hand): void;
}

export class BodyPredictor {
  /** What the prediction did so far (benchmarks and tests). */
  readonly stats: PredictionStats = { steps: 0, replayed: 0, coasted: 0, replays: 0, shifts: 0, deferred: 0, mostStepsInUpdate: 0, predictedSlips: 0, skippedFrames: 0 };
  /** Called after each reconciliation of a predicted body with a server state. */
  onReconcile: ((event: ReconcileEvent) => void) | undefined;
  private readonly predictions = new Map<ClientBody, Prediction>();
  /** Shown correction still fading, per body (q-space; displayQ = prediction + offset), and its fade time constant. */
  private readonly shownOffsets = new Map<ClientBody, { q: Float64Array; fadeMs: number }>();
  /** Solver steps left in this update(), and at its start. */
  private budget = PREDICTION_STEP_BUDGET;
  private budgetAtStart = PREDICTION_STEP_BUDGET;
  private readonly pointScratch = new Float64Array(3);
  private readonly otherPointScratch = new Float64Array(3);
  private vScratch = new Float64Array(0);
  private qScratch = new Float64Array(0);
  private dqScratch = new Float64Array(0);
  private dvScratch = new Float64Array(0);

  constructor(private readonly host: PredictorHost) {}

  /** Bodies predicted now. */
  get count(): number {
    return this.predictions.size;
  }

  /** Makes room for bodies of `n` coordinates (no allocation per frame). */
  growScratch(n: number): void {
    if (this.vScratch.length >= n) return;
    this.vScratch = new Float64Array(n);
    this.qScratch = new Float64Array(n);
    this.dqScratch = new Float64Array(n);
    this.dvScratch = new Float64Array(n);
  }

  /**
   * An update() begins with `frames` new frames (and `skipped` ones, whose time still refills the budget): server
   * states first, replayed as far as the budget allows beside the new frames.
   */
  beginUpdate(frames: number, skipped: number): void {
    // Steps come at STEPS_PER_FRAME per 60 Hz frame of time passed, PREDICTION_STEP_BUDGET at most at once.
    this.budget = Math.min(PREDICTION_STEP_BUDGET, this.budget + (frames + skipped) * STEPS_PER_FRAME);
    this.budgetAtStart = this.budget;
    const predicted = this.count;
    for (const [body, prediction] of this.predictions) {
      if (prediction.pending) this.reconcile(body, prediction, Math.min(frames, NEW_FRAME_RESERVE) * predicted);
    }
  }

  /**
   * One 60 Hz frame `seq` for every predicted body, with `later` frames of this update() after it: a body steps
   * only in the frames its share of the budget covers (the last ones), and coasts before them.
   */
  frame(seq: number, later: number): void {
    const share = Math.floor(this.budget / Math.max(1, this.count));
    for (const [body, prediction] of [...this.predictions]) this.predictFrame(body, prediction, seq, later < share && this.budget > 0);
  }

  /** The update's frames are done: coasting bodies take up their carried state. */
  endUpdate(): void {
    for (const [body, prediction] of this.predictions) this.endCoasting(body, prediction);
    this.stats.mostStepsInUpdate = Math.max(this.stats.mostStepsInUpdate, this.budgetAtStart - this.budget);
  }

  /** Sets what the body shows at `now` (ms): its prediction or its interpolated snapshots, plus a fading correction. */
  show(body: ClientBody, now: number, elapsed: number): void {
    if (body.predicting) body.displayQ.set(body.body.q);
    else interpolateBody(body, now - INTERPOLATION_DELAY_MS);
    const offset = this.shownOffsets.get(body);
    if (!offset) return;
    const fade = Math.exp(-elapsed / offset.fadeMs);
    let largest = 0;
    for (let i = 0; i < offset.q.length; i++) {
      offset.q[i] *= fade;
      body.displayQ[i] += offset.q[i];
      largest = Math.max(largest, Math.abs(offset.q[i]));
    }
    if (largest < 1e-6) this.shownOffsets.delete(body);
  }

  /** A server state of a body arrived (acknowledging `frame` of this client's, or null): reconciled in the next update. */
  serverState(body: ClientBody, tick: number, q: Float64Array, frame: number | null): void {
    const prediction = this.predictions.get(body);
    // A newer state replaces one not reconciled yet.
    if (prediction) prediction.pending = { tick, q, frame };
  }

  /** Starts predicting a body (or keeps predicting it, held again): from its latest server state, fading over. */
  start(body: ClientBody): void {
    const existing = this.predictions.get(body);
    if (existing) {
      existing.freeFrames = -1;
      this.endCoasting(body, existing);
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
    this.addShownOffset(body, body.displayQ, body.body.q, HANDOVER_FADE_MS);
    body.predicting = true;
    const prediction: Prediction = {
      history: [], spare: [], pending: null, baseTick: -1, deferred: 0, ghosts: new Map(), freeFrames: -1, slowFrames: 0, coasting: false, coastQ: new Float64Array(body.body.n),
    };
    this.predictions.set(body, prediction);
    this.host.mirror.sync(body);
  }

  /** Back to snapshots: the body is shown interpolated again, fading over from the prediction. */
  stop(body: ClientBody): void {
    const prediction = this.predictions.get(body);
    if (!prediction) return;
    this.endCoasting(body, prediction);
    this.host.mirror.releaseOn(body);
    for (const ghost of prediction.ghosts.values()) deactivateGrab(ghost);
    this.predictions.delete(body);
    body.predicting = false;
    const shown = Float64Array.from(body.body.q);
    const offset = this.shownOffsets.get(body);
    if (offset) for (let i = 0; i < shown.length; i++) shown[i] += offset.q[i];
    interpolateBody(body, Date.now() - INTERPOLATION_DELAY_MS);
    this.shownOffsets.delete(body);
    this.addShownOffset(body, shown, body.displayQ, HANDOVER_FADE_MS);
    this.host.scene().setPredicted(body.entity, false);
  }

  /** The body left the room: nothing of it is kept. */
  forget(body: ClientBody): void {
    this.stop(body);
    this.predictions.delete(body);
    this.shownOffsets.delete(body);
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

  private takeEntry(prediction: Prediction, n: number): HistoryEntry {
    if (prediction.history.length >= HISTORY) return prediction.history.shift()!;
    return prediction.spare.pop() ?? { seq: 0, tick: NaN, q: new Float64Array(n), v: new Float64Array(n), serials: new Int32Array(HANDS.length), targets: new Float64Array(3 * HANDS.length) };
  }

  private predictFrame(body: ClientBody, prediction: Prediction, seq: number, step: boolean): void {
    const solver = body.body, n = solver.n, grabs = this.host.grabs;
    const history = prediction.history;
    const last = history.length ? history[history.length - 1] : null;
    const tick = last ? last.tick + 1 : NaN;
    if (step) {
      this.endCoasting(body, prediction);
      const scene = this.host.scene();
      scene.prepare(body.entity, tick);
      body.entity.step();
      scene.pushProps(body.entity);
      this.budget--;
      this.stats.steps++;
      // The server lets a grab slip when it pulls too hard: so does the prediction, in the same step.
      for (const held of grabs.held.values()) {
        if (held.body !== body || held.grab < 0 || held.ending || !body.entity.slipping(held.grab)) continue;
        held.ending = true;
        this.stats.predictedSlips++;
        this.host.slipped(held.hand);
      }
    } else {
      // Over budget: carried forward on its velocity, into the solver before its next step.
      if (!prediction.coasting) {
        prediction.coastQ.set(solver.q);
        prediction.coasting = true;
      }
      for (let i = 0; i < n; i++) prediction.coastQ[i] += DT * solver.velocity[i];
      this.stats.coasted++;
    }
    const entry = this.takeEntry(prediction, n);
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

  private endCoasting(body: ClientBody, prediction: Prediction): void {
    if (!prediction.coasting) return;
    prediction.coasting = false;
    body.body.setState(prediction.coastQ, body.body.velocity);
    body.entity.updateProxies();
  }

  /**
   * Rolls the prediction back to the latest server state and replays the frames since (or, when that does not
   * fit in the budget beside `reserve` steps, shifts them by the correction).
   */
  private reconcile(body: ClientBody, prediction: Prediction, reserve: number): void {
    const pending = prediction.pending!;
    prediction.pending = null;
    const history = prediction.history;
    if (history.length === 0) return;
    const first = history[0].seq, newest = history.length - 1;
    const tick = pending.tick, serverQ = pending.q;
    let byTick = -1;
    for (let i = newest; i >= 0; i--) if (history[i].tick === tick) { byTick = i; break; }
    // The server state follows the acknowledged frame. Without an acknowledgement (lost, or none sent since this
    // client holds nothing), a body free of own grabs goes by the tick alone.
    const base = pending.frame !== null ? pending.frame - first : this.host.grabs.holds(body) ? -1 : byTick;
    if (base < 0 || base > newest) return; // before this prediction started, or already forgotten
    // The error: the server's state against the prediction of the same frame (the acknowledged one).
    body.lastReconcileError = this.surfaceDistance(body, serverQ, history[base].q);
    body.reconciles++;
    this.endCoasting(body, prediction);
    const solver = body.body, n = solver.n, baseEntry = history[base];
    // Velocity: the prediction's, corrected by the error over the time since the last reset when the server has
    // kept to one frame per tick since (the tick and the acknowledged frame agree): what the server really did
    // includes its velocity.
    const v = this.vScratch.subarray(0, n);
    v.set(baseEntry.v);
    const since = tick - prediction.baseTick;
    if (byTick === base && prediction.baseTick >= 0 && since >= 1 && since <= VELOCITY_CORRECTION_TICKS && body.lastReconcileError <= VELOCITY_CORRECTION_ERROR) {
      const gain = 1 / (since * DT);
      for (let i = 0; i < n; i++) v[i] += gain * (serverQ[i] - baseEntry.q[i]);
    }
    // Replay the frames since from the server's state when the budget allows; when it falls short by a little,
    // replay what it allows and shift the rest by the correction at the last frame replayed (exact for a rigid
    // translation; the next snapshot corrects the rest). Further short, keep the prediction (the next snapshot
    // comes soon, with the budget refilled), and after MAX_DEFERRED such snapshots in a row shift every frame by
    // the correction, leaving velocities as they are: it can move the body, never launch it.
    const replay = newest - base, available = Math.max(0, this.budget - reserve);
    let count = replay, shiftOnly = false;
    if (replay > available) {
      if (replay - available <= SHIFT_LIMIT) count = available;
      else if (prediction.deferred < MAX_DEFERRED) {
        prediction.deferred++;
        this.stats.deferred++;
        this.onReconcile?.({ body: body.id, tick, frame: baseEntry.seq, error: body.lastReconcileError, correction: 0, frames: replay, replayed: false });
        return;
      } else {
        count = 0;
        shiftOnly = true;
      }
    }
    prediction.deferred = 0;
    prediction.baseTick = tick;
    const before = this.qScratch.subarray(0, n);
    before.set(solver.q);
    const dq = this.dqScratch.subarray(0, n), dv = this.dvScratch.subarray(0, n);
    if (shiftOnly) {
      for (let i = 0; i < n; i++) dq[i] = serverQ[i] - baseEntry.q[i];
      dv.fill(0);
    } else {
      const last = history[base + count];
      dq.set(last.q);
      dv.set(last.v);
      solver.setState(serverQ, v);
      body.entity.updateProxies();
      this.host.scene().resetPushes();
      baseEntry.q.set(solver.q);
      baseEntry.v.set(solver.velocity);
      baseEntry.tick = tick;
      this.replay(body, prediction, base, count);
      this.budget -= count;
      this.stats.replayed += count;
      this.stats.steps += count;
      for (let i = 0; i < n; i++) { dq[i] = last.q[i] - dq[i]; dv[i] = last.v[i] - dv[i]; }
    }
    if (count === replay) this.stats.replays++;
    else {
      for (let k = shiftOnly ? base : base + count + 1; k <= newest; k++) {
        const entry = history[k];
        for (let i = 0; i < n; i++) { entry.q[i] += dq[i]; entry.v[i] += dv[i]; }
        entry.tick = tick + (k - base);
      }
      solver.setState(history[newest].q, history[newest].v);
      body.entity.updateProxies();
      this.stats.shifts++;
    }
    // The state shown moves smoothly from the old prediction to the new one.
    body.lastCorrection = this.surfaceDistance(body, before, solver.q);
    this.onReconcile?.({ body: body.id, tick, frame: history[base].seq, error: body.lastReconcileError, correction: body.lastCorrection, frames: replay, replayed: count === replay });
    this.addShownOffset(body, before, solver.q, CORRECTION_FADE_MS);
    // Frames before the base are done with; ended grabs that no remaining frame holds are forgotten.
    for (const entry of history.splice(0, base)) prediction.spare.push(entry);
    for (const [serial, ghost] of prediction.ghosts) {
      if (!history.some((e) => e.serials.includes(serial))) prediction.ghosts.delete(serial);
      else deactivateGrab(ghost);
    }
  }

  /** Replays `count` frames after history[base] from the state now in the solver, with the grabs each frame had. */
  private replay(body: ClientBody, prediction: Prediction, base: number, count: number): void {
    const history = prediction.history, solver = body.body, grabs = this.host.grabs, scene = this.host.scene();
    const own = [...[...grabs.held.values()].filter((h) => h.body === body), ...prediction.ghosts.values()];
    for (let k = base + 1; k <= base + count; k++) {
      const entry = history[k];
      for (const grab of own) {
        const slot = entry.serials.indexOf(grab.serial);
        if (slot < 0) deactivateGrab(grab);
        else activateGrab(grab, entry.targets[3 * slot], entry.targets[3 * slot + 1], entry.targets[3 * slot + 2]);
      }
      entry.tick = history[base].tick + (k - base);
      scene.prepare(body.entity, entry.tick);
      body.entity.step();
      scene.pushProps(body.entity);
      entry.q.set(solver.q);
      entry.v.set(solver.velocity);
    }
    // Back to now: the live grabs at their current targets, the ended ones out.
    for (const grab of own) {
      const target = grabs.targets.get(grab.hand);
      if (grabs.held.get(grab.hand) === grab && target) activateGrab(grab, target[0], target[1], target[2]);
      else deactivateGrab(grab);
    }
  }

  /** Largest distance between two states of a body over every 4th surface sample, m. */
  private surfaceDistance(body: ClientBody, a: Float64Array, b: Float64Array): number {
    const s = body.body.subspace, p = this.pointScratch, r = this.otherPointScratch;
    let worst = 0;
    for (let i = 0; i < s.surfaceCount; i += 4) {
      body.body.positionAt(a, s.surfaceRows, s.surfaceRest, i, p, 0);
      body.body.positionAt(b, s.surfaceRows, s.surfaceRest, i, r, 0);
      worst = Math.max(worst, Math.hypot(p[0] - r[0], p[1] - r[1], p[2] - r[2]));
    }
    return worst;
  }

  /** Shows `from` instead of `to` now, fading towards `to` (adds to a fade under way). */
  private addShownOffset(body: ClientBody, from: Float64Array, to: Float64Array, fadeMs: number): void {
    const offset = this.shownOffsets.get(body) ?? { q: new Float64Array(body.body.n), fadeMs };
    offset.fadeMs = Math.max(fadeMs, this.shownOffsets.has(body) ? offset.fadeMs : 0);
    let largest = 0;
    for (let i = 0; i < offset.q.length; i++) {
      offset.q[i] += from[i] - to[i];
      largest = Math.max(largest, Math.abs(offset.q[i]));
    }
    if (largest > 1e-6) this.shownOffsets.set(body, offset);
  }
}
