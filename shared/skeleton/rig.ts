// A character's rig as glTF describes it: a tree of nodes (the skin's joints and the nodes above them), each with
// its rest translation, rotation and scale; the joints' inverse bind matrices; each vertex's four joints and
// weights; and the animation clips that move the nodes. Plain typed arrays: isomorphic, and cheap to copy.

/** How a channel's keys are joined (glTF's sampler interpolation). */
export type Interpolation = "LINEAR" | "STEP" | "CUBICSPLINE";

/** What a channel animates. */
export type ChannelPath = "translation" | "rotation" | "scale";

export interface RigChannel {
  /** The rig node it moves. */
  node: number;
  path: ChannelPath;
  interpolation: Interpolation;
  /** Key times, s. */
  times: Float32Array;
  /**
   * Key values: 3 (translation, scale) or 4 (rotation, x y z w) per key; for CUBICSPLINE, an in-tangent, the
   * value and an out-tangent per key, as glTF stores them.
   */
  values: Float32Array;
}

export interface RigClip {
  name: string;
  /** The last key time of any channel, s. */
  duration: number;
  channels: RigChannel[];
}

export interface Rig {
  /** Rig nodes, parents before their children: names, parent (index, or -1), rest pose (local TRS). */
  names: string[];
  parents: Int32Array;
  restTranslation: Float64Array;
  restRotation: Float64Array;
  restScale: Float64Array;
  /** World matrix above the rig's top nodes (16, column-major; identity when they are scene roots). */
  base: Float64Array;
  /** For each skin joint, its rig node and its inverse bind matrix (16 each, column-major). */
  jointNodes: Int32Array;
  inverseBind: Float64Array;
  /** Per vertex of the skinned mesh (glTF's vertices, before any welding): four joints (skin joint indices) and weights summing to 1. */
  vertexJoints: Uint16Array;
  vertexWeights: Float32Array;
  clips: RigClip[];
}
