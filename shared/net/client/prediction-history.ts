// What the prediction keeps of one body: its predicted frames (the state after each, the server tick it predicts,
// this client's grabs in it), the server state waiting to be reconciled, and whether it is coasting (carried
// forward on its velocity without the solver, over budget).

import { savedBodyState, type SavedBodyState } from "../../sim/saved-state";
import { HANDS } from "../protocol";
import type { ClientBody } from "./client-body";
import type { OwnGrab } from "./own-grabs";

/** Local prediction history kept for reconciliation, frames (2 s: round trips beyond that are not replayed). */
const HISTORY = 120;

/** One predicted frame: the state after it, the server tick it predicts, and this client's grabs in it. */
export interface HistoryEntry {
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
export interface Prediction {
  /** Consecutive frames, oldest first; the first is the last server state the prediction was reset to. */
  history: HistoryEntry[];
  spare: HistoryEntry[];
  /** Latest server state not reconciled yet, and the frame the server acknowledged with it (or null). */
  pending: { tick: number; q: Float64Array; frame: number | null } | null;
  /** Tick of the server state the prediction was last reset to (-1: none). */
  baseTick: number;
  /** Ended own grabs that history frames still hold, by serial. */
  ghosts: Map<number, OwnGrab>;
  /** Frames since the last own grab on the body ended (-1 while one is held), and frames it has been slow. */
  freeFrames: number;
  slowFrames: number;
  /** Coasting: the state being carried forward without the solver (set into the body before its next step). */
  coasting: boolean;
  /** Whether the body stepped in this update, and updates in a row it has not while free. */
  steppedInUpdate: boolean;
  updatesCoasted: number;
  coastQ: Float64Array;
  /** A replay spread over updates (reconciler.ts), null before the first. */
  spread: SpreadReplay | null;
}

/** A replay that did not fit in one update, run on in the next ones beside the live prediction. */
export interface SpreadReplay {
  active: boolean;
  /** The server state's tick, and the frames it follows (history[0] since) and to replay next (seqs). */
  tick: number;
  baseSeq: number;
  nextSeq: number;
  /** Updates it has run in, and the newest frame (seq) when it last ran. */
  updates: number;
  newestSeq: number;
  /** The prediction's error at the server state (ClientBody.lastReconcileError), m. */
  error: number;
  /** The replay's state after the frame before nextSeq (the solver's whole, saved-state.ts), and the position of that frame's prediction it replaced. */
  replay: SavedBodyState;
  oldQ: Float64Array;
  /** The live prediction's state while the replay has the solver. */
  live: SavedBodyState;
  /** The props' pushes in the replay and in the live prediction (PredictedScene.copyPushes). */
  pushes: Float64Array;
  livePushes: Float64Array;
}

export function newPrediction(n: number): Prediction {
  return { history: [], spare: [], pending: null, baseTick: -1, ghosts: new Map(), freeFrames: -1, slowFrames: 0, coasting: false, steppedInUpdate: false, updatesCoasted: 0, coastQ: new Float64Array(n), spread: null };
}

export function newSpreadReplay(body: ClientBody, pushLength: number): SpreadReplay {
  const n = body.body.n, surfaceCount = body.body.subspace.surfaceCount;
  return {
    active: false, tick: 0, baseSeq: 0, nextSeq: 0, updates: 0, newestSeq: 0, error: NaN, replay: savedBodyState(n, surfaceCount), oldQ: new Float64Array(n),
    live: savedBodyState(n, surfaceCount), pushes: new Float64Array(pushLength), livePushes: new Float64Array(pushLength),
  };
}

/** An entry for the next frame: a spare one, the oldest when the history is full, or a new one. */
export function takeEntry(prediction: Prediction, n: number): HistoryEntry {
  if (prediction.history.length >= HISTORY) return prediction.history.shift()!;
  return prediction.spare.pop() ?? { seq: 0, tick: NaN, q: new Float64Array(n), v: new Float64Array(n), serials: new Int32Array(HANDS.length), targets: new Float64Array(3 * HANDS.length) };
}

/** A coasting body takes up its carried state (before it steps, or is reconciled or shown from snapshots). */
export function endCoasting(body: ClientBody, prediction: Prediction): void {
  if (!prediction.coasting) return;
  prediction.coasting = false;
  body.body.setState(prediction.coastQ, body.body.velocity);
  body.entity.updateProxies();
}
