// A character's spring layer, from its physics alone: the lowest vibration modes of the flesh's rest stiffness
// complementary to the rig at its rest pose (modal-basis.ts), each a spring with the mode's own stiffness w^2 and the
// flesh's Rayleigh damping beta w^2. Nothing is fitted to any clip, so any rigged bake has its springs, for every
// clip it has or will have. (Springs fitted to the solver's soft part on two of the fox's clips, in the directions
// it took most, erred more than showing no soft part on the third: 1.06x on the Run.)

import type { Material } from "../sim/material";
import { Subspace } from "../sim/subspace";
import { toSubspaceSource, type BakedBody } from "../skinning/baked-body";
import { rigOf } from "../skinning/baked-rig";
import { ComplementaryProjection } from "./complementary-projection";
import { complementaryModes, type ModalBasis } from "./modal-basis";
import { RigMotion } from "./rig-motion";
import type { SpringParameters } from "./spring-layer";

/** Springs a character's layer keeps (the fox's held-out Run, stepped exactly: 0.706x the error of no soft part with 64 or all 135, 0.711x with 32). */
const SPRING_DIRECTIONS = 64;

/** A spring layer: its directions and their springs, for one body at one size and density. */
export interface SpringModel {
  basis: ModalBasis;
  parameters: SpringParameters;
  density: number;
}

/**
 * The springs of a rigged bake at `size` metres in `material`, with Rayleigh damping `damping` (s); `subspace` the
 * bake's at that size when the caller has it (making one is most of the cost).
 */
export function complementarySprings(baked: BakedBody, size: number, material: Material, damping: number, directions = SPRING_DIRECTIONS, subspace = new Subspace(toSubspaceSource(baked, size))): SpringModel {
  const rig = rigOf(baked);
  if (!rig) throw new Error("springs need a rigged bake");
  const motion = new RigMotion(rig, baked, size);
  const projection = new ComplementaryProjection(subspace, motion.moments!, rig.jointNodes, rig.parents);
  motion.pose.rest();
  motion.advance();
  projection.update(motion.jointMatrices, motion.jointPositions);
  const basis = complementaryModes(subspace, material, projection, directions);
  const stiffness = Float64Array.from(basis.frequencies2);
  return { basis, parameters: { stiffness, damping: stiffness.map((k) => damping * k) }, density: material.density };
}
