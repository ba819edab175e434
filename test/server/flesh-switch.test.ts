// Handing a room character's flesh between the solver and the linearised flesh (flesh-switch.ts), on the fox's Run at
// the room's size: untouched, the linearised flesh moves it and the solver does not step; a touch hands it to the
// solver, which keeps it for SOLVER_HOLD_SECONDS after the last touch; each takes over from the state the other
// showed, so the flesh shown never jumps at a handover by more than it moves in a tick around it; and the solver's
// surface samples follow the pose while it rests.

import path from "node:path";
import { expect, it } from "vitest";
import { CharacterBody, LinearFlesh, surfaceRms } from "../../shared/rig";
import { CHARACTER_MAX_ITERATIONS, fleshFor } from "../../shared/rig/character-defaults";
import { loadBody } from "../../server/scenarios/body-from-mesh";
import { CHARACTER_WEIGHTS } from "../../server/skinning/weights-source";
import { FleshSwitch, SOLVER_HOLD_SECONDS, type FleshSource } from "../../server/characters/flesh-switch";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");

it("untouched the linearised flesh moves it, a touch hands it to the solver and back, and the flesh shown never jumps", async () => {
  const size = 0.8, flesh = fleshFor(size), dt = 1 / 60;
  const loaded = await loadBody({ mesh: FOX, weights: CHARACTER_WEIGHTS, handles: 16, cubature: 256, size });
  const character = new CharacterBody(loaded.baked, size, flesh, { dt, damping: flesh.damping, maxIterations: CHARACTER_MAX_ITERATIONS });
  const linear = new LinearFlesh(character.subspace, flesh, flesh.damping, dt);
  const switcher = new FleshSwitch(character, linear, null, dt);
  const clip = character.rig.clips.find((c) => c.name === "Run")!;
  const touchFrom = 90, touchTo = 150, hold = Math.round(SOLVER_HOLD_SECONDS / dt), ticks = touchTo + hold + 90;
  const sources: FleshSource[] = [], changes: number[] = [], previous = new Float64Array(character.body.n), change = new Float64Array(character.body.n);
  let solverStill = true;
  for (let tick = 0; tick < ticks; tick++) {
    character.pose.sample(clip, ((tick + 1) * dt) % clip.duration);
    switcher.step(tick >= touchFrom && tick < touchTo, false);
    sources.push(switcher.source);
    for (let i = 0; i < change.length; i++) change[i] = switcher.q[i] - previous[i];
    changes.push(surfaceRms(character.subspace, change));
    previous.set(switcher.q);
    if (tick < touchFrom && character.body.q.some((v) => v !== 0)) solverStill = false;
    // The solver's surface samples follow the pose all along, so that a hand grabbing finds them where they are.
    if (tick === touchFrom - 1) expect(Array.from(character.subspace.surfaceRest)).toEqual(Array.from(character.motion.posedSurface));
    expect(switcher.q.every(Number.isFinite)).toBe(true);
  }
  // Who moved it when: the solver from the touch until a second after it ends, the linearised flesh otherwise.
  expect(sources.slice(0, touchFrom).every((s) => s === "linear")).toBe(true);
  expect(sources.slice(touchFrom, touchTo + hold).every((s) => s === "sim")).toBe(true);
  expect(sources.slice(touchTo + hold).every((s) => s === "linear")).toBe(true);
  expect(solverStill, "the solver stepped while the linearised flesh moved the fox").toBe(true);
  // It answers the run, and no handover makes it jump: the change across one is within 1.5x the largest of the three
  // ticks either side (measured 0.8x and 0.3x; the linearised flesh going on from its own state of before the touch:
  // 2.7x; the solver starting from rest: 5.9x).
  expect(Math.max(...changes.slice(30, touchFrom))).toBeGreaterThan(1e-5);
  for (const handover of [touchFrom, touchTo + hold]) {
    const around = Math.max(...changes.slice(handover - 3, handover), ...changes.slice(handover + 1, handover + 4));
    expect(changes[handover], `tick ${handover}`).toBeLessThan(1.5 * around);
  }
}, 60_000);
