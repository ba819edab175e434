// A body's whole state kept aside and put back (SoftBody.saveState / restoreState, what a client's replay spread
// over several frames swaps with its live prediction): the integrator's history, the warm start and the lagged
// normal forces come back with q and the velocity, so the steps after a restore are the steps the body would have
// taken. setState restarts the integrator and does not give them. The preconditioner's contact factors are not
// part of the state (they follow the contacts a slice a step), so on a floor the path comes back only as closely
// as the steps that end unconverged allow.

import { expect, it } from "vitest";
import { FloorContact, type SoftBody } from "../../shared/sim";
import { savedBodyState } from "../../shared/sim/saved-state";
import { bodyFor, makeBody } from "./helpers";

/** How far (largest |q| difference) the body's next 10 steps go from `reference` after `prepare`. */
function pathAfter(body: SoftBody, prepare: () => void, reference?: Float64Array[]): { states: Float64Array[]; off: number } {
  prepare();
  const states: Float64Array[] = [];
  for (let i = 0; i < 10; i++) {
    body.step();
    states.push(Float64Array.from(body.q));
  }
  const off = reference ? Math.max(...states.map((q, k) => Math.max(...q.map((v, i) => Math.abs(v - reference[k][i]))))) : 0;
  return { states, off };
}

it("restoreState gives back the steps a held, swinging body would have taken, bit for bit; setState does not", async () => {
  const loaded = await bodyFor("../shared/assets/meshes/spot.obj");
  const body = makeBody(loaded, {}, [0, 1, 0]);
  const p = new Float64Array(3);
  body.pointPosition(loaded.subspace.surfaceRows, loaded.subspace.surfaceRest, 0, p, 0);
  const grab = body.grab(p[0], p[1], p[2]);
  body.moveGrab(grab, p[0] + 0.1, p[1] + 0.05, p[2]);
  for (let i = 0; i < 20; i++) body.step();
  const saved = savedBodyState(body.n, body.subspace.surfaceCount);
  body.saveState(saved);
  const first = pathAfter(body, () => {}).states;
  // Something else runs in between (another replay's steps).
  for (let i = 0; i < 7; i++) body.step();
  expect(pathAfter(body, () => body.restoreState(saved), first).off).toBe(0);
  expect(pathAfter(body, () => body.setState(saved.q, saved.velocity), first).off).toBeGreaterThan(1e-6);
});

it("on a floor, restoreState comes back far closer to the body's path than setState", async () => {
  const loaded = await bodyFor("../shared/assets/meshes/spot.obj");
  const body = makeBody(loaded, {}, [0, 0.2, 0]);
  body.addContactSurface(new FloorContact(0));
  // Falling onto the floor and bouncing: velocity, history and contacts all matter.
  for (let i = 0; i < 25; i++) body.step();
  const saved = savedBodyState(body.n, body.subspace.surfaceCount);
  body.saveState(saved);
  const first = pathAfter(body, () => {}).states;
  for (let i = 0; i < 7; i++) body.step();
  const restored = pathAfter(body, () => body.restoreState(saved), first).off;
  const restarted = pathAfter(body, () => body.setState(saved.q, saved.velocity), first).off;
  console.log(`on a floor, 10 steps on: restored ${restored.toExponential(2)}, setState ${restarted.toExponential(2)} off the body's own path`);
  expect(restored).toBeLessThan(0.5 * restarted);
});
