// What the prediction reports: counters of its work (benchmarks, tests, the page's stats) and an event per
// reconciliation of a predicted body with a server state.

export interface PredictionStats {
  /** Solver steps run by the prediction: new frames, and frames replayed. */
  steps: number;
  replayed: number;
  /** Held bodies' steps stopped at their deadline, unconverged (JoinSettings.stepDeadlines). */
  cutSteps: number;
  /** Frames carried forward without the solver (over budget). */
  coasted: number;
  /**
   * Reconciliations done by replaying every frame, and by shifting the frames a replay did not reach in time; of
   * both, those spread over several updates (over budget); server states replaced by a newer one before they were
   * reconciled (they wait while a spread replay runs).
   */
  replays: number;
  shifts: number;
  spread: number;
  deferred: number;
  /** Most solver steps, and most milliseconds of them, one update() spent (by the prediction's clock). */
  mostStepsInUpdate: number;
  mostMsInUpdate: number;
  /** Own grabs the prediction saw slip. */
  predictedSlips: number;
  /** Frames skipped to let a server that fell behind catch up. */
  skippedFrames: number;
}

export function newPredictionStats(): PredictionStats {
  return { steps: 0, replayed: 0, cutSteps: 0, coasted: 0, replays: 0, shifts: 0, spread: 0, deferred: 0, mostStepsInUpdate: 0, mostMsInUpdate: 0, predictedSlips: 0, skippedFrames: 0 };
}

export interface ReconcileEvent {
  body: string;
  /** The server tick of the state, and the frame of this client's it follows. */
  tick: number;
  frame: number;
  /** ClientBody.lastReconcileError (NaN when not measured) and lastCorrection, m. */
  error: number;
  correction: number;
  /** Frames after the server's state, and whether they were all replayed (true) or some shifted (over budget). */
  frames: number;
  replayed: boolean;
}
