// Clip sampling by glTF's rules for the interpolations the fox does not use (STEP, CUBICSPLINE), checked against
// their definitions; a child follows its parent; time going back finds the right keys again.

import { expect, it } from "vitest";
import { RigPose, type Rig, type RigClip } from "../../shared/rig";

/** Two nodes, a parent at the origin and a child 1 m up it, one joint each, identity bind. */
function twoNodeRig(clips: RigClip[]): Rig {
  const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  return {
    names: ["parent", "child"], parents: Int32Array.from([-1, 0]),
    restTranslation: Float64Array.from([0, 0, 0, 0, 1, 0]), restRotation: Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1]), restScale: Float64Array.from([1, 1, 1, 1, 1, 1]),
    base: Float64Array.from(identity), jointNodes: Int32Array.from([0, 1]), inverseBind: Float64Array.from([...identity, ...identity]),
    vertexJoints: new Uint16Array(0), vertexWeights: new Float32Array(0), clips,
  };
}

it("STEP holds each key until the next; CUBICSPLINE follows glTF's Hermite form with its tangents", () => {
  const step: RigClip = { name: "step", duration: 2, channels: [{ node: 0, path: "translation", interpolation: "STEP", times: Float32Array.from([0, 1, 2]), values: Float32Array.from([0, 0, 0, 1, 0, 0, 3, 0, 0]) }] };
  // Keys at t = 0 (value 0, out-tangent 2) and t = 2 (in-tangent -1, value 1), along x.
  const cubic: RigClip = { name: "cubic", duration: 2, channels: [{ node: 0, path: "translation", interpolation: "CUBICSPLINE", times: Float32Array.from([0, 2]), values: Float32Array.from([0, 0, 0, 0, 0, 0, 2, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0]) }] };
  const pose = new RigPose(twoNodeRig([step, cubic]));
  pose.sample(step, 0.99);
  expect(pose.translation[0]).toBe(0);
  pose.sample(step, 1.5);
  expect(pose.translation[0]).toBe(1);
  pose.sample(step, 0.5); // time went back
  expect(pose.translation[0]).toBe(0);
  for (const t of [0.4, 1, 1.7]) {
    pose.sample(cubic, t);
    const s = t / 2, dt = 2;
    const expected = (2 * s ** 3 - 3 * s ** 2 + 1) * 0 + (s ** 3 - 2 * s ** 2 + s) * dt * 2 + (-2 * s ** 3 + 3 * s ** 2) * 1 + (s ** 3 - s ** 2) * dt * -1;
    expect(pose.translation[0]).toBeCloseTo(expected, 6);
  }
});

it("a child follows its parent's turn: its world position is the parent's rotation of its offset", () => {
  const half = Math.SQRT1_2;
  // The parent turns from nothing to 90 degrees about z over a second.
  const turn: RigClip = { name: "turn", duration: 1, channels: [{ node: 0, path: "rotation", interpolation: "LINEAR", times: Float32Array.from([0, 1]), values: Float32Array.from([0, 0, 0, 1, 0, 0, half, half]) }] };
  const pose = new RigPose(twoNodeRig([turn]));
  pose.sample(turn, 0.5);
  // 45 degrees about z takes (0, 1, 0) to (-sin 45, cos 45, 0).
  const child = pose.world.subarray(16, 32);
  expect(child[12]).toBeCloseTo(-Math.SQRT1_2, 6); // keys are single precision, as in glTF
  expect(child[13]).toBeCloseTo(Math.SQRT1_2, 6);
  // The joint matrices are the worlds (identity inverse binds).
  expect(Array.from(pose.joints.subarray(16, 32))).toEqual(Array.from(child));
});
