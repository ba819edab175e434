// The two analytic layers of secondary motion against the solver, with nothing fitted to any clip or character (so
// every clip is held out): the linearised complementary dynamics (linear-flesh.ts) and the springs on the flesh's
// own modes (spring-model.ts), on the fox's Run and on a humanoid the project has never seen (procedural-humanoid.ts:
// 42 joints, two primitives) running. The flesh strains by millimetres, where the rest stiffness is the solver's own
// energy to second order: a layer should follow the solver, not only its size.

import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { CharacterBody, complementarySprings, LinearCharacter, LinearFlesh, SpringCharacter, surfaceRms } from "../../shared/rig";
import { FLESH } from "../../shared/rig/character-defaults";
import { FloorContact } from "../../shared/sim";
import { loadBody } from "../../server/scenarios/body-from-mesh";
import { CHARACTER_WEIGHTS } from "../../server/skinning/weights-source";
import { humanoidBytes } from "./procedural-humanoid";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");
const MATERIAL = { youngsModulus: FLESH.youngsModulus, poissonRatio: FLESH.poissonRatio, density: FLESH.density };
const DT = 1 / 60, PLAYING = 4 * 60, STOPPED = 2 * 60;

interface Layer {
  pose: { sample(clip: never, t: number): void };
  step(): void;
  q: Float64Array;
}

/** A clip played for 4 s and held for 2: the layer's error against the solver, as a share of showing no soft part. */
async function againstSolver(mesh: string, clipName: string, make: (loaded: Awaited<ReturnType<typeof loadBody>>) => Layer) {
  const loaded = await loadBody({ mesh, weights: CHARACTER_WEIGHTS, handles: 16, cubature: 256, size: 1 });
  const solver = new CharacterBody(loaded.baked, loaded.size, MATERIAL, { dt: DT, damping: FLESH.damping });
  const layer = make(loaded);
  const clip = solver.rig.clips.find((c) => c.name === clipName)!;
  solver.body.addContactSurface(new FloorContact(solver.motion.lowestPoint(clip)));
  const difference = new Float64Array(solver.body.n);
  // Mean squares over the surface samples: of the difference, and of the solver's own soft part (showing none).
  const error = { playing: 0, stopped: 0 }, none = { playing: 0, stopped: 0 };
  for (let step = 0; step < PLAYING + STOPPED; step++) {
    const t = (Math.min(step + 1, PLAYING) * DT) % clip.duration;
    solver.pose.sample(clip, t);
    layer.pose.sample(clip as never, t);
    solver.step();
    layer.step();
    for (let i = 0; i < difference.length; i++) difference[i] = layer.q[i] - solver.body.q[i];
    const phase = step < PLAYING ? "playing" : "stopped";
    error[phase] += surfaceRms(solver.subspace, difference) ** 2;
    none[phase] += surfaceRms(solver.subspace, solver.body.q) ** 2;
  }
  // Its flesh is complementary to the rig at the pose it ends on: the solver's projection leaves it as it is.
  const projected = Float64Array.from(layer.q);
  solver.projection.project(projected);
  let moved = 0, size = 0;
  for (let i = 0; i < projected.length; i++) {
    moved += (projected[i] - layer.q[i]) ** 2;
    size += layer.q[i] ** 2;
  }
  return {
    playing: Math.sqrt(error.playing / none.playing), stopped: Math.sqrt(error.stopped / none.stopped),
    offConstraint: Math.sqrt(moved / size), finite: layer.q.every(Number.isFinite),
  };
}

/** The linearised flesh of a loaded bake, as a layer. */
function linearOn(loaded: Awaited<ReturnType<typeof loadBody>>): Layer {
  return new LinearCharacter(loaded.baked, loaded.size, MATERIAL, { dt: DT, damping: FLESH.damping });
}

/** A layer's run against the solver: its errors (shares of no soft part) under these, finite, and complementary to `offConstraint`. */
function expectFollows(ratio: Awaited<ReturnType<typeof againstSolver>>, limits: { playing: number; stopped: number; offConstraint: number }): void {
  expect(ratio.playing).toBeLessThan(limits.playing);
  expect(ratio.stopped).toBeLessThan(limits.stopped);
  expect(ratio.finite).toBe(true);
  expect(ratio.offConstraint).toBeLessThan(limits.offConstraint);
}

/** The springs on the flesh's own modes of a loaded bake, as a layer. */
function springsOn(loaded: Awaited<ReturnType<typeof loadBody>>): Layer {
  const springs = new SpringCharacter(loaded.baked, loaded.size, complementarySprings(loaded.baked, loaded.size, MATERIAL, FLESH.damping));
  return { pose: springs.pose, step: () => springs.step(DT), get q() { return springs.q; } };
}

it("the linearised flesh follows the solver's through the fox's Run and after it stops, with nothing fitted", async () => {
  const ratio = await againstSolver(FOX, "Run", linearOn);
  console.info(`Run: linearised flesh ${ratio.playing.toFixed(3)}x the error of no soft part playing, ${ratio.stopped.toFixed(3)}x after the stop`);
  // Measured 0.39x and 0.22x (an implicit Euler step: 0.43x and 0.34x).
  expectFollows(ratio, { playing: 0.6, stopped: 0.3, offConstraint: 1e-9 });
}, 120_000);

it("the springs on the flesh's own modes beat showing no soft part through the Run and after it stops", async () => {
  const ratio = await againstSolver(FOX, "Run", springsOn);
  console.info(`Run: springs ${ratio.playing.toFixed(3)}x the error of no soft part playing, ${ratio.stopped.toFixed(3)}x after the stop`);
  // Measured 0.69x and 0.55x. Springs fitted to the solver on Walk and Survey erred 1.06x (playing).
  expectFollows(ratio, { playing: 0.8, stopped: 0.7, offConstraint: 1e-9 });
}, 120_000);

it("on a humanoid never seen, running, both layers beat showing no soft part with nothing fitted", async () => {
  const file = path.join(await mkdtemp(path.join(tmpdir(), "pliant-humanoid-")), "humanoid.glb");
  await writeFile(file, await humanoidBytes());
  const linear = await againstSolver(file, "Running", linearOn);
  const springs = await againstSolver(file, "Running", springsOn);
  console.info(`humanoid Running: linearised ${linear.playing.toFixed(3)}x / ${linear.stopped.toFixed(3)}x, springs ${springs.playing.toFixed(3)}x / ${springs.stopped.toFixed(3)}x the error of no soft part (playing / after the stop)`);
  // Measured: linearised 0.41x / 0.71x, springs 0.70x / 0.77x. Its fingers weigh grams: the constraint's rows are
  // less well conditioned than the fox's (off the constraint by 1.6e-8).
  expectFollows(linear, { playing: 0.6, stopped: 0.9, offConstraint: 1e-6 });
  expectFollows(springs, { playing: 0.85, stopped: 0.95, offConstraint: 1e-6 });
}, 240_000);

it("the linearised flesh steps the same on the SIMD kernels as in the JS loops", async () => {
  const loaded = await loadBody({ mesh: FOX, weights: CHARACTER_WEIGHTS, handles: 16, cubature: 256, size: 1 });
  const character = new CharacterBody(loaded.baked, loaded.size, MATERIAL, { dt: DT, damping: FLESH.damping });
  const simd = new LinearFlesh(character.subspace, MATERIAL, FLESH.damping, DT);
  const js = new LinearFlesh(character.subspace, MATERIAL, FLESH.damping, DT, false);
  expect(simd.usesSimd).toBe(true);
  expect(js.usesSimd).toBe(false);
  const clip = character.rig.clips.find((c) => c.name === "Run")!;
  let largest = 0, difference = 0;
  for (let step = 0; step < 120; step++) {
    character.pose.sample(clip, ((step + 1) * DT) % clip.duration);
    const motion = character.advancePose();
    motion.inertiaForce(MATERIAL.density, DT, character.force);
    character.projection.update(motion.jointMatrices, motion.jointPositions);
    simd.advance(character.force, character.projection);
    js.advance(character.force, character.projection);
    for (let i = 0; i < js.q.length; i++) {
      largest = Math.max(largest, Math.abs(js.q[i]));
      difference = Math.max(difference, Math.abs(simd.q[i] - js.q[i]));
    }
  }
  // The flesh moved, and the two agree to rounding (the same sums added in another order).
  expect(largest).toBeGreaterThan(1e-3);
  expect(difference).toBeLessThan(1e-10 * largest);
});
