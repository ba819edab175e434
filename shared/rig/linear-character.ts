// A character whose flesh comes from its linearised complementary dynamics (linear-flesh.ts) instead of the solver:
// the rig's motion (rig-motion.ts) gives the inertial force and the pose's constraint, the linear step answers both.
// Nothing is fitted, so it needs no training clip: any rigged bake plays.

import type { Material } from "../sim/material";
import { Subspace } from "../sim/subspace";
import { toSubspaceSource, type BakedBody } from "../skinning/baked-body";
import { rigOf } from "../skinning/baked-rig";
import { ComplementaryProjection } from "./complementary-projection";
import { LinearFlesh } from "./linear-flesh";
import { RigMotion } from "./rig-motion";

export class LinearCharacter {
  readonly motion: RigMotion;
  readonly flesh: LinearFlesh;
  private readonly projection: ComplementaryProjection;
  private readonly force: Float64Array;

  constructor(baked: BakedBody, size: number, material: Material, options: { damping: number; dt: number }) {
    const rig = rigOf(baked);
    if (!rig) throw new Error("a character needs a rigged bake");
    this.motion = new RigMotion(rig, baked, size);
    const subspace = new Subspace(toSubspaceSource(baked, size));
    this.projection = new ComplementaryProjection(subspace, this.motion.moments!, rig.jointNodes, rig.parents);
    this.flesh = new LinearFlesh(subspace, material, options.damping, options.dt);
    this.force = new Float64Array(subspace.n);
  }

  get pose() {
    return this.motion.pose;
  }

  /** The soft part's coordinates after the last step (3m). */
  get q(): Float64Array {
    return this.flesh.q;
  }

  /** One frame under the pose and frame set now, of the step the layer was built for. */
  step(): void {
    const dt = this.flesh.dt;
    this.motion.advance();
    this.motion.inertiaForce(this.flesh.density, dt, this.force);
    this.projection.update(this.motion.jointMatrices, this.motion.jointPositions);
    this.flesh.advance(this.force, this.projection);
  }
}
