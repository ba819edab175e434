// Reads a glTF document's skins (one joint list over all of them) and its animations into a Rig (@gltf-transform/core,
// as the mesh reader).

import type { Document, Node, Primitive, Skin } from "@gltf-transform/core";
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

/**
 * Renumbers a skinned primitive's JOINTS_0 (four a vertex) from its skin's joints to the union's (`places`), in
 * place. A joint its skin does not have, or a vertex with no weight at all (it would follow no joint), is refused.
 */
export function unionJoints(joints: Uint16Array, weights: Float32Array, places: Int32Array): void {
  for (let v = 0; v < joints.length; v += 4) {
    let total = 0;
    for (let k = v; k < v + 4; k++) {
      if (weights[k] === 0) {
        joints[k] = joints[k] < places.length ? places[joints[k]] : 0;
        continue;
      }
      if (joints[k] >= places.length) throw new MeshError(`glTF skin: vertex ${v >> 2} names joint ${joints[k]} of ${places.length}`);
      joints[k] = places[joints[k]];
      total += weights[k];
    }
    if (!(total > 0)) throw new MeshError(`glTF skin: vertex ${v >> 2} has no skin weight (its four WEIGHTS_0 are zero)`);
  }
}

/** Every skin the document's mesh nodes use, as one list of joints (a character exported in parts has several). */
export interface SkinUnion {
  /** The joints, each skin's in its order, a joint two skins share (with the same inverse bind) once. */
  joints: Node[];
  /** Each joint's inverse bind matrix (16, column-major). */
  inverseBind: Float64Array;
  /** Per skin, where each of its joints is in `joints` (a primitive's JOINTS_0 goes through this). */
  places: Map<Skin, Int32Array>;
}

/** Animations a rig may have, and the longest a clip may last (s): a character loops its clips, and a room samples each. */
const MAX_CLIPS = 64;
const MAX_CLIP_SECONDS = 600;

/**
 * A sampler's keys must be finite and in order, within MAX_CLIP_SECONDS, with as many values as keys (three per key
 * for a cubic spline: tangents and value), every value finite.
 */
function checkKeys(clip: string, times: Float32Array, valueCount: number, perKey: number, values: Float32Array): void {
  for (let k = 0; k < times.length; k++) {
    if (!Number.isFinite(times[k]) || times[k] < 0 || (k > 0 && times[k] < times[k - 1])) throw new MeshError(`glTF animation "${clip}": its key times must be finite, from 0 and in order`);
  }
  if (times.length > 0 && times[times.length - 1] > MAX_CLIP_SECONDS) throw new MeshError(`glTF animation "${clip}" lasts ${times[times.length - 1]} s; a clip may last at most ${MAX_CLIP_SECONDS} s`);
  if (valueCount !== perKey * times.length) throw new MeshError(`glTF animation "${clip}": a sampler has ${times.length} keys and ${valueCount} values`);
  if (!values.every(Number.isFinite)) throw new MeshError(`glTF animation "${clip}": a sampler has a value that is not finite`);
}

/** Inverse bind matrices of one joint that differ by no more than this (relative) are the same. */
const SAME_BIND = 1e-6;

/** The nodes that place meshes in the default scene (or, without scenes, under any top node), in scene order. */
export function sceneMeshNodes(document: Document): Node[] {
  const root = document.getRoot(), nodes: Node[] = [];
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  const visit = (node: Node) => {
    if (node.getMesh()) nodes.push(node);
  };
  if (scene) scene.traverse(visit);
  else root.listNodes().filter((node) => node.getParentNode() === null).forEach((node) => node.traverse(visit));
  return nodes;
}

/**
 * `skins` (in order) as one joint list; null without any. A skin without inverse bind matrices, or with fewer than
 * joints, or with one that is not finite or not invertible, is refused: the bind pose would be unknown (the
 * format's default, identity, puts every joint at the origin).
 */
export function skinUnion(skins: readonly Skin[]): SkinUnion | null {
  if (skins.length === 0) return null;
  const joints: Node[] = [], binds: number[] = [], places = new Map<Skin, Int32Array>(), element = new Array<number>(16).fill(0);
  /** Where each node already is in `joints` (a node with several binds is there several times). */
  const known = new Map<Node, number[]>();
  for (const skin of skins) {
    const own = skin.listJoints(), name = skin.getName() ? `glTF skin "${skin.getName()}"` : "glTF skin";
    if (own.length === 0) throw new MeshError(`${name} has no joints`);
    if (own.length > 65535) throw new MeshError(`${name} has ${own.length} joints; at most 65,535 can be read`);
    const matrices = skin.getInverseBindMatrices();
    if (!matrices) throw new MeshError(`${name} has no inverse bind matrices: its bind pose is unknown`);
    if (matrices.getCount() < own.length || matrices.getElementSize() !== 16) throw new MeshError(`${name} has ${matrices.getCount()} inverse bind matrices for ${own.length} joints`);
    const at = new Int32Array(own.length);
    own.forEach((joint, j) => {
      matrices.getElement(j, element);
      if (!element.every(Number.isFinite) || !(Math.abs(determinant3(element)) > 1e-12)) throw new MeshError(`${name}: joint "${joint.getName()}" has an inverse bind matrix that is not finite or not invertible`);
      const seen = known.get(joint) ?? [];
      let found = seen.find((k) => sameMatrix(binds, 16 * k, element)) ?? -1;
      if (found < 0) {
        found = joints.length;
        joints.push(joint);
        binds.push(...element);
        known.set(joint, [...seen, found]);
      }
      at[j] = found;
    });
    places.set(skin, at);
  }
  return { joints, inverseBind: Float64Array.from(binds), places };
}

/** The distinct skins of `nodes`, in order. */
export function skinsOf(nodes: readonly Node[]): Skin[] {
  return [...new Set(nodes.map((node) => node.getSkin()).filter((skin): skin is Skin => skin !== null))];
}

function determinant3(m: ArrayLike<number>): number {
  return m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) + m[8] * (m[1] * m[6] - m[2] * m[5]);
}

function sameMatrix(binds: number[], at: number, m: ArrayLike<number>): boolean {
  let scale = 1;
  for (let k = 0; k < 16; k++) scale = Math.max(scale, Math.abs(m[k]));
  for (let k = 0; k < 16; k++) if (Math.abs(binds[at + k] - m[k]) > SAME_BIND * scale) return false;
  return true;
}

/**
 * The document's skins (skinUnion of those its scene's mesh nodes use) as one Rig, with every animation that moves
 * its nodes, or null without a skin. Its vertexJoints and vertexWeights are the first skinned primitive's.
 */
export function readRig(document: Document, union: SkinUnion | null = skinUnion(skinsOf(sceneMeshNodes(document)))): Rig | null {
  if (!union) return null;
  const root = document.getRoot();
  const joints = union.joints;
  const skinned = sceneMeshNodes(document).find((node) => node.getSkin() !== null);
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
  const inverseBind = union.inverseBind;

  // The first skinned primitive's weights, its joints numbered as the union's.
  const { joints: vertexJoints, weights: vertexWeights } = readSkinWeights(primitive)!;
  unionJoints(vertexJoints, vertexWeights, union.places.get(skinned!.getSkin()!)!);

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
      const interpolation = sampler.getInterpolation() as Interpolation, clipName = animation.getName() || `clip ${clips.length + 1}`;
      checkKeys(clipName, times, values.length / output.getElementSize(), interpolation === "CUBICSPLINE" ? 3 : 1, values);
      channels.push({ node: index.get(node)!, path: path as ChannelPath, interpolation, times, values });
      if (times.length) duration = Math.max(duration, times[times.length - 1]);
    }
    if (clips.length >= MAX_CLIPS) throw new MeshError(`glTF has over ${MAX_CLIPS} animations; a rig may have at most ${MAX_CLIPS}`);
    clips.push({ name: animation.getName() || `clip ${clips.length + 1}`, duration, channels });
  }
  return { names: order.map((node) => node.getName()), parents, restTranslation, restRotation, restScale, base, jointNodes, inverseBind, vertexJoints, vertexWeights, clips };
}
