// A character whose flesh comes from the spring layer instead of the solver: the rig's motion (rig-motion.ts) gives
// the inertial force, the springs (spring-layer.ts) answer it, and their coordinates are the soft part, in the same
// subspace coordinates the solver would use. The springs' directions are complementary at the rest pose, not at
// every pose, so with `complementary` (the default) the force is projected onto the current pose's complement before
// the springs feel it (the part of it a rig could make drives no flesh), and the soft part after (exact to rounding at
// the pose the constraint was last updated to: every step unless `constraintEvery` says otherwise); together ~0.3 ms a
// frame on the fox. Without it the layer costs a few hundredths of a millisecond and errs a lot.

import { Subspace } from "../sim/subspace";
import { toSubspaceSource, type BakedBody } from "../skinning/baked-body";
import { rigOf } from "../skinning/baked-rig";
import { ComplementaryProjection } from "./complementary-projection";
import { RigMotion } from "./rig-motion";
import { SpringLayer } from "./spring-layer";
import type { SpringModel } from "./spring-model";

export class SpringCharacter {
  readonly motion: RigMotion;
  readonly layer: SpringLayer;
  /** The soft part's coordinates after the last step (3m). */
  readonly q: Float64Array;
  private readonly force: Float64Array;
  private readonly projection: ComplementaryProjection | null;
  /** Steps between updates of the constraint to the pose (1: every step), and steps since the last. */
  private readonly constraintEvery: number;
  private sinceUpdate = Number.MAX_SAFE_INTEGER;

  /**
   * `subspace`: the bake's at `size` when the caller has it (the model's, say), or just its mass block.
   * `constraintEvery`: update the constraint to the pose every so many steps (see PAGE_CONSTRAINT_EVERY).
   */
  constructor(baked: BakedBody, size: number, readonly model: SpringModel, options: { complementary?: boolean; subspace?: Pick<Subspace, "massBlock" | "m">; constraintEvery?: number } = {}) {
    const every = Math.round(options.constraintEvery ?? 1);
    this.constraintEvery = Number.isFinite(every) && every > 1 ? every : 1;
    const rig = rigOf(baked);
    if (!rig) throw new Error("a character needs a rigged bake");
    this.motion = new RigMotion(rig, baked, size);
    this.projection = options.complementary === false ? null : new ComplementaryProjection(options.subspace ?? new Subspace(toSubspaceSource(baked, size)), this.motion.moments!, rig.jointNodes, rig.parents);
    this.layer = new SpringLayer(model.basis, model.parameters);
    this.q = new Float64Array(model.basis.n);
    this.force = new Float64Array(model.basis.n);
  }

  get pose() {
    return this.motion.pose;
  }

  /** Forget the motion (after a jump): the kinematics start again and the springs from rest. */
  restart(): void {
    this.motion.restart();
    this.layer.reset();
    this.q.fill(0);
    this.sinceUpdate = Number.MAX_SAFE_INTEGER;
  }

  /** One frame of `dt` seconds under the pose and frame set now. */
  step(dt: number): void {
    const projection = this.projection;
    this.motion.advance();
    this.motion.inertiaForce(this.model.density, dt, this.force);
    if (projection) {
      if (++this.sinceUpdate >= this.constraintEvery) {
        projection.update(this.motion.jointMatrices, this.motion.jointPositions);
        this.sinceUpdate = 0;
      }
      projection.projectGradient(this.force);
    }
    this.layer.step(this.force, dt);
    this.layer.coordinates(this.q);
    projection?.project(this.q);
  }
}
