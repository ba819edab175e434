// The rig's own displacement basis (complementary dynamics' J) against finite differences of the rig itself:
// turning a joint a little about an axis moves every skinned vertex as its column says; translating the root, as
// its three columns say. Checked on the fox mid-Run.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { readGltfDocument } from "../../shared/geometry";
import { readRig, RigBasis, RigPose, skinVertices } from "../../shared/rig";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");

it("each column of the fox's rig basis is the motion a small turn of its joint (or a root shift) makes", async () => {
  const document = await readGltfDocument(new Uint8Array(await readFile(FOX)));
  const rig = readRig(document)!;
  const rest = document.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute("POSITION")!.getArray() as Float32Array;
  const pose = new RigPose(rig), basis = new RigBasis(pose);
  expect(basis.columns).toBe(3 + 3 * 24);
  const run = rig.clips.find((c) => c.name === "Run")!;
  pose.sample(run, 0.3);
  const at = new Float64Array(rest.length);
  skinVertices(pose, rest, at);
  const columns = new Float64Array(rest.length * basis.columns);
  basis.evaluate(rest, rig.vertexJoints, rig.vertexWeights, columns);

  // A turn by h about world axis a at joint j: the joint's node turns in the world frame, so its local rotation is
  // premultiplied by the parent-frame image of that world turn. Done on the world matrices directly: every node in
  // the subtree gets W' = R_world(h about a through c_j) W.
  const h = 1e-5, moved = new Float64Array(rest.length), saved = Float64Array.from(pose.world);
  const n = rest.length;
  let worst = 0, scale = 0;
  for (let j = 0; j < rig.jointNodes.length; j += 5) {
    for (let a = 0; a < 3; a++) {
      pose.world.set(saved);
      const node = rig.jointNodes[j], c = [saved[16 * node + 12], saved[16 * node + 13], saved[16 * node + 14]];
      const cos = Math.cos(h), sin = Math.sin(h);
      // Rotation about axis a by h (column-major 3 x 3 in `r`).
      const r = a === 0 ? [1, 0, 0, 0, cos, sin, 0, -sin, cos] : a === 1 ? [cos, 0, -sin, 0, 1, 0, sin, 0, cos] : [cos, sin, 0, -sin, cos, 0, 0, 0, 1];
      for (let k = 0; k < rig.parents.length; k++) {
        let inSubtree = false;
        for (let up = k; up >= 0; up = rig.parents[up]) if (up === node) inSubtree = true;
        if (!inSubtree) continue;
        const w = pose.world, o = 16 * k;
        const cols = [0, 4, 8].map((q) => [w[o + q], w[o + q + 1], w[o + q + 2]]);
        const t = [w[o + 12] - c[0], w[o + 13] - c[1], w[o + 14] - c[2]];
        const turn = (v: number[]) => [r[0] * v[0] + r[3] * v[1] + r[6] * v[2], r[1] * v[0] + r[4] * v[1] + r[7] * v[2], r[2] * v[0] + r[5] * v[1] + r[8] * v[2]];
        cols.forEach((col, q) => w.set(turn(col), o + 4 * q));
        const tt = turn(t);
        w[o + 12] = tt[0] + c[0]; w[o + 13] = tt[1] + c[1]; w[o + 14] = tt[2] + c[2];
      }
      // Joint matrices from the turned worlds, then skin.
      for (let jj = 0; jj < rig.jointNodes.length; jj++) {
        const wo = 16 * rig.jointNodes[jj], io = 16 * jj;
        for (let col = 0; col < 4; col++) for (let row = 0; row < 4; row++) {
          let sum = 0;
          for (let k = 0; k < 4; k++) sum += pose.world[wo + 4 * k + row] * rig.inverseBind[io + 4 * col + k];
          pose.joints[io + 4 * col + row] = sum;
        }
      }
      skinVertices(pose, rest, moved);
      const column = columns.subarray((3 + 3 * j + a) * n, (4 + 3 * j + a) * n);
      for (let i = 0; i < n; i++) {
        worst = Math.max(worst, Math.abs((moved[i] - at[i]) / h - column[i]));
        scale = Math.max(scale, Math.abs(column[i]));
      }
    }
  }
  // The fox is ~150 units long: columns reach ~100 units per radian; a first-order difference is good to ~1e-3 of that.
  expect(scale).toBeGreaterThan(10);
  expect(worst / scale).toBeLessThan(1e-3);
  // The root's translation columns are unit shifts of every point.
  for (let a = 0; a < 3; a++) for (let i = 0; i < n / 3; i++) expect(columns[a * n + 3 * i + a]).toBe(1);
});
