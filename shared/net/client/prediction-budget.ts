// The prediction's work bound, in milliseconds of the page's main thread: what a headset's frame can give it. A
// bound in solver steps meant 3 ms here and several times that on a Quest-class CPU, whose frames then ran long.
// Each body's step cost is measured as it runs (a running mean), so the prediction plans a replay in steps that
// fit, and stops one whose steps ran slower than planned; it goes on in the next updates (reconciler.ts). The
// clock is injected: the page's performance.now, or a scripted one in tests.

/** Milliseconds of prediction work the budget gains per 60 Hz frame of time passed (9% of the time). */
export const PREDICTION_MS_PER_FRAME = 1.5;
/**
 * What it gains per frame of time in an update that covers more than SLOW_PAGE_FRAMES of them (30%): a page that
 * draws that slowly (software GL, a loaded machine) has long frames anyway, and a held body that cannot step its
 * frames falls behind the hand.
 */
export const SLOW_PAGE_MS_PER_FRAME = 5;
const SLOW_PAGE_FRAMES = 2;
/**
 * Most milliseconds the budget holds at the start of an update() at headset rate: what was not spent in earlier
 * frames is kept up to this, so that one frame never runs long. An update after several frames of time (a page
 * that draws slowly) may spend what those frames gained, the same share of its time.
 */
export const PREDICTION_MS_BUDGET = 2;
/**
 * A body's step cost before its first step is measured, ms: on the slow side, so that the first replay is planned
 * short rather than long.
 */
const FIRST_GUESS_MS = 1;
/**
 * Least milliseconds a held body's step may run when the budget has less left, and least multiple of its usual cost:
 * it steps in every frame (the hand must not lose it), so only an outlier (an impact, a new factor) is cut.
 */
export const HELD_STEP_LEAST_MS = 1;
const HELD_STEP_LEAST_COSTS = 2;
/** Weight of a new measurement in a body's running step cost. */
const SMOOTHING = 0.2;
/** Least cost a step is counted at, ms: below it is a coarse or simulated clock's resolution, not the step. */
const LEAST_STEP_MS = 0.01;

export class PredictionBudget {
  /**
   * Milliseconds left in this update. Negative: held bodies' newest steps ran past it; the debt carried into the next
   * update is at most PREDICTION_MS_BUDGET, so steps that always cost more than the budget gains leave the
   * replays without time only while they last.
   */
  private left = PREDICTION_MS_BUDGET;
  private spentInUpdate = 0;
  private stepStartedAt = 0;
  private readonly costs = new WeakMap<object, number>();

  /**
   * `now`: the clock steps are measured with. `stepDeadlines`: whether steps run to deadlines (then `now` must be
   * performance.now, the deadlines' clock); otherwise they run to convergence.
   */
  constructor(private readonly now: () => number, private readonly stepDeadlines: () => boolean = () => false) {}

  /** An update begins, `frames` 60 Hz frames of time after the last. */
  begin(frames: number): void {
    const gained = frames * (frames > SLOW_PAGE_FRAMES ? SLOW_PAGE_MS_PER_FRAME : PREDICTION_MS_PER_FRAME);
    this.left = Math.min(Math.max(PREDICTION_MS_BUDGET, gained), Math.max(-PREDICTION_MS_BUDGET, this.left) + gained);
    this.spentInUpdate = 0;
  }

  /** Milliseconds left in this update. */
  get remaining(): number {
    return this.left;
  }

  /** Milliseconds of steps this update has run. */
  get spent(): number {
    return this.spentInUpdate;
  }

  /** A step of `body` costs about this much, ms. */
  cost(body: object): number {
    return this.costs.get(body) ?? FIRST_GUESS_MS;
  }

  /** Least milliseconds a held body's step may run (stepStarts' `leastMs`). */
  heldStepLeastMs(body: object): number {
    return Math.max(HELD_STEP_LEAST_MS, HELD_STEP_LEAST_COSTS * this.cost(body));
  }

  /** Whether a step of `body` fits in what is left beyond `reserve` ms. */
  fits(body: object, reserve = 0): boolean {
    return this.left - reserve >= this.cost(body);
  }

  /** Steps of `body` that fit in what is left beyond `reserve` ms. */
  stepsThatFit(body: object, reserve: number): number {
    return Math.max(0, Math.floor((this.left - reserve) / this.cost(body)));
  }

  /**
   * A step begins (pair with stepDone: no closure per step). Returns a deadline for it (performance.now, ms;
   * Infinity without deadlines): what is left of the budget, at least `leastMs`; past it a step stops after its
   * current iteration, so that one slow step (an impact, a new factor) does not make a long frame.
   */
  stepStarts(leastMs = 0): number {
    const now = (this.stepStartedAt = this.now());
    return this.stepDeadlines() ? now + Math.max(leastMs, this.left) : Infinity;
  }

  /**
   * The step of `body` begun at stepStarts is done: its time is spent, and teaches the body's cost unless the step
   * was `cut` at its deadline (a cut step says nothing about what a whole one costs).
   */
  stepDone(body: object, cut = false): void {
    const ms = Math.max(LEAST_STEP_MS, this.now() - this.stepStartedAt), known = this.costs.get(body);
    this.left -= ms;
    this.spentInUpdate += ms;
    if (!cut) this.costs.set(body, known === undefined ? ms : known + SMOOTHING * (ms - known));
  }
}
