// The benchmarks' common runs: the `sim` scenarios (server/scenarios/run-scenario.ts) on 0.3 m jelly at 60 Hz,
// timed step by step. `pull`: resting on the floor, the top pulled up 0.2 m over 1 s and held 1 s. `throw`:
// released at a speed with spin, into the floor and a wall.

import type { SoftBody, SolverOptions } from "../../shared/sim";
import type { LoadedBody } from "../../server/scenarios/body-from-mesh";
import { prepareScenario } from "../../server/scenarios/run-scenario";

const JELLY = { youngsModulus: 1e5, poissonRatio: 0.45, density: 1000 };
const STEPS = 120;
const DT = 1 / 60;
const DAMPING = 0.002;

export interface BenchScenario {
  scenario: "pull" | "throw";
  /** throw: release speed, m/s. */
  speed?: number;
}

/** Runs a scenario for 2 s, calling `afterStep` after each step; returns the step times (ms) and the mean iterations. */
export function scenarioRun(loaded: LoadedBody, run: BenchScenario, solver: Partial<SolverOptions>, afterStep: (body: SoftBody, step: number) => void): { times: number[]; iterations: number } {
  const { body, beforeStep } = prepareScenario(loaded, { ...JELLY, ...run, dt: DT, damping: DAMPING }, solver);
  const times: number[] = [];
  let iterations = 0;
  for (let s = 0; s < STEPS; s++) {
    beforeStep((s + 1) * DT);
    const t0 = performance.now();
    iterations += body.step().iterations;
    times.push(performance.now() - t0);
    afterStep(body, s);
  }
  return { times, iterations: iterations / STEPS };
}
