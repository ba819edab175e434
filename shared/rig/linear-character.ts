// A character whose flesh comes from its linearised complementary dynamics (linear-flesh.ts) instead of the solver:
// the character's own motion gives the inertial force and the pose's constraint (CharacterBody.stepLinear, as the
// room steps it), the linear step answers both. Nothing is fitted, so it needs no training clip: any rigged bake plays.

import type { Material } from "../sim/material";
import type { BakedBody } from "../skinning/baked-body";
import { CharacterBody } from "./character-body";
import { LinearFlesh } from "./linear-flesh";
import type { RigMotion } from "./rig-motion";

export class LinearCharacter {
  readonly flesh: LinearFlesh;
  private readonly character: CharacterBody;

  constructor(baked: BakedBody, size: number, material: Material, options: { damping: number; dt: number }) {
    this.character = new CharacterBody(baked, size, material, options);
    this.flesh = new LinearFlesh(this.character.subspace, material, options.damping, options.dt);
  }

  get motion(): RigMotion {
    return this.character.motion;
  }

  get pose() {
    return this.character.motion.pose;
  }

  /** The soft part's coordinates after the last step (3m). */
  get q(): Float64Array {
    return this.flesh.q;
  }

  /** One frame under the pose and frame set now, of the step the layer was built for. */
  step(): void {
    this.character.stepLinear(this.flesh);
  }
}
