// Linear blend skinning of the fox, two ways: Pliant's rig (shared/rig, read with @gltf-transform) and three.js's
// own GLTFLoader, SkinnedMesh and AnimationMixer on the same file. Every vertex, at several times of every clip,
// must agree within 0.1 mm (the fox's units are centimetres).

import { readFile } from "node:fs/promises";
import path from "node:path";
import { AnimationMixer, SkinnedMesh, Vector3, type Object3D } from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { describe, expect, it } from "vitest";
import { readGltfDocument } from "../../shared/geometry";
import { readRig, RigPose, skinVertices } from "../../shared/rig";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");
/** 0.1 mm in the fox's units (centimetres). */
const TOLERANCE = 0.01;

/** The GLB without its images and textures (Node decodes no images; the skin and animations are untouched). */
function withoutImages(bytes: Uint8Array): ArrayBuffer {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
  delete json.images;
  delete json.textures;
  delete json.samplers;
  for (const material of json.materials ?? []) delete material.pbrMetallicRoughness?.baseColorTexture;
  const text = new TextEncoder().encode(JSON.stringify(json));
  const padded = Math.ceil(text.length / 4) * 4;
  const bin = bytes.subarray(20 + jsonLength);
  const out = new Uint8Array(20 + padded + bin.length).fill(0x20, 20, 20 + padded);
  const o = new DataView(out.buffer);
  o.setUint32(0, 0x46546c67, true); o.setUint32(4, 2, true); o.setUint32(8, out.length, true);
  o.setUint32(12, padded, true); o.setUint32(16, 0x4e4f534a, true);
  out.set(text, 20);
  out.set(bin, 20 + padded);
  return out.buffer;
}

describe("the fox's skinning matches three.js", async () => {
  const bytes = new Uint8Array(await readFile(FOX));
  const gltf = await new GLTFLoader().parseAsync(withoutImages(bytes), "");
  let mesh: SkinnedMesh | undefined;
  gltf.scene.traverse((o: Object3D) => { if (o instanceof SkinnedMesh) mesh = o; });
  const document = await readGltfDocument(bytes);
  const rig = readRig(document)!;
  const pose = new RigPose(rig);
  const rest = document.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute("POSITION")!.getArray() as Float32Array;
  const ours = new Float64Array(rest.length);

  it("reads the skin: 24 joints, 1,728 skinned vertices, weights summing to 1, three clips", () => {
    expect(rig.jointNodes.length).toBe(24);
    expect(rig.vertexWeights.length / 4).toBe(1728);
    for (let v = 0; v < 1728; v++) expect(rig.vertexWeights[4 * v] + rig.vertexWeights[4 * v + 1] + rig.vertexWeights[4 * v + 2] + rig.vertexWeights[4 * v + 3]).toBeCloseTo(1, 5);
    expect(rig.clips.map((c) => c.name).sort()).toEqual(["Run", "Survey", "Walk"]);
  });

  for (const name of ["Survey", "Walk", "Run"]) {
    it(`${name}: every vertex within 0.1 mm at six times`, () => {
      const clip = rig.clips.find((c) => c.name === name)!;
      const theirs = gltf.animations.find((a) => a.name === name)!;
      expect(clip.duration).toBeCloseTo(theirs.duration, 5);
      const mixer = new AnimationMixer(gltf.scene);
      mixer.clipAction(theirs).play();
      const v = new Vector3();
      let worst = 0;
      for (const fraction of [0, 0.13, 0.37, 0.5, 0.81, 0.97]) {
        const t = fraction * clip.duration;
        mixer.setTime(t);
        gltf.scene.updateMatrixWorld(true);
        pose.sample(clip, t);
        skinVertices(pose, rest, ours);
        for (let i = 0; i < rest.length / 3; i++) {
          mesh!.getVertexPosition(i, v).applyMatrix4(mesh!.matrixWorld);
          worst = Math.max(worst, Math.hypot(v.x - ours[3 * i], v.y - ours[3 * i + 1], v.z - ours[3 * i + 2]));
        }
      }
      mixer.stopAllAction();
      console.info(`${name}: largest difference from three.js ${(worst * 10).toFixed(5)} mm`);
      expect(worst).toBeLessThan(TOLERANCE);
    });
  }
});
