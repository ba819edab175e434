// A character whose flesh comes from the spring layer instead of the solver: the rig's motion (rig-motion.ts) gives
// the inertial force, the springs (spring-layer.ts) answer it, and their coordinates are the soft part, in the same
// subspace coordinates the solver would use. The springs' directions were complementary where they were fitted, not
// at every pose: with `complementary` (the default) the soft part is projected onto the current pose's complement
// each frame (exact to rounding; ~0.15 ms), without it the layer costs a few hundredths of a millisecond.
// A fitted model travels as plain arrays (SpringModel).

import { Subspace } from "../sim/subspace";
import { toSubspaceSource, type BakedBody } from "../skinning/baked-body";
import { rigOf } from "../skinning/baked-rig";
import { ComplementaryProjection } from "./complementary-projection";
import type { ModalBasis } from "./modal-basis";
import { RigMotion } from "./rig-motion";
import { SpringLayer, type SpringParameters } from "./spring-layer";

/** A fitted spring layer: its directions and their springs, for one body at one size and density. */
export interface SpringModel {
  basis: ModalBasis;
  parameters: SpringParameters;
  density: number;
}

export class SpringCharacter {
  readonly motion: RigMotion;
  readonly layer: SpringLayer;
  /** The soft part's coordinates after the last step (3m). */
  readonly q: Float64Array;
  private readonly force: Float64Array;
  private readonly projection: ComplementaryProjection | null;

  constructor(baked: BakedBody, size: number, readonly model: SpringModel, options: { complementary?: boolean } = {}) {
    const rig = rigOf(baked);
    if (!rig) throw new Error("a character needs a rigged bake");
    this.motion = new RigMotion(rig, baked, size);
    this.projection = options.complementary === false ? null : new ComplementaryProjection(new Subspace(toSubspaceSource(baked, size)), this.motion.moments!, rig.jointNodes, rig.parents);
    this.layer = new SpringLayer(model.basis, model.parameters);
    this.q = new Float64Array(model.basis.n);
    this.force = new Float64Array(model.basis.n);
  }

  get pose() {
    return this.motion.pose;
  }

  /** One frame of `dt` seconds under the pose and frame set now (any dt: the springs step exactly). */
  step(dt: number): void {
    this.motion.advance();
    this.motion.inertiaForce(this.model.density, dt, this.force);
    this.layer.step(this.force, dt);
    this.layer.coordinates(this.q);
    if (this.projection) {
      this.projection.update(this.motion.jointMatrices, this.motion.jointPositions);
      this.projection.project(this.q);
    }
  }
}
