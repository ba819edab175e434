// A character exported in parts: several skinned meshes, each with its own skin, read as one rig (the skins' joints
// in one list, each part's JOINTS_0 renumbered into it), and skinned as three.js skins the same file. Broken rigs
// are refused with the reason: nodes in a cycle or with two parents, a skin without (enough) inverse bind
// matrices, a vertex that no joint weighs.

import { AnimationMixer, SkinnedMesh, Vector3, type Object3D } from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { describe, expect, it } from "vitest";
import { MESH_LIMITS, MeshError, parseMesh } from "../../shared/geometry";
import { parseGltf } from "../../shared/geometry/parse-gltf";
import { RigPose } from "../../shared/rig";
import { linearBlendSkin } from "../../shared/skeleton/rig-pose";
import { editedFox, foxWithOtherBinds, foxWithUnskinnedPart, foxWithUnweightedVertex, twoSkinFox } from "./rigged-files";

/** 0.1 mm in the fox's units (centimetres). */
const TOLERANCE = 0.01;

/** Skins the parsed file's every vertex with our rig and compares with three.js's skinning of the same file. */
async function skinnedAsThreeDoes(bytes: Uint8Array) {
  const mesh = await parseGltf(bytes, MESH_LIMITS);
  const rig = mesh.rig!;
  const gltf = await new GLTFLoader().parseAsync(bytes.slice().buffer, "");
  const parts: SkinnedMesh[] = [];
  gltf.scene.traverse((o: Object3D) => { if (o instanceof SkinnedMesh) parts.push(o); });
  const clip = rig.clips.find((c) => c.name === "Walk")!, theirs = gltf.animations.find((a) => a.name === "Walk")!;
  const pose = new RigPose(rig), ours = new Float64Array(mesh.positions.length), mixer = new AnimationMixer(gltf.scene), v = new Vector3();
  mixer.clipAction(theirs).play();
  let worst = 0, moved = 0;
  for (const fraction of [0.1, 0.3, 0.5, 0.7, 0.9]) {
    const t = fraction * clip.duration;
    mixer.setTime(t);
    gltf.scene.updateMatrixWorld(true);
    pose.sample(clip, t);
    linearBlendSkin(pose.joints, mesh.positions, mesh.skinJoints!, mesh.skinWeights!, ours);
    let offset = 0;
    for (const part of parts) {
      const count = part.geometry.getAttribute("position").count;
      for (let i = 0; i < count; i++) {
        part.getVertexPosition(i, v).applyMatrix4(part.matrixWorld);
        const o = 3 * (offset + i);
        worst = Math.max(worst, Math.hypot(v.x - ours[o], v.y - ours[o + 1], v.z - ours[o + 2]));
        moved = Math.max(moved, Math.hypot(ours[o] - mesh.positions[o], ours[o + 1] - mesh.positions[o + 1], ours[o + 2] - mesh.positions[o + 2]));
      }
      offset += count;
    }
  }
  mixer.stopAllAction();
  return { mesh, rig, parts: parts.length, worst, moved };
}

describe("a fox in two parts with two skins", () => {
  it("is one rig of the fox's 24 joints (the reversed skin's are the same joints with the same binds), skinned as three.js does within 0.1 mm", async () => {
    const { mesh, rig, parts, worst, moved } = await skinnedAsThreeDoes(await twoSkinFox(true));
    console.info(`two skins: largest difference from three.js ${(worst * 10).toFixed(5)} mm; vertices moved up to ${(moved * 10).toFixed(0)} mm`);
    expect(parts).toBe(2);
    expect(rig.jointNodes.length).toBe(24);
    expect(mesh.positions.length / 3).toBe(2 * 1728);
    expect(rig.vertexJoints.length).toBe(mesh.skinJoints!.length);
    expect(rig.clips.map((c) => c.name).sort()).toEqual(["Run", "Survey", "Walk"]);
    // The comparison means something: the clip moves vertices by centimetres.
    expect(moved).toBeGreaterThan(1);
    expect(worst).toBeLessThan(TOLERANCE);
  });

  it("whose second skin binds the same joints otherwise has each of them twice, and still skins as three.js does", async () => {
    const { rig, worst } = await skinnedAsThreeDoes(await foxWithOtherBinds());
    expect(rig.jointNodes.length).toBe(48);
    expect(new Set(rig.jointNodes).size).toBe(24);
    expect(worst).toBeLessThan(TOLERANCE);
  });

  it("with a part that is not skinned is a body: no rig, and its skin's faults do not matter", async () => {
    const mesh = await parseMesh(await foxWithUnskinnedPart(), "glb");
    expect(mesh.rig).toBeUndefined();
    expect(mesh.positions.length).toBeGreaterThan(0);
  });
});

describe("broken rigs are refused with the reason", () => {
  const refused = async (bytes: Uint8Array, reason: RegExp) => {
    const error = await parseMesh(bytes, "glb").then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(MeshError);
    expect((error as Error).message).toMatch(reason);
  };
  /** The fox's root node (the one above its joints). */
  const rootOf = (json: { nodes?: { children?: number[] }[] }) => json.nodes!.findIndex((n, i) => (n.children ?? []).length > 0 && !json.nodes!.some((m) => m.children?.includes(i)));

  it("nodes in a cycle", async () => {
    await refused(await editedFox((json) => {
      const leaf = json.skins![0].joints.at(-1)!;
      json.nodes![leaf].children = [...(json.nodes![leaf].children ?? []), rootOf(json)];
    }), /cycle: node \d+ is its own ancestor/);
  });

  it("a node with two parents", async () => {
    await refused(await editedFox((json) => {
      const [a, b] = json.skins![0].joints;
      json.nodes![rootOf(json)].children!.push(b === json.nodes![a].children?.[0] ? b : a);
    }), /has two parents/);
  });

  it("a skin without inverse bind matrices, and one with fewer than joints", async () => {
    await refused(await editedFox((json) => { delete json.skins![0].inverseBindMatrices; }), /no inverse bind matrices: its bind pose is unknown/);
    await refused(await editedFox((json) => {
      json.accessors![json.skins![0].inverseBindMatrices!].count -= 1;
    }), /23 inverse bind matrices for 24 joints/);
  });

  it("a vertex no joint weighs", async () => {
    await refused(await foxWithUnweightedVertex(), /vertex 0 has no skin weight/);
  });
});
