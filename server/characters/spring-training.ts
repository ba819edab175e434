// Fits a character's spring layer to the solver: each training clip is played in place for a few seconds and then
// held while the flesh settles, the solver's soft part and the rig's force are recorded at every step, the layer's
// directions are the principal directions of those soft parts, and each direction's spring is fitted to them.

import { FloorContact, type Material } from "../../shared/sim";
import { CharacterBody, fitSprings, principalDirections, type SpringModel, type SpringTrainingRun } from "../../shared/rig";
import type { BakedBody } from "../../shared/skinning";

export interface SpringTraining {
  clips: string[];
  /** Seconds each clip plays, then seconds it holds its last pose. */
  playSeconds: number;
  holdSeconds: number;
  /** Directions (springs) the layer keeps. */
  directions: number;
  dt: number;
}

export const DEFAULT_SPRING_TRAINING: Omit<SpringTraining, "clips"> = Object.freeze({ playSeconds: 4, holdSeconds: 2, directions: 16, dt: 1 / 60 });

/** One clip through the solver, recorded: its q and the rig's generalised force at every step. */
export function solverRun(baked: BakedBody, size: number, material: Material, damping: number, clipName: string, playSeconds: number, holdSeconds: number, dt: number): SpringTrainingRun {
  const character = new CharacterBody(baked, size, material, { dt, damping });
  const clip = character.rig.clips.find((c) => c.name === clipName);
  if (!clip) throw new Error(`no clip "${clipName}": the rig has ${character.rig.clips.map((c) => c.name).join(", ")}`);
  character.body.addContactSurface(new FloorContact(character.motion.lowestPoint(clip)));
  const run: SpringTrainingRun = { q: [], force: [], dt };
  const playing = Math.round(playSeconds / dt), steps = playing + Math.round(holdSeconds / dt);
  for (let step = 0; step < steps; step++) {
    character.pose.sample(clip, (Math.min(step + 1, playing) * dt) % Math.max(clip.duration, 1e-9));
    character.step();
    run.q.push(Float64Array.from(character.body.q));
    run.force.push(Float64Array.from(character.force));
  }
  return run;
}

export function trainSpringModel(baked: BakedBody, size: number, material: Material, damping: number, training: SpringTraining): SpringModel {
  const runs = training.clips.map((clip) => solverRun(baked, size, material, damping, clip, training.playSeconds, training.holdSeconds, training.dt));
  // Any character built the same way has the same subspace: its mass and stiffness are what the fit needs.
  const subspace = new CharacterBody(baked, size, material, { dt: training.dt, damping }).subspace;
  const basis = principalDirections(subspace, material, runs.flatMap((run) => run.q), training.directions);
  return { basis, parameters: fitSprings(basis, subspace.massBlock, material.density, runs), density: material.density };
}
