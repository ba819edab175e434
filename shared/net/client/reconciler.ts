// Reconciliation of a predicted body with a server state: the prediction is rolled back to the server's state
// after the frame it acknowledged and the frames since are replayed with the grabs each had. A replay that does
// not fit in the update's millisecond budget is spread over the next updates: it runs on beside the live
// prediction (the solver's whole state, integrator history and warm start included, and the props' pushes are
// swapped in and out: neither restarts its integrator at a swap), and its result is taken up once it has
// reached the newest frame; server states that arrive meanwhile wait (the newest is reconciled next). One that
// will not catch up within MAX_SPREAD_UPDATES at the pace it goes (its steps a slice less the frames added
// meanwhile) shifts the frames it did not reach by its correction at once (exact for a rigid translation; the next
// server state corrects the rest).

import type { PredictedScene } from "../../scene/predicted-scene";
import { TICK_RATE } from "../protocol";
import { surfaceDistance, type ClientBody } from "./client-body";
import { activateGrab, deactivateGrab, type OwnGrabs } from "./own-grabs";
import type { PredictionBudget } from "./prediction-budget";
import { endCoasting, newSpreadReplay, type Prediction, type SpreadReplay } from "./prediction-history";
import type { PredictionStats, ReconcileEvent } from "./prediction-stats";
import type { ShownCorrections } from "./shown-corrections";

const DT = 1 / TICK_RATE;
/** Updates a spread replay may run over before the frames it has not reached are shifted by its correction. */
const MAX_SPREAD_UPDATES = 8;
/**
 * The share of a replay's correction that shifts the frames it did not reach. The correction was measured a round
 * trip ago; by now a held body's grab has taken part of it out, so the whole of it overshoots, and repeated every
 * snapshot it rang. On a device where no replay fits (test/net/body-predictor.test.ts), p95 off the server with all
 * of it / with 0.75: a free pull 27 / 6 mm, a push into a prop 14 / 19 mm; over jittered networks (3 seeds each),
 * free pulls 5-91 / 6-15 mm, pushes 14-33 / 11-19 mm. 0.5 and 0.6 did worse on the pushes, 0.8 alike.
 */
const SHIFT_GAIN = 0.75;
/** Corrections of a predicted body fade with this time constant, ms. */
const CORRECTION_FADE_MS = 40;
/**
 * The velocity correction uses a server state at most this many ticks before the current one, and only errors
 * up to VELOCITY_CORRECTION_ERROR (m): a larger one comes from something the prediction did not know (a contact
 * it missed, inputs the server applied late), not from a velocity that was a little off.
 */
const VELOCITY_CORRECTION_TICKS = 12;
const VELOCITY_CORRECTION_ERROR = 0.01;

export interface ReconcilerHost {
  scene(): PredictedScene;
  grabs: OwnGrabs;
  budget: PredictionBudget;
  stats: PredictionStats;
  corrections: ShownCorrections;
  reconciled(event: ReconcileEvent): void;
}

export class Reconciler {
  private velocity = new Float64Array(0);

  constructor(private readonly host: ReconcilerHost) {}

  /** Makes room for bodies of `n` coordinates (no allocation per frame). */
  growScratch(n: number): void {
    if (this.velocity.length < n) this.velocity = new Float64Array(n);
  }

  /**
   * Runs on a spread replay, or rolls the prediction back to its pending server state and replays the frames
   * since, keeping `reserve` ms of the budget for the update's new frames.
   */
  reconcile(body: ClientBody, prediction: Prediction, reserve: number): void {
    if (prediction.spread?.active) {
      this.runOn(body, prediction, reserve);
      return;
    }
    const pending = prediction.pending;
    if (!pending) return;
    prediction.pending = null;
    const history = prediction.history, host = this.host;
    if (history.length === 0) return;
    const first = history[0].seq, newest = history.length - 1;
    const tick = pending.tick, serverQ = pending.q;
    let byTick = -1;
    for (let i = newest; i >= 0; i--) if (history[i].tick === tick) { byTick = i; break; }
    // The server state follows the acknowledged frame. Without an acknowledgement (lost, or none sent since this
    // client holds nothing), a body free of own grabs goes by the tick alone.
    const base = pending.frame !== null ? pending.frame - first : host.grabs.holds(body) ? -1 : byTick;
    if (base < 0 || base > newest) return; // before this prediction started, or already forgotten
    // The error: the server's state against the prediction of the same frame (the acknowledged one).
    body.lastReconcileError = surfaceDistance(body, serverQ, history[base].q);
    body.reconciles++;
    endCoasting(body, prediction);
    const solver = body.body, n = solver.n, baseEntry = history[base], scene = host.scene();
    // Velocity: the prediction's, corrected by the error over the time since the last reset when the server has
    // kept to one frame per tick since (the tick and the acknowledged frame agree): what the server really did
    // includes its velocity.
    const v = this.velocity.subarray(0, n);
    v.set(baseEntry.v);
    const since = tick - prediction.baseTick;
    if (byTick === base && prediction.baseTick >= 0 && since >= 1 && since <= VELOCITY_CORRECTION_TICKS && body.lastReconcileError <= VELOCITY_CORRECTION_ERROR) {
      const gain = 1 / (since * DT);
      for (let i = 0; i < n; i++) v[i] += gain * (serverQ[i] - baseEntry.q[i]);
    }
    prediction.baseTick = tick;
    const spread = (prediction.spread ??= newSpreadReplay(body, scene.pushLength));
    spread.active = true;
    spread.tick = tick;
    spread.baseSeq = baseEntry.seq;
    spread.nextSeq = baseEntry.seq + 1;
    spread.updates = 0;
    spread.error = body.lastReconcileError;
    spread.oldQ.set(baseEntry.q);
    this.putLiveAside(body, spread);
    solver.setState(serverQ, v);
    body.entity.updateProxies();
    scene.resetPushes();
    baseEntry.q.set(solver.q);
    baseEntry.v.set(solver.velocity);
    // Frames before the base are done with; the later ones predict the ticks after the server's.
    for (const entry of history.splice(0, base)) prediction.spare.push(entry);
    for (let k = 0; k < history.length; k++) history[k].tick = tick + k;
    this.slice(body, prediction, reserve);
  }

  /** The next slice of a spread replay: its state swapped in for the live one's. */
  private runOn(body: ClientBody, prediction: Prediction, reserve: number): void {
    const spread = prediction.spread!, scene = this.host.scene();
    endCoasting(body, prediction);
    // Its frames fell out of the history (a stall of seconds): the live prediction goes on, the next state corrects it.
    if (spread.nextSeq < prediction.history[0].seq) {
      spread.active = false;
      return;
    }
    this.putLiveAside(body, spread);
    body.body.restoreState(spread.replay);
    body.entity.updateProxies();
    scene.setPushes(spread.pushes);
    this.slice(body, prediction, reserve);
  }

  /**
   * Replays what the budget allows of a spread replay whose state is in the solver (the live one aside), and takes
   * its result up when done; else keeps its state and puts the live one back.
   */
  private slice(body: ClientBody, prediction: Prediction, reserve: number): void {
    const spread = prediction.spread!, history = prediction.history, solver = body.body, n = solver.n, scene = this.host.scene();
    const newest = history.length - 1, from = spread.nextSeq - history[0].seq, newestSeq = history[newest].seq;
    // Frames added since the last slice (one an update at headset rate, before the first).
    const added = spread.updates === 0 ? 1 : newestSeq - spread.newestSeq;
    spread.updates++;
    spread.newestSeq = newestSeq;
    const done = this.replay(body, prediction, from, Math.min(newest - from + 1, this.host.budget.stepsThatFit(body, reserve)), reserve, spread.oldQ);
    spread.nextSeq += done;
    if (from + done > newest) {
      this.finish(body, prediction, true);
      return;
    }
    const pace = done - added, left = newest - from - done + 1;
    if (pace <= 0 || left > pace * (MAX_SPREAD_UPDATES - spread.updates)) {
      // Out of reach: the frames not reached are shifted by SHIFT_GAIN of the correction of the last one replayed,
      // in position only. Its velocity is the first step's of an integrator restarted at the server's state, not
      // the server's: shifted too, it kicked every frame after it (on a device where no replay fits, a held body's
      // prediction was 37 cm off the server at p95 in test/net/body-predictor.test.ts's free pull).
      const q = solver.q;
      for (let k = from + done; k <= newest; k++) {
        const entry = history[k];
        for (let i = 0; i < n; i++) entry.q[i] += SHIFT_GAIN * (q[i] - spread.oldQ[i]);
      }
      solver.setState(history[newest].q, history[newest].v);
      body.entity.updateProxies();
      scene.setPushes(spread.livePushes);
      this.finish(body, prediction, false);
      return;
    }
    solver.saveState(spread.replay);
    scene.copyPushes(spread.pushes);
    solver.restoreState(spread.live);
    body.entity.updateProxies();
    scene.setPushes(spread.livePushes);
  }

  /** A spread replay is done: its newest frame, in the solver, replaces the live prediction, shown fading over. */
  private finish(body: ClientBody, prediction: Prediction, replayed: boolean): void {
    const spread = prediction.spread!, history = prediction.history, stats = this.host.stats, live = spread.live.q;
    spread.active = false;
    if (replayed) stats.replays++;
    else stats.shifts++;
    if (spread.updates > 1) stats.spread++;
    body.lastCorrection = surfaceDistance(body, live, body.body.q);
    this.host.reconciled({ body: body.id, tick: spread.tick, frame: spread.baseSeq, error: spread.error, correction: body.lastCorrection, frames: history.length - 1, replayed });
    this.host.corrections.add(body, live, body.body.q, CORRECTION_FADE_MS);
    // Ended grabs that no remaining frame holds are forgotten.
    for (const [serial, ghost] of prediction.ghosts) {
      if (!history.some((e) => e.serials.includes(serial))) prediction.ghosts.delete(serial);
      else deactivateGrab(ghost);
    }
  }

  /** The live prediction's whole state and the props' pushes, kept aside while a replay has the solver. */
  private putLiveAside(body: ClientBody, spread: SpreadReplay): void {
    const scene = this.host.scene();
    body.body.saveState(spread.live);
    // The scene is rebuilt when bodies come and go: its props may be more than when the replay began.
    if (spread.livePushes.length < scene.pushLength) {
      spread.livePushes = new Float64Array(scene.pushLength);
      spread.pushes = new Float64Array(scene.pushLength);
    }
    scene.copyPushes(spread.livePushes);
  }

  /**
   * Replays up to `count` frames from history[from] on from the state now in the solver, with the grabs each frame
   * had, stopping early when the steps run slower than planned (beyond `reserve` ms of the budget). Leaves in
   * `oldQ` the replaced position of the last frame replayed; returns the frames replayed.
   */
  private replay(body: ClientBody, prediction: Prediction, from: number, count: number, reserve: number, oldQ: Float64Array): number {
    const history = prediction.history, solver = body.body, grabs = this.host.grabs, scene = this.host.scene(), budget = this.host.budget, stats = this.host.stats;
    const own = [...[...grabs.held.values()].filter((h) => h.body === body), ...prediction.ghosts.values()];
    let done = 0;
    for (let k = from; k < from + count; k++) {
      if (done > 0 && !budget.fits(body, reserve)) break;
      const entry = history[k];
      for (const grab of own) {
        const slot = entry.serials.indexOf(grab.serial);
        if (slot < 0) deactivateGrab(grab);
        else activateGrab(grab, entry.targets[3 * slot], entry.targets[3 * slot + 1], entry.targets[3 * slot + 2]);
      }
      budget.stepStarts();
      scene.prepare(body.entity, entry.tick);
      body.entity.step();
      scene.pushProps(body.entity);
      stats.steps++;
      stats.replayed++;
      budget.stepDone(body);
      oldQ.set(entry.q);
      entry.q.set(solver.q);
      entry.v.set(solver.velocity);
      done++;
    }
    // Back to now: the live grabs at their current targets, the ended ones out.
    for (const grab of own) {
      const target = grabs.targets.get(grab.hand);
      if (grabs.held.get(grab.hand) === grab && target) activateGrab(grab, target[0], target[1], target[2]);
      else deactivateGrab(grab);
    }
    return done;
  }
}
