// Reads a glTF document's first skin and its animations into a Rig (@gltf-transform/core, as the mesh reader).

import type { Document, Node, Primitive } from "@gltf-transform/core";
import { MeshError } from "./mesh-error";
import type { ChannelPath, Interpolation, Rig, RigChannel, RigClip } from "../skeleton/rig";

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/**
 * A primitive's JOINTS_0 and WEIGHTS_0, four a vertex, the weights scaled to sum to 1 (quantised exports' do not
 * quite, and renderers scale them so); null when it has none.
 */
export function readSkinWeights(primitive: Primitive): { joints: Uint16Array; weights: Float32Array } | null {
  const joints = primitive.getAttribute("JOINTS_0"), weights = primitive.getAttribute("WEIGHTS_0");
  const count = joints?.getCount() ?? 0;
  if (!joints || !weights || weights.getCount() !== count || joints.getElementSize() !== 4 || weights.getElementSize() !== 4) return null;
  const outJoints = new Uint16Array(4 * count), outWeights = new Float32Array(4 * count), j = [0, 0, 0, 0], w = [0, 0, 0, 0];
  for (let v = 0; v < count; v++) {
    joints.getElement(v, j);
    weights.getElement(v, w);
    let sum = 0;
    for (let k = 0; k < 4; k++) sum += w[k] > 0 ? w[k] : 0;
    for (let k = 0; k < 4; k++) {
      outJoints[4 * v + k] = j[k];
      outWeights[4 * v + k] = sum > 0 && w[k] > 0 ? w[k] / sum : 0;
    }
  }
  return { joints: outJoints, weights: outWeights };
}

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
  if (!primitive || !readSkinWeights(primitive)) throw new MeshError("glTF skin: its mesh has no JOINTS_0 and WEIGHTS_0 (four a vertex)");

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

  const skinWeights = readSkinWeights(primitive)!;
  const { joints: vertexJoints, weights: vertexWeights } = skinWeights;
  for (let i = 0; i < vertexJoints.length; i++) {
    if (vertexJoints[i] >= joints.length) throw new MeshError(`glTF skin: vertex ${i >> 2} names joint ${vertexJoints[i]} of ${joints.length}`);
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
