// Reads a glTF document's first skin and its animations into a Rig (@gltf-transform/core, as the mesh reader).

import type { Document, Node } from "@gltf-transform/core";
import { MeshError } from "../geometry/mesh-error";
import type { ChannelPath, Interpolation, Rig, RigChannel, RigClip } from "./rig";

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** The document's first skin as a Rig (with every animation that moves its nodes), or null without a skin. */
export function readRig(document: Document): Rig | null {
  const root = document.getRoot();
  const skin = root.listSkins()[0];
  if (!skin) return null;
  const joints = skin.listJoints();
  if (joints.length === 0) throw new MeshError("glTF skin has no joints");
  if (joints.length > 65535) throw new MeshError(`glTF skin has ${joints.length} joints; at most 65,535 can be read`);
  const skinned = root.listNodes().find((node) => node.getSkin() === skin);
  const primitive = skinned?.getMesh()?.listPrimitives()[0];
  const jointsAttribute = primitive?.getAttribute("JOINTS_0"), weightsAttribute = primitive?.getAttribute("WEIGHTS_0");
  if (!primitive || !jointsAttribute || !weightsAttribute) throw new MeshError("glTF skin: its mesh has no JOINTS_0 and WEIGHTS_0");

  // The rig's nodes: every joint and every node above one, parents first (a walk down from the top nodes).
  const inRig = new Set<Node>();
  for (const joint of joints) for (let node: Node | null = joint; node && !inRig.has(node); node = node.getParentNode()) inRig.add(node);
  const tops = [...inRig].filter((node) => !inRig.has(node.getParentNode()!));
  const order: Node[] = [];
  const visit = (node: Node) => {
    order.push(node);
    for (const child of node.listChildren()) if (inRig.has(child)) visit(child);
  };
  tops.forEach(visit);
  const index = new Map(order.map((node, i) => [node, i]));
  const n = order.length;
  const parents = new Int32Array(n), restTranslation = new Float64Array(3 * n), restRotation = new Float64Array(4 * n), restScale = new Float64Array(3 * n);
  order.forEach((node, i) => {
    const parent = node.getParentNode();
    parents[i] = parent && index.has(parent) ? index.get(parent)! : -1;
    restTranslation.set(node.getTranslation(), 3 * i);
    restRotation.set(node.getRotation(), 4 * i);
    restScale.set(node.getScale(), 3 * i);
  });
  // Top nodes share one parent in the usual export (or none); what is above it is fixed.
  const above = tops[0].getParentNode();
  const base = Float64Array.from(above ? above.getWorldMatrix() : IDENTITY);

  const jointNodes = Int32Array.from(joints.map((joint) => index.get(joint)!));
  const inverseBind = new Float64Array(16 * joints.length);
  const matrices = skin.getInverseBindMatrices();
  for (let j = 0; j < joints.length; j++) {
    if (matrices) matrices.getElement(j, Array.from({ length: 16 }) as number[]).forEach((value, k) => (inverseBind[16 * j + k] = value));
    else inverseBind.set(IDENTITY, 16 * j);
  }

  const count = jointsAttribute.getCount();
  const vertexJoints = new Uint16Array(4 * count), vertexWeights = new Float32Array(4 * count);
  const jointElement = [0, 0, 0, 0], weightElement = [0, 0, 0, 0];
  for (let v = 0; v < count; v++) {
    jointsAttribute.getElement(v, jointElement);
    weightsAttribute.getElement(v, weightElement);
    // Weights that do not sum to 1 (quantised exports) are scaled to, as renderers do.
    let sum = 0;
    for (let k = 0; k < 4; k++) sum += weightElement[k] > 0 ? weightElement[k] : 0;
    for (let k = 0; k < 4; k++) {
      const joint = jointElement[k];
      if (!(joint >= 0 && joint < joints.length)) throw new MeshError(`glTF skin: vertex ${v} names joint ${joint} of ${joints.length}`);
      vertexJoints[4 * v + k] = joint;
      vertexWeights[4 * v + k] = sum > 0 && weightElement[k] > 0 ? weightElement[k] / sum : 0;
    }
  }

  const clips: RigClip[] = [];
  for (const animation of root.listAnimations()) {
    const channels: RigChannel[] = [];
    let duration = 0;
    for (const channel of animation.listChannels()) {
      const node = channel.getTargetNode(), path = channel.getTargetPath(), sampler = channel.getSampler();
      if (!node || !index.has(node) || !sampler || (path !== "translation" && path !== "rotation" && path !== "scale")) continue;
      const input = sampler.getInput(), output = sampler.getOutput();
      if (!input || !output) continue;
      const times = Float32Array.from(input.getArray() as ArrayLike<number>);
      const element: number[] = [], values = new Float32Array(output.getCount() * output.getElementSize());
      for (let i = 0; i < output.getCount(); i++) values.set(output.getElement(i, element), i * output.getElementSize());
      channels.push({ node: index.get(node)!, path: path as ChannelPath, interpolation: sampler.getInterpolation() as Interpolation, times, values });
      if (times.length) duration = Math.max(duration, times[times.length - 1]);
    }
    clips.push({ name: animation.getName() || `clip ${clips.length + 1}`, duration, channels });
  }
  return { names: order.map((node) => node.getName()), parents, restTranslation, restRotation, restScale, base, jointNodes, inverseBind, vertexJoints, vertexWeights, clips };
}
