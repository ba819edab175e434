// Rigged glTF files made from the fox for tests: the fox as exported, the fox in two parts with two skins (the
// second skin lists the joints in reverse, its part's JOINTS_0 renumbered to match), without its clips, with extra
// joints, and broken at the JSON level (cycles, missing inverse binds) where gltf-transform cannot write the fault.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { WebIO, type GLTF } from "@gltf-transform/core";
import { splitGlb } from "../../shared/geometry/parse-gltf";

export const FOX_FILE = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");

export async function foxBytes(): Promise<Uint8Array> {
  return new Uint8Array(await readFile(FOX_FILE));
}

/**
 * The fox as two skinned mesh nodes with two skins: the second's joints in reverse order. `withoutImages`: its
 * texture left out (Node cannot decode images for three.js's loader). `bindsRaisedCm`: the second skin's inverse
 * binds differ from the first's (its part bound that much higher).
 */
export async function twoSkinFox(withoutImages = false, bindsRaisedCm = 0): Promise<Uint8Array> {
  return editFox((document) => {
    if (withoutImages) for (const texture of document.getRoot().listTextures()) texture.dispose();
    const root = document.getRoot(), buffer = root.listBuffers()[0];
    const foxNode = root.listNodes().find((node) => node.getSkin() !== null)!;
    const skin = foxNode.getSkin()!, joints = skin.listJoints(), count = joints.length;
    const binds = skin.getInverseBindMatrices()!.getArray() as Float32Array, reversedBinds = new Float32Array(binds.length);
    for (let j = 0; j < count; j++) reversedBinds.set(binds.subarray(16 * (count - 1 - j), 16 * (count - j)), 16 * j);
    // Other binds: inverse binds times a translation down (the part's vertices are taken as bound 5 cm higher; the
    // fox's units are centimetres), so that the same joints are there twice, once with each bind.
    if (bindsRaisedCm !== 0) {
      for (let j = 0; j < count; j++) {
        const m = reversedBinds.subarray(16 * j, 16 * (j + 1));
        for (let r = 0; r < 3; r++) m[12 + r] -= m[4 + r] * bindsRaisedCm;
      }
    }
    const second = document.createSkin("second").setInverseBindMatrices(document.createAccessor().setType("MAT4").setArray(reversedBinds).setBuffer(buffer));
    for (let j = count - 1; j >= 0; j--) second.addJoint(joints[j]);
    const primitive = foxNode.getMesh()!.listPrimitives()[0], copy = primitive.clone();
    const jointIndices = primitive.getAttribute("JOINTS_0")!.getArray()!, renumbered = jointIndices.slice();
    for (let i = 0; i < renumbered.length; i++) renumbered[i] = count - 1 - jointIndices[i];
    copy.setAttribute("JOINTS_0", document.createAccessor().setType("VEC4").setArray(renumbered).setBuffer(buffer));
    const part = document.createNode("fox-part-2").setMesh(document.createMesh("fox-part-2").addPrimitive(copy)).setSkin(second);
    (foxNode.getParentNode() ?? root.listScenes()[0]).addChild(part);
  });
}

/** The fox without its animations (a rig with no clips). */
export async function foxWithoutClips(): Promise<Uint8Array> {
  return editFox((document) => {
    for (const animation of document.getRoot().listAnimations()) animation.dispose();
  });
}

/** The fox with `extra` joints more in its skin (children of its root joint, weighing nothing). */
export async function foxWithExtraJoints(extra: number): Promise<Uint8Array> {
  return editFox((document) => {
    const root = document.getRoot(), buffer = root.listBuffers()[0], skin = root.listSkins()[0], top = skin.listJoints()[0];
    const binds = skin.getInverseBindMatrices()!.getArray() as Float32Array, more = new Float32Array(binds.length + 16 * extra);
    more.set(binds);
    for (let k = 0; k < extra; k++) {
      const joint = document.createNode(`extra-${k}`).setTranslation([0, 0.01 * k, 0]);
      top.addChild(joint);
      skin.addJoint(joint);
      more.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.01 * k, 0, 1], binds.length + 16 * k);
    }
    skin.setInverseBindMatrices(document.createAccessor().setType("MAT4").setArray(more).setBuffer(buffer));
  });
}

/** The fox with its first vertex's four weights zero (a vertex no joint moves). */
export async function foxWithUnweightedVertex(): Promise<Uint8Array> {
  return editFox((document) => {
    const root = document.getRoot(), primitive = root.listMeshes()[0].listPrimitives()[0], weights = primitive.getAttribute("WEIGHTS_0")!;
    const values = weights.getArray()!.slice();
    values.fill(0, 0, 4);
    primitive.setAttribute("WEIGHTS_0", document.createAccessor().setType("VEC4").setArray(values).setNormalized(weights.getNormalized()).setBuffer(root.listBuffers()[0]));
  });
}

/** The fox with its first vertex moved by a hair (another bake: it is not in any cache). */
export async function nudgedFox(): Promise<Uint8Array> {
  return editFox((document) => {
    const primitive = document.getRoot().listMeshes()[0].listPrimitives()[0], position = primitive.getAttribute("POSITION")!;
    const values = position.getArray()!.slice() as Float32Array;
    values[0] += 1e-4 * (1 + Math.random());
    primitive.setAttribute("POSITION", document.createAccessor().setType("VEC3").setArray(values).setBuffer(document.getRoot().listBuffers()[0]));
  });
}

/** The fox whose first animation's last key comes at `seconds`. */
export async function foxWithClipLasting(seconds: number): Promise<Uint8Array> {
  return editFox((document) => {
    const sampler = document.getRoot().listAnimations()[0].listSamplers()[0], input = sampler.getInput()!;
    const times = input.getArray()!.slice() as Float32Array;
    times[times.length - 1] = seconds;
    sampler.setInput(document.createAccessor().setType("SCALAR").setArray(times).setBuffer(document.getRoot().listBuffers()[0]));
  });
}

/** The fox in two parts whose second skin has other inverse binds (bound 5 cm higher): the rig has its joints twice. */
export async function foxWithOtherBinds(): Promise<Uint8Array> {
  return twoSkinFox(true, 5);
}

/** The fox with an unskinned mesh beside its skinned one (a file that is a body, not a character), its skin `broken` (no inverse binds). */
export async function foxWithUnskinnedPart(): Promise<Uint8Array> {
  return editFox((document) => {
    const root = document.getRoot(), foxNode = root.listNodes().find((node) => node.getSkin() !== null)!, skin = foxNode.getSkin()!;
    const copy = foxNode.getMesh()!.listPrimitives()[0].clone();
    copy.setAttribute("JOINTS_0", null).setAttribute("WEIGHTS_0", null);
    (foxNode.getParentNode() ?? root.listScenes()[0]).addChild(document.createNode("prop").setMesh(document.createMesh("prop").addPrimitive(copy)));
    skin.setInverseBindMatrices(null);
  });
}

async function editFox(edit: (document: Awaited<ReturnType<WebIO["readBinary"]>>) => void): Promise<Uint8Array> {
  const io = new WebIO();
  const document = await io.readBinary(await foxBytes());
  edit(document);
  return io.writeBinary(document);
}

/** The fox's GLB with its JSON changed by `edit` (its binary chunk as it is). */
export async function editedFox(edit: (json: GLTF.IGLTF) => void): Promise<Uint8Array> {
  const { json, resources } = splitGlb(await foxBytes());
  edit(json);
  return glb(json, resources["@glb.bin"]);
}

function glb(json: unknown, bin: Uint8Array): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = Math.ceil(text.length / 4) * 4, binLength = Math.ceil(bin.length / 4) * 4;
  const out = new Uint8Array(28 + jsonLength + binLength), view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true); view.setUint32(4, 2, true); view.setUint32(8, out.length, true);
  view.setUint32(12, jsonLength, true); view.setUint32(16, 0x4e4f534a, true);
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + jsonLength);
  view.setUint32(20 + jsonLength, binLength, true); view.setUint32(24 + jsonLength, 0x004e4942, true);
  out.set(bin, 28 + jsonLength);
  return out;
}
