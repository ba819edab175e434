// A rigged character whose flesh answers physically: complementary dynamics in a reduced subspace. A point of the
// body is where the rig puts it plus a soft displacement u = B q (the body's subspace) that the rig could not make:
// J^T M u = 0 at the current pose (complementary-projection.ts: each step minimises on that constraint).
//
// The soft part lives in the character's frame (rig-motion.ts), measured in the body's metres from the bind pose,
// so the existing solver steps it: its elastic energy is the bind pose's, its contacts and grabs act on the posed
// surface samples, and the rig's motion drives it by its inertia, the fictitious force -M a_rig. Forces that depend
// on u itself in a turning frame (Coriolis, centrifugal: the frame turns at walking pace, ~0.5 rad/s, against flesh
// ringing at several Hz) are left out, and so is gravity's static load: the authored pose is the shape under
// gravity, so its weight is balanced at rest and only the rig's accelerations, contacts and hands move the flesh.

import { displacementRms, SoftBody, Subspace, type Material, type SolverOptions, type StepStats } from "../sim";
import { toSubspaceSource, type BakedBody } from "../skinning/baked-body";
import { rigOf } from "../skinning/baked-rig";
import { ComplementaryProjection } from "./complementary-projection";
import { FleshLimit } from "./flesh-limit";
import type { LinearFlesh } from "./linear-flesh";
import type { Rig } from "../skeleton/rig";
import { RigMotion } from "./rig-motion";
import { CHARACTER_TOLERANCE } from "./character-defaults";

export class CharacterBody {
  readonly body: SoftBody;
  readonly subspace: Subspace;
  readonly rig: Rig;
  readonly motion: RigMotion;
  readonly projection: ComplementaryProjection;
  /** The rig's generalised inertial force on the last step (3m; zeros before the motion is known). */
  readonly force: Float64Array;
  /**
   * What of its soft part may be shown (flesh-limit.ts): the solver's state is left as it is (scaling it fought the
   * solver: a prop pressed into it then never settled); what is drawn and sent goes through this.
   */
  readonly limit: FleshLimit;

  /** `subspace`: this bake's at this size, built elsewhere (an upload's bake thread) and this body's own from now on. */
  constructor(baked: BakedBody, size: number, material: Material, options: Partial<SolverOptions> = {}, subspace?: Subspace) {
    const rig = rigOf(baked);
    if (!rig) throw new Error("a character needs a rigged bake");
    this.rig = rig;
    this.motion = new RigMotion(rig, baked, size);
    // Its own subspace: the surface samples' posed positions are written into it every step.
    this.subspace = subspace ?? new Subspace(toSubspaceSource(baked, size));
    this.body = new SoftBody(this.subspace, material, { tolerance: CHARACTER_TOLERANCE, ...options, gravity: [0, 0, 0] });
    this.projection = new ComplementaryProjection(this.subspace, this.motion.moments!, rig.jointNodes, rig.parents);
    this.body.setConstraint(this.projection);
    this.force = new Float64Array(this.body.n);
    // Before the first step: the subspace's surface samples are then still at rest (setSurfacePose poses them).
    this.limit = new FleshLimit(this.subspace.surfaceRows, this.subspace.surfaceRest, size);
  }

  /** The rig's pose for the next step: sample a clip into it before stepping. */
  get pose() {
    return this.motion.pose;
  }

  /** One step of the soft part under the pose and frame set now. */
  step(): StepStats {
    const motion = this.motion;
    motion.advance();
    motion.inertiaForce(this.body.material.density, this.body.options.dt, this.force);
    if (motion.moving(this.body.options.dt)) this.body.addGeneralisedForce(this.force);
    this.body.setSurfacePose(motion.posedSurface);
    this.projection.update(motion.jointMatrices, motion.jointPositions);
    return this.body.step();
  }

  /**
   * One step of the soft part by the linearised flesh (linear-flesh.ts) instead of the solver, under the pose and frame
   * set now: the same force and constraint, no contacts or hands. The solver's own state is left as it was; its
   * surface samples follow the pose, so that a hand grabbing the flesh finds them where they are.
   */
  stepLinear(flesh: LinearFlesh): void {
    const motion = this.advancePose();
    motion.inertiaForce(this.body.material.density, this.body.options.dt, this.force);
    this.projection.update(motion.jointMatrices, motion.jointPositions);
    flesh.advance(this.force, this.projection);
  }

  /** The pose and frame set now taken in, with no step of the flesh (another layer moves it): the motion, and the solver's surface samples. */
  advancePose(): RigMotion {
    this.motion.advance();
    this.body.setSurfacePose(this.motion.posedSurface);
    return this.motion;
  }

  /** RMS over the surface samples of the soft displacement |B q| (m). */
  softRms(): number {
    return surfaceRms(this.subspace, this.body.q);
  }
}

/** RMS over a subspace's surface samples of the displacement B q (m). */
export function surfaceRms(subspace: Subspace, q: Float64Array): number {
  return displacementRms(subspace.surfaceRows, q);
}
