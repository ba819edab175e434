// Velocity skinning (Rohmer, Tarini, Kalyanasundaram, Faget and Cani 2021), its "floppy" term, as the free baseline
// a learned secondary-motion layer has to beat: each surface sample lags behind its own motion, u = -k v, v being
// the velocity linear blend skinning gives it in the world, turned into the character's frame. With linear blend
// skinning the paper's sum over bones of w_j times bone j's velocity at the point is exactly that skinned velocity,
// so one floppiness k (seconds) covers every bone; it is fitted to the solver on training clips (fitFloppiness).
// The paper's "squashy" term (a volume-keeping stretch along the motion) is left out. Nothing is stepped or
// integrated, so the layer costs a skinning pass and stops the instant the motion does.

import { rigOf } from "../skinning/baked-rig";
import type { BakedBody } from "../skinning/baked-body";
import { RigMotion } from "./rig-motion";

export class VelocitySkinning {
  readonly motion: RigMotion;
  /** The soft displacement of each surface sample after the last step, in the frame (3 per sample, m). */
  readonly displacement: Float64Array;
  /** Each surface sample's velocity in the frame at the last step (3 per sample, m/s; zeros on the first). */
  readonly velocity: Float64Array;
  private readonly world: Float64Array;
  private readonly previousWorld: Float64Array;
  private readonly before = new Float64Array(3);
  private seen = false;

  constructor(baked: BakedBody, size: number, public floppiness: number) {
    const rig = rigOf(baked);
    if (!rig) throw new Error("velocity skinning needs a rigged bake");
    this.motion = new RigMotion(rig, baked, size);
    const n = this.motion.posedSurface.length;
    this.displacement = new Float64Array(n);
    this.velocity = new Float64Array(n);
    this.world = new Float64Array(n);
    this.previousWorld = new Float64Array(n);
  }

  get pose() {
    return this.motion.pose;
  }

  /** Forget the last position (after a jump in pose or frame): the next step shows no lag. */
  restart(): void {
    this.seen = false;
    this.motion.restart();
  }

  /** One frame of `dt` seconds under the pose and frame set now. */
  step(dt: number): void {
    const motion = this.motion, posed = motion.posedSurface, world = this.world, previous = this.previousWorld;
    motion.advance();
    previous.set(world);
    const k = this.floppiness, before = this.before;
    for (let i = 0; i < posed.length; i += 3) {
      motion.toWorld(posed[i], posed[i + 1], posed[i + 2], world, i);
      if (!this.seen) {
        this.velocity[i] = this.velocity[i + 1] = this.velocity[i + 2] = 0;
      } else {
        // The last world position seen from the frame as it is now: the frame's translation cancels, its turn
        // applies to both (the sample now is `posed` in that frame).
        motion.toFrame(previous[i], previous[i + 1], previous[i + 2], before);
        for (let a = 0; a < 3; a++) this.velocity[i + a] = (posed[i + a] - before[a]) / dt;
      }
      for (let a = 0; a < 3; a++) this.displacement[i + a] = -k * this.velocity[i + a];
    }
    this.seen = true;
  }
}

/**
 * The floppiness k that best gives `targets` as -k `velocities` in least squares (both lists of per-sample triples,
 * frame by frame): k = -sum v.u / sum v.v. 0 when nothing moved.
 */
export function fitFloppiness(velocities: readonly Float64Array[], targets: readonly Float64Array[]): number {
  if (velocities.length !== targets.length) throw new Error(`${velocities.length} frames of velocities against ${targets.length} of targets`);
  let vu = 0, vv = 0;
  for (let f = 0; f < velocities.length; f++) {
    const v = velocities[f], u = targets[f];
    if (v.length !== u.length) throw new Error(`frame ${f}: ${v.length / 3} samples of velocity against ${u.length / 3} of targets`);
    for (let i = 0; i < v.length; i++) {
      vu += v[i] * u[i];
      vv += v[i] * v[i];
    }
  }
  return vv > 0 ? -vu / vv : 0;
}
