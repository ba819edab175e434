// How complementary a rigged body's fields are to its rig (issue 30, PhysSkin++'s complementarity): at the bind pose
// and over one clip, the share of the rig's motion the subspace's directions can make (complementaryDirections'
// overlaps) and how many directions the exact projection (complementary-projection.ts) leaves.

import { complementaryDirections, RigPose, type Complementarity } from "../../shared/rig";
import { rigOf, type BakedBody } from "../../shared/skinning";

/** Poses of the clip measured, evenly spread over it. */
const CLIP_FRAMES = 8;

export interface RigComplementarity {
  bind: Complementarity;
  clip?: { name: string; frames: number; learnedOverlap: { mean: number; max: number }; rigOverlap: { mean: number; max: number }; complementary: { min: number; max: number } };
}

/** For a server bake of a rigged mesh (null without a rig); the clip is `clipName`, or the rig's first. */
export function rigComplementarity(body: BakedBody, clipName?: string): RigComplementarity | null {
  const rig = rigOf(body);
  if (!rig) return null;
  const pose = new RigPose(rig), bind = complementaryDirections(body, pose);
  const clip = clipName === undefined ? rig.clips[0] : rig.clips.find((c) => c.name === clipName);
  if (clipName !== undefined && !clip) throw new Error(`the rig has no clip "${clipName}"; it has ${rig.clips.map((c) => c.name).join(", ") || "none"}`);
  if (!clip) return { bind };
  const frames: Complementarity[] = [];
  for (let f = 0; f < CLIP_FRAMES; f++) {
    pose.sample(clip, ((f + 0.5) / CLIP_FRAMES) * clip.duration);
    frames.push(complementaryDirections(body, pose));
  }
  const summary = (pick: (c: Complementarity) => number) => ({ mean: frames.reduce((s, c) => s + pick(c), 0) / frames.length, max: Math.max(...frames.map(pick)) });
  const left = frames.map((c) => c.complementary);
  return {
    bind,
    clip: { name: clip.name, frames: frames.length, learnedOverlap: summary((c) => c.learnedOverlap), rigOverlap: summary((c) => c.rigOverlap), complementary: { min: Math.min(...left), max: Math.max(...left) } },
  };
}
