// The spring layer as a page runs it for a character whose flesh the room leaves to pages (flesh "springs"): its
// model in the room's flesh for the character's size (what takes a fifth of a second, so a page finds it on a
// worker: pageSpringModel), then a step at the room's tick on the pose shown, within what looks like flesh.

import { Subspace } from "../sim/subspace";
import { toSubspaceSource, type BakedBody } from "../skinning/baked-body";
import { fleshFor } from "./character-defaults";
import { FleshLimit } from "./flesh-limit";
import type { RigMotion } from "./rig-motion";
import { SpringCharacter } from "./spring-character";
import { complementarySprings, type SpringModel } from "./spring-model";

/**
 * A page's springs update their constraint to the pose every other step: the update is about a third of a step's cost
 * (0.47 ms a step updated every step in headless Chromium, 0.38-0.39 every other), and a pose a tick old changes
 * nothing measurable (the fox's held-out Run at 1 m: 0.687x the error of no soft part
 * playing and 0.524x after the stop, against 0.692x and 0.545x updated every step; every 3rd: 0.691x and 0.557x;
 * every 4th: 0.705x and 0.695x).
 */
export const PAGE_CONSTRAINT_EVERY = 2;

/** A character's spring model, with the one thing of its subspace the springs' projection needs: the mass block. */
export interface PageSpringModel {
  model: SpringModel;
  massBlock: Float64Array;
  m: number;
}

/** The springs of a rigged bake at `size` m in the room's flesh for that size (fleshFor): about 0.2 s for a fox. */
export function pageSpringModel(baked: BakedBody, size: number): PageSpringModel {
  const flesh = fleshFor(size), subspace = new Subspace(toSubspaceSource(baked, size));
  return { model: complementarySprings(baked, size, flesh, flesh.damping, undefined, subspace), massBlock: subspace.massBlock, m: subspace.m };
}

/** The typed arrays of a model, to hand to postMessage's transfer list. */
export function pageSpringBuffers(springs: PageSpringModel): ArrayBuffer[] {
  const { basis, parameters } = springs.model;
  return [basis.vectors, basis.frequencies2, parameters.stiffness, parameters.damping, springs.massBlock].map((a) => a.buffer as ArrayBuffer);
}

export class PageSprings {
  readonly q: Float64Array;
  /** Steps taken, and the milliseconds they took in all (a page's cost of the layer). */
  steps = 0;
  ms = 0;
  private readonly character: SpringCharacter;
  private readonly limit: FleshLimit;

  constructor(baked: BakedBody, size: number, springs: PageSpringModel) {
    this.character = new SpringCharacter(baked, size, springs.model, { subspace: springs, constraintEvery: PAGE_CONSTRAINT_EVERY });
    this.q = new Float64Array(this.character.q.length);
    this.limit = FleshLimit.of(baked, size);
  }

  get motion(): RigMotion {
    return this.character.motion;
  }

  /** One step of `dt` under the pose and frame set in `motion` now. */
  step(dt: number): void {
    const start = performance.now();
    this.character.step(dt);
    this.q.set(this.character.q);
    this.limit.apply(this.q);
    this.steps++;
    this.ms += performance.now() - start;
  }

  restart(): void {
    this.character.restart();
    this.q.fill(0);
  }
}
