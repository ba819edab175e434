// A rigged mesh's rig inside its bake: the rig's nodes and clips' layout in the bake's JSON header (`rigInfo`),
// their numbers in typed arrays, and each render vertex's four joints and weights. The render positions are the
// bind pose, normalised like the rest of the bake.

import type { Rig, RigChannel } from "../skeleton/rig";
import type { BakedBody } from "./baked-body";

/** The rig's names and the clips' shape; the numbers are in the bake's rig arrays. */
export interface BakedRigInfo {
  names: string[];
  clips: { name: string; duration: number; channels: { node: number; path: RigChannel["path"]; interpolation: RigChannel["interpolation"]; times: [number, number]; values: [number, number] }[] }[];
}

/** The rig's arrays as the bake stores them (all empty for a body without a rig). */
export interface BakedRigArrays {
  /** Per rig node: parent + 1 (0: none). */
  rigParents: Uint32Array;
  /** Per rig node: translation (3), rotation (4), scale (3). */
  rigRest: Float64Array;
  rigBase: Float64Array;
  rigJointNodes: Uint32Array;
  rigInverseBind: Float64Array;
  /** Every channel's key times, then every channel's key values, one after another. */
  rigKeyTimes: Float64Array;
  rigKeyValues: Float64Array;
  /** Per render vertex: four joints and their weights. */
  renderSkinJoints: Uint32Array;
  renderSkinWeights: Float64Array;
}

export const NO_RIG: Readonly<BakedRigArrays> = Object.freeze({
  rigParents: new Uint32Array(0), rigRest: new Float64Array(0), rigBase: new Float64Array(0), rigJointNodes: new Uint32Array(0),
  rigInverseBind: new Float64Array(0), rigKeyTimes: new Float64Array(0), rigKeyValues: new Float64Array(0),
  renderSkinJoints: new Uint32Array(0), renderSkinWeights: new Float64Array(0),
});

/** A rig and its render vertices' weights as the bake stores them. */
export function packRig(rig: Rig, skinJoints: ArrayLike<number>, skinWeights: ArrayLike<number>): { info: BakedRigInfo; arrays: BakedRigArrays } {
  const n = rig.parents.length;
  const rest = new Float64Array(10 * n);
  for (let i = 0; i < n; i++) {
    rest.set(rig.restTranslation.subarray(3 * i, 3 * i + 3), 10 * i);
    rest.set(rig.restRotation.subarray(4 * i, 4 * i + 4), 10 * i + 3);
    rest.set(rig.restScale.subarray(3 * i, 3 * i + 3), 10 * i + 7);
  }
  const times: number[] = [], values: number[] = [];
  const clips = rig.clips.map((clip) => ({
    name: clip.name, duration: clip.duration,
    channels: clip.channels.map((c) => {
      const entry = { node: c.node, path: c.path, interpolation: c.interpolation, times: [times.length, c.times.length] as [number, number], values: [values.length, c.values.length] as [number, number] };
      for (let i = 0; i < c.times.length; i++) times.push(c.times[i]);
      for (let i = 0; i < c.values.length; i++) values.push(c.values[i]);
      return entry;
    }),
  }));
  return {
    info: { names: rig.names, clips },
    arrays: {
      rigParents: Uint32Array.from(rig.parents, (p) => p + 1), rigRest: rest, rigBase: Float64Array.from(rig.base),
      rigJointNodes: Uint32Array.from(rig.jointNodes), rigInverseBind: Float64Array.from(rig.inverseBind),
      rigKeyTimes: Float64Array.from(times), rigKeyValues: Float64Array.from(values),
      renderSkinJoints: Uint32Array.from(skinJoints), renderSkinWeights: Float64Array.from(skinWeights),
    },
  };
}

/** The rig of a bake (its vertices: the render vertices, in file units after denormalising), or null without one. */
export function rigOf(body: BakedBody): Rig | null {
  const info = body.rigInfo;
  if (!info || body.rigParents.length === 0) return null;
  const n = body.rigParents.length, rest = body.rigRest;
  const restTranslation = new Float64Array(3 * n), restRotation = new Float64Array(4 * n), restScale = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    restTranslation.set(rest.subarray(10 * i, 10 * i + 3), 3 * i);
    restRotation.set(rest.subarray(10 * i + 3, 10 * i + 7), 4 * i);
    restScale.set(rest.subarray(10 * i + 7, 10 * i + 10), 3 * i);
  }
  return {
    names: info.names, parents: Int32Array.from(body.rigParents, (p) => p - 1), restTranslation, restRotation, restScale,
    base: Float64Array.from(body.rigBase), jointNodes: Int32Array.from(body.rigJointNodes), inverseBind: Float64Array.from(body.rigInverseBind),
    vertexJoints: Uint16Array.from(body.renderSkinJoints), vertexWeights: Float32Array.from(body.renderSkinWeights),
    clips: info.clips.map((clip) => ({
      name: clip.name, duration: clip.duration,
      channels: clip.channels.map((c) => ({
        node: c.node, path: c.path, interpolation: c.interpolation,
        times: Float32Array.from(body.rigKeyTimes.subarray(c.times[0], c.times[0] + c.times[1])),
        values: Float32Array.from(body.rigKeyValues.subarray(c.values[0], c.values[0] + c.values[1])),
      })),
    })),
  };
}
