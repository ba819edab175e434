// A rigged mesh's bake keeps its rig: baked, encoded and decoded (both copies), the fox's render vertices are the
// bind pose, and skinning them with the bake's rig gives what skinning the file's own vertices gives.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { parseMesh, readGltfDocument } from "../../shared/geometry";
import { complementaryDirections, readRig, RigPose, skinVertices } from "../../shared/rig";
import { bakeMesh, baselineProvider, clientBakedBody, decodeBakedBody, encodeBakedBody, rigOf } from "../../shared/skinning";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");

it("the fox's bake carries its rig; its render vertices skin as the file's do (Run, three times)", async () => {
  const bytes = new Uint8Array(await readFile(FOX));
  const mesh = await parseMesh(bytes, "glb");
  expect(mesh.rig?.jointNodes.length).toBe(24);
  const { body } = await bakeMesh(mesh, baselineProvider, { handles: 8, cubature: 64 });
  for (const copy of [decodeBakedBody(encodeBakedBody(body)), decodeBakedBody(encodeBakedBody(clientBakedBody(body), { floats: "f32" }))]) {
    const rig = rigOf(copy)!;
    expect(rig.clips.map((c) => c.name).sort()).toEqual(["Run", "Survey", "Walk"]);
    // The file's own vertices and rig, skinned directly.
    const document = await readGltfDocument(bytes);
    const fileRig = readRig(document)!;
    const filePositions = document.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute("POSITION")!.getArray() as Float32Array;
    // Each render vertex, back in file units, is one of the file's vertices (the bind pose).
    const v = copy.renderPositions.length / 3, render = new Float64Array(3 * v), source = new Int32Array(v);
    for (let i = 0; i < v; i++) {
      for (let k = 0; k < 3; k++) render[3 * i + k] = copy.renderPositions[3 * i + k] * copy.scale + copy.center[k];
      let best = -1, bestDistance = Infinity;
      for (let f = 0; f < filePositions.length / 3; f++) {
        const d = Math.hypot(filePositions[3 * f] - render[3 * i], filePositions[3 * f + 1] - render[3 * i + 1], filePositions[3 * f + 2] - render[3 * i + 2]);
        if (d < bestDistance) { bestDistance = d; best = f; }
      }
      expect(bestDistance).toBeLessThan(1e-3);
      source[i] = best;
    }
    const pose = new RigPose(rig), filePose = new RigPose(fileRig), clip = rig.clips.find((c) => c.name === "Run")!;
    const ours = new Float64Array(3 * v), theirs = new Float64Array(filePositions.length);
    let worst = 0;
    for (const t of [0.1, 0.35, 0.6]) {
      pose.sample(clip, t);
      filePose.sample(fileRig.clips.find((c) => c.name === "Run")!, t);
      skinVertices(pose, render, ours);
      skinVertices(filePose, filePositions, theirs);
      for (let i = 0; i < v; i++) worst = Math.max(worst, Math.hypot(ours[3 * i] - theirs[3 * source[i]], ours[3 * i + 1] - theirs[3 * source[i] + 1], ours[3 * i + 2] - theirs[3 * source[i] + 2]));
    }
    // File units are centimetres: 0.1 mm.
    expect(worst).toBeLessThan(0.01);
  }
}, 120_000);

it("a bake of a mesh without a rig has none", async () => {
  const { body } = await bakeMesh(await parseMesh(new TextEncoder().encode("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"), "obj"), baselineProvider, { handles: 4, cubature: 16 });
  expect(rigOf(decodeBakedBody(encodeBakedBody(body)))).toBeNull();
}, 120_000);

it("the fox's 16-handle subspace leaves room for complementary motion: 204 directions, the rig's 75 columns of them at most", async () => {
  const mesh = await parseMesh(new Uint8Array(await readFile(FOX)), "glb");
  const { body } = await bakeMesh(mesh, baselineProvider, { handles: 16, cubature: 128 });
  const rig = rigOf(body)!, pose = new RigPose(rig);
  for (const [clip, t] of [["Survey", 0], ["Run", 0.4]] as const) {
    pose.sample(rig.clips.find((c) => c.name === clip)!, t);
    const counts = complementaryDirections(body, pose);
    console.info(`${clip} at ${t} s: the rig spans ${counts.rigRank} of its ${counts.rigColumns} columns in the subspace; ${counts.complementary} of ${counts.subspace} directions are complementary`);
    expect(counts.subspace).toBe(204);
    expect(counts.rigColumns).toBe(75);
    // The root's translation alone is 3 independent directions; the joints add more, never past their count.
    expect(counts.rigRank).toBeGreaterThan(3);
    expect(counts.rigRank).toBeLessThanOrEqual(75);
    expect(counts.complementary).toBe(204 - counts.rigRank);
  }
}, 120_000);
