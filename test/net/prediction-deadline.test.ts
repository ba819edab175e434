// The prediction's steps run to a deadline on the page's clock: what is left of the update's millisecond budget (a
// held body's step at least HELD_STEP_LEAST_MS), so one slow step never makes a long frame; a scripted clock (tests)
// cannot bound a real step, so its steps are never cut.

import { describe, expect, it } from "vitest";
import { HELD_STEP_LEAST_MS, PREDICTION_MS_BUDGET, PredictionBudget } from "../../shared/net/client/prediction-budget";

describe("a prediction step's deadline", () => {
  it("is what is left of the budget, at least the held body's least, on the budget's clock", () => {
    let clock = 1000;
    const budget = new PredictionBudget(() => clock);
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

  it("is never, on a scripted clock", () => {
    const budget = new PredictionBudget(() => 0, () => false);
    budget.begin(1);
    expect(budget.stepStarts(HELD_STEP_LEAST_MS)).toBe(Infinity);
  });
});
