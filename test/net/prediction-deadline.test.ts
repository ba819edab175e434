// A held body's prediction steps run to a deadline on the page's clock when asked to (JoinSettings.stepDeadlines):
// what is left of the update's millisecond budget, at least a least (HELD_STEP_LEAST_MS, twice its usual cost), so
// one slow step does not make a long frame; a cut step's time is spent but teaches nothing of a step's cost. Without
// deadlines (the default, and always with a scripted clock) steps run to convergence.

import { describe, expect, it } from "vitest";
import { HELD_STEP_LEAST_MS, PREDICTION_MS_BUDGET, PredictionBudget } from "../../shared/net/client/prediction-budget";

/** A budget with deadlines on a scripted clock, and one body whose steps take `ms` each (`cut`: stopped at its deadline). */
function clockedBudget() {
  const clock = { now: 0 };
  const budget = new PredictionBudget(() => clock.now, () => true);
  const body = {};
  budget.begin(1);
  const step = (ms: number, cut = false) => {
    budget.stepStarts();
    clock.now += ms;
    budget.stepDone(body, cut);
  };
  return { budget, body, step };
}

describe("a prediction step's deadline", () => {
  it("is what is left of the budget, at least the least asked for, on the budget's clock", () => {
    let clock = 1000;
    const budget = new PredictionBudget(() => clock, () => true);
    const body = {};
    budget.begin(1);
    expect(budget.stepStarts()).toBe(1000 + PREDICTION_MS_BUDGET);
    clock += 1.5;
    budget.stepDone(body);
    // 0.5 ms left: a free body's step may use it, a held one's at least its least.
    expect(budget.stepStarts()).toBeCloseTo(1001.5 + PREDICTION_MS_BUDGET - 1.5, 9);
    expect(budget.stepStarts(HELD_STEP_LEAST_MS)).toBeCloseTo(1001.5 + HELD_STEP_LEAST_MS, 9);
    clock += 3;
    budget.stepDone(body);
    // In debt: a free step only gets its first iteration (a deadline already passing), a held one its least.
    expect(budget.stepStarts()).toBe(1004.5);
    expect(budget.stepStarts(HELD_STEP_LEAST_MS)).toBe(1004.5 + HELD_STEP_LEAST_MS);
  });

  it("a cut step spends its time but leaves the body's step cost as it was", () => {
    const { budget, body, step } = clockedBudget();
    step(0.5);
    expect(budget.cost(body)).toBe(0.5);
    step(0.2, true);
    expect(budget.cost(body)).toBe(0.5);
    expect(budget.spent).toBeCloseTo(0.7, 9);
  });

  it("a held body's step runs at least HELD_STEP_LEAST_MS, and at least twice its usual cost", () => {
    const { budget, body, step } = clockedBudget();
    step(0.4);
    expect(budget.heldStepLeastMs(body)).toBe(HELD_STEP_LEAST_MS);
    step(2.4);
    // The running cost: 0.4 + 0.2 (2.4 - 0.4) = 0.8 ms.
    expect(budget.heldStepLeastMs(body)).toBeCloseTo(1.6, 9);
  });

  it("is never, without deadlines (the default)", () => {
    const budget = new PredictionBudget(() => 0);
    budget.begin(1);
    expect(budget.stepStarts(HELD_STEP_LEAST_MS)).toBe(Infinity);
  });
});
