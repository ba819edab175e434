// Rig motions to teach a learned secondary-motion layer with: each training clip played in place and then stopped
// dead, and seeded procedural motions made of the training clips only (so a held-out clip stays held out): every
// joint mixes two clip samples by its own slowly wandering weight (joint angles the clips never hold together,
// within their range), the clips' clocks change speed and stop dead, and the character's frame walks, turns,
// speeds up and halts as the room's director makes it.

import { createRandom, type Random } from "../../shared/geometry/random";
import type { RigClip, RigMotion } from "../../shared/rig";

/** One motion: call `apply(step)` for steps 0..steps-1 to set the rig's pose and frame at step `step`. */
export interface RigMotionScript {
  name: string;
  steps: number;
  apply(step: number): void;
}

/** A clip played in place for `playSeconds`, then held at the pose it stopped on (the eval's protocol). */
export function clipInPlace(motion: RigMotion, clip: RigClip, dt: number, playSeconds: number, holdSeconds: number): RigMotionScript {
  const playing = Math.round(playSeconds / dt);
  return {
    name: `${clip.name} in place`,
    steps: playing + Math.round(holdSeconds / dt),
    apply(step) {
      motion.pose.sample(clip, (Math.min(step + 1, playing) * dt) % Math.max(clip.duration, 1e-9));
    },
  };
}

/** A stretch of procedural motion: what plays and how the frame moves, held for `steps`. */
interface Segment {
  steps: number;
  from: RigClip;
  to: RigClip;
  /** Clip time advanced per second (0: stopped dead). */
  rate: number;
  /** Frame speed (m/s) along its heading and turn rate (rad/s). */
  speed: number;
  turn: number;
  /** Whether speed and turn jump at the segment's start (else they ease in over EASE_SECONDS). */
  sudden: boolean;
}

const EASE_SECONDS = 0.5;
/** Each joint's weight of the second clip wanders within [0, MAX_MIX], changing over about MIX_SECONDS. */
const MAX_MIX = 0.6;
const MIX_SECONDS = 1.5;

/**
 * `seconds` of seeded procedural motion from `clips`: segments of 1-4 s, a quarter of them stopped dead (clip and
 * frame), the others at 0.5-2.5 times the clips' pace with the frame walking at up to 2 m/s and turning at up to
 * 1.2 rad/s.
 */
export function proceduralMotion(motion: RigMotion, clips: RigClip[], dt: number, seconds: number, seed: number): RigMotionScript {
  const random = createRandom(seed), nodes = motion.rig.parents.length;
  const segments: Segment[] = [];
  let total = 0;
  const steps = Math.round(seconds / dt);
  while (total < steps) {
    const length = Math.min(steps - total, Math.round((1 + 3 * random.next()) / dt));
    const stopped = random.next() < 0.25;
    segments.push({
      steps: length, from: pick(clips, random), to: pick(clips, random),
      rate: stopped ? 0 : 0.5 + 2 * random.next(), speed: stopped ? 0 : 2 * random.next() ** 2, turn: stopped ? 0 : 1.2 * (2 * random.next() - 1),
      sudden: stopped || random.next() < 0.5,
    });
    total += length;
  }
  // Per joint: a smooth weight, linear between knots MIX_SECONDS apart.
  const knotSteps = Math.max(1, Math.round(MIX_SECONDS / dt)), knots = Math.ceil(steps / knotSteps) + 2;
  const mixKnots = new Float64Array(knots * nodes);
  for (let i = 0; i < mixKnots.length; i++) mixKnots[i] = MAX_MIX * random.next();
  const weights = new Float64Array(nodes);
  // The state the steps advance, in order (apply must be called for consecutive steps).
  let segment = 0, segmentStart = 0, clipTime = 0, x = 0, z = 0, yaw = 0, speed = 0, turn = 0, last = -1;
  return {
    name: `procedural ${seconds} s, seed ${seed}`,
    steps,
    apply(step) {
      if (step !== last + 1) throw new Error("a procedural motion plays its steps in order");
      last = step;
      while (step >= segmentStart + segments[segment].steps) segmentStart += segments[segment++].steps;
      const s = segments[segment], ease = s.sudden ? 1 : Math.min(1, dt / EASE_SECONDS);
      speed += ease * (s.speed - speed);
      turn += ease * (s.turn - turn);
      yaw += turn * dt;
      x += speed * Math.sin(yaw) * dt;
      z += speed * Math.cos(yaw) * dt;
      clipTime += s.rate * dt;
      const k = Math.floor(step / knotSteps), f = step / knotSteps - k;
      for (let n = 0; n < nodes; n++) weights[n] = (1 - f) * mixKnots[k * nodes + n] + f * mixKnots[(k + 1) * nodes + n];
      motion.pose.sampleNodeBlend(s.from, clipTime % s.from.duration, s.to, (1.37 * clipTime) % s.to.duration, weights);
      motion.setFrame(x, 0, z, yaw);
    },
  };
}

function pick<T>(items: T[], random: Random): T {
  return items[random.nextInt(items.length)];
}
