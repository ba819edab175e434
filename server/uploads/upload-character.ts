// A rigged upload becomes a character (it plays its clips in the room, its flesh soft): what such a file must be,
// and the still clip a rig without clips stands in.

import { UPLOAD_LIMITS } from "../../shared/net";
import type { TriangleMesh } from "../../shared/geometry";

/**
 * The clip a rig without clips of its own plays: its rest pose (its nodes as the file places them, for an exported
 * character its bind pose), held.
 */
export const REST_POSE_CLIP = "Rest pose";

/** Why a parsed upload cannot be a character, or null (it can, or it has no rig and is a body). */
export function characterRefusal(mesh: TriangleMesh): string | null {
  const joints = mesh.rig?.jointNodes.length ?? 0;
  if (joints > UPLOAD_LIMITS.characterJoints) return `its rig has ${joints} joints; a character may have at most ${UPLOAD_LIMITS.characterJoints}`;
  return null;
}

/** The mesh, its rig given a still rest-pose clip when it has none (a character always has a clip to play). */
export function withStillClip(mesh: TriangleMesh): TriangleMesh {
  if (!mesh.rig || mesh.rig.clips.length > 0) return mesh;
  return { ...mesh, rig: { ...mesh.rig, clips: [{ name: REST_POSE_CLIP, duration: 0, channels: [] }] } };
}
