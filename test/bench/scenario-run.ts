// The benchmarks' common run, the `pull` scenario's 2 s grab: a 60 Hz body resting on the floor, its topmost
// render vertex grabbed and pulled up 0.2 m over 1 s, then held 1 s.

import { FloorContact, type SoftBody, type SolverOptions } from "../../shared/sim";
import { createSoftBody, type LoadedBody } from "../../server/scenarios/body-from-mesh";

const JELLY = { youngsModulus: 1e5, poissonRatio: 0.45, density: 1000 };
const STEPS = 120;
const DT = 1 / 60;

/** Runs the pull, calling `afterStep` after each step; returns the step times (ms) and the mean iterations. */
export function pullRun(loaded: LoadedBody, solver: Partial<SolverOptions>, afterStep: (body: SoftBody, step: number) => void): { times: number[]; iterations: number } {
  let minY = Infinity, top = 0;
  const rest = loaded.renderRest;
  for (let i = 0; i < rest.length / 3; i++) {
    minY = Math.min(minY, rest[3 * i + 1]);
    if (rest[3 * i + 1] > rest[3 * top + 1]) top = i;
  }
  const origin = [0, -minY, 0];
  const body = createSoftBody(loaded, JELLY, solver, origin);
  body.addContactSurface(new FloorContact(0));
  const start = [origin[0] + rest[3 * top], origin[1] + rest[3 * top + 1], origin[2] + rest[3 * top + 2]];
  const grab = body.grab(start[0], start[1], start[2]);
  const times: number[] = [];
  let iterations = 0;
  for (let s = 0; s < STEPS; s++) {
    body.moveGrab(grab, start[0], start[1] + 0.2 * Math.min(1, (s + 1) * DT), start[2]);
    const t0 = performance.now();
    iterations += body.step().iterations;
    times.push(performance.now() - t0);
    afterStep(body, s);
  }
  return { times, iterations: iterations / STEPS };
}
