// Fields that do not change with pose (issue 16, part 2): the agreement measures, the real network on moved and
// posed frames in onnxruntime-node, the anchored bake of a rigged mesh, and the torch weights rebuilt from ONNX.

import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { normaliseMesh } from "../../shared/geometry";
import { predictOnFrame } from "../../shared/skinning/anchor-frame";
import { bakeMesh } from "../../shared/skinning/bake";
import { minimumAssignment, subspaceDistance, temporalL1, type FieldTable } from "../../shared/skinning/field-agreement";
import { frameView } from "../../shared/skinning/posed-frames";
import { readMeshFile } from "../../server/world/mesh-file";
import { evaluatePoseInvariance } from "../../server/scenarios/pose-invariance";
import { reconstruction, surfaceArea } from "../../server/scenarios/anchor-rules";
import { MODEL_DIRECTORY, modelProvider, POSE_CONSISTENT_DIRECTORY } from "../../server/skinning/model-provider";
import { parityError } from "./parity";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const SPOT = path.resolve(ROOT, "../shared/assets/meshes/spot.obj");
const FOX = path.resolve(ROOT, "../shared/assets/characters/fox.glb");

function randomTable(count: number, k: number, seed: number): FieldTable {
  let s = seed;
  const values = new Float64Array(count * k).map(() => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  });
  return { values, count, k };
}

describe("field agreement", () => {
  it("a signed permutation of the fields is 0 on both measures; fields mixed within their span only on the subspace distance", () => {
    const a = randomTable(400, 5, 3), k = 5;
    const order = [3, 0, 4, 1, 2], signs = [1, -1, 1, -1, -1];
    const permuted = new Float64Array(a.values.length), mixed = new Float64Array(a.values.length);
    for (let i = 0; i < 400; i++) {
      for (let f = 0; f < k; f++) {
        // Scaled and offset too: the measures use zero-mean, unit-RMS fields and the span with the constant.
        permuted[i * k + f] = 3 * signs[f] * a.values[i * k + order[f]] + 7;
        mixed[i * k + f] = a.values[i * k + f] + 0.8 * a.values[i * k + ((f + 1) % k)];
      }
    }
    expect(temporalL1({ values: permuted, count: 400, k }, a)).toBeLessThan(1e-12);
    expect(subspaceDistance({ values: permuted, count: 400, k }, a)).toBeLessThan(1e-9);
    expect(subspaceDistance({ values: mixed, count: 400, k }, a)).toBeLessThan(1e-9);
    expect(temporalL1({ values: mixed, count: 400, k }, a)).toBeGreaterThan(0.1);
    // Unrelated fields: far apart on both.
    const b = randomTable(400, 5, 11);
    expect(subspaceDistance(a, b)).toBeGreaterThan(4);
    expect(temporalL1(a, b)).toBeGreaterThan(0.5);
  });

  it("the Hungarian assignment finds the cheapest matching", () => {
    // Greedy would take (0, 0) at cost 1, then (1, 1) at 100; the best is 2 + 3.
    expect(Array.from(minimumAssignment([1, 2, 3, 100], 2))).toEqual([1, 0]);
  });
});

describe("anchor rules' measures", () => {
  // Rest points in a 1 x 0.5 x 0.25 block; fields: two smooth functions of position.
  const count = 500, rest = new Float64Array(3 * count).map((_, i) => [1, 0.5, 0.25][i % 3] * Math.sin(12.9898 * i + 1) ** 2);
  const fields: FieldTable = { values: new Float64Array(2 * count), count, k: 2 };
  for (let i = 0; i < count; i++) {
    fields.values[2 * i] = Math.sin(3 * rest[3 * i]);
    fields.values[2 * i + 1] = rest[3 * i + 1] ** 2;
  }

  it("a deformation the fields' handles make is reproduced exactly, an affine map is reproduced by any fields, and no fields at all miss what is not affine", () => {
    // posed = sum_h w_h A_h [X; 1], A_h fixed 3 x 4 matrices.
    const posed = new Float64Array(3 * count);
    for (let i = 0; i < count; i++) {
      const w = [1, fields.values[2 * i], fields.values[2 * i + 1]], x = [rest[3 * i], rest[3 * i + 1], rest[3 * i + 2], 1];
      for (let h = 0; h < 3; h++) for (let a = 0; a < 3; a++) for (let b = 0; b < 4; b++) posed[3 * i + a] += w[h] * 0.1 * Math.cos(h + 2 * a + 3 * b) * x[b];
    }
    const exact = reconstruction(fields, rest, posed);
    expect(exact.relative).toBeLessThan(1e-6);
    expect(exact.rms).toBeLessThan(1e-9);
    const affine = rest.map((v, i) => 2 * v + 0.3 * rest[i - (i % 3) + ((i + 1) % 3)] + 5);
    expect(reconstruction(fields, rest, affine).rms).toBeLessThan(1e-9);
    // Fields that are zero add no direction: the fit is the affine one.
    expect(reconstruction({ ...fields, values: new Float64Array(2 * count) }, rest, posed).relative).toBeCloseTo(1, 9);
  });

  it("a surface's area is the sum of its triangles'", () => {
    // A unit square in z = 0 as two triangles, and a right triangle of legs 2 and 3.
    expect(surfaceArea([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0], [0, 1, 2, 0, 2, 3])).toBeCloseTo(1, 12);
    expect(surfaceArea([0, 0, 0, 2, 0, 0, 0, 0, 3], [0, 1, 2])).toBeCloseTo(3, 12);
  });
});

describe("the network on deformed frames (onnxruntime-node)", () => {
  it("a rigid motion of the rest pose leaves the prediction at the material points unchanged", async () => {
    const provider = await modelProvider();
    const mesh = normaliseMesh(await readMeshFile(SPOT)).mesh;
    const points = new Float64Array(3 * 300).map((_, i) => 0.3 * Math.sin(1.7 * i));
    const rest = await predictOnFrame(provider, frameView(mesh.positions, mesh.triangles, 2048, 1), points, 16);
    // Moved 2.5 m and grown 3x: the frame is renormalised, so the network sees the same surface and the same points.
    const moved = mesh.positions.map((v, i) => 3 * v + [2.5, -1, 0.5][i % 3]);
    const movedPoints = points.map((v, i) => 3 * v + [2.5, -1, 0.5][i % 3]);
    const frame = await predictOnFrame(provider, frameView(moved, mesh.triangles, 2048, 1), movedPoints, 16);
    expect(subspaceDistance(frame.table, rest.table)).toBeLessThan(1e-4);
    expect(temporalL1(frame.table, rest.table)).toBeLessThan(1e-3);
    // A frame whose points were not carried along is far off: the measure sees correspondences.
    const stale = await predictOnFrame(provider, frameView(moved, mesh.triangles, 2048, 1), points, 16);
    expect(subspaceDistance(stale.table, rest.table)).toBeGreaterThan(1);
  });

  it("the pose-consistent export reproduces its torch outputs in onnxruntime within 1e-4", async () => {
    const error = await parityError(POSE_CONSISTENT_DIRECTORY, path.join(POSE_CONSISTENT_DIRECTORY, "skinning-parity.json"));
    expect(error.latents).toBeLessThanOrEqual(1e-4);
    expect(error.fields).toBeLessThanOrEqual(1e-4);
  });

  it("on a short fox clip the anchored prediction is closer than the raw one", async () => {
    const raw = await modelProvider();
    const anchored = await modelProvider(POSE_CONSISTENT_DIRECTORY);
    const result = await evaluatePoseInvariance({ mesh: FOX, clip: "Walk", raw, anchored, framesPerClip: 4, surfacePoints: 2048, materialPoints: 256 });
    expect(result.frames).toBe(4);
    expect(result.raw.subspaceDistance).toBeGreaterThan(0.2);
    expect(result.anchored.subspaceDistance).toBeLessThan(result.raw.subspaceDistance);
    expect(result.anchor.group).toBe("Walk");
    // SPRig's anchor rules, each with its frame and how well its subspace reproduces every frame.
    expect(result.rules.map((r) => r.rule)).toEqual(["bind", "largestArea", "consensus", "leastStrain"]);
    expect(result.rules[0].group).toBe("rest");
    expect(result.rules.find((r) => r.rule === "consensus")!.t).toBe(result.anchor.t);
    for (const r of [...result.rules, result.rawBind]) {
      // The fields add to an affine map: better than one, far from exact on a walking fox.
      expect(r.reconstruction.relative).toBeGreaterThan(0.01);
      expect(r.reconstruction.relative).toBeLessThan(0.9);
      expect(r.groups.map((g) => g.name)).toEqual(["Walk"]);
    }
  });

  it("a rigged mesh baked with the network predicts on its anchor frame and carries the fields back to the bind pose", async () => {
    const fox = await readMeshFile(FOX);
    const { orthonormalProvider } = await import("../../shared/skinning/orthonormal");
    const { body, anchor } = await bakeMesh(fox, orthonormalProvider(await modelProvider()), { handles: 16, cubature: 64, encoderPoints: 1024, massSamples: 512 });
    expect(anchor).toBeDefined();
    expect(fox.rig!.clips.map((c) => c.name)).toContain(anchor!.clip);
    expect(anchor!.candidates).toBeGreaterThan(fox.rig!.clips.length);
    // Not describable by latents (they belong to the anchor frame): clients get the render weights.
    expect(body.fieldKind).toBe("");
    expect(body.renderWeights.every(Number.isFinite) && body.cubatureGradients.every(Number.isFinite)).toBe(true);
    const plain = await bakeMesh(fox, orthonormalProvider(await modelProvider()), { handles: 16, cubature: 64, encoderPoints: 1024, massSamples: 512, anchorFrame: false });
    expect(plain.anchor).toBeUndefined();
    expect(plain.body.fieldKind).not.toBe("");
  }, 120_000);
});

describe("torch weights recovered from the ONNX files (Debian python3-torch)", () => {
  it("reproduce the parity fixture within 1e-4", async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), "pliant-onnx-weights-")), "weights.pt");
    const { stdout } = await run("/usr/bin/python3", [path.join(ROOT, "models/train/onnx_weights.py"), "--models", MODEL_DIRECTORY, "--out", out], { timeout: 120_000 });
    const result = JSON.parse(stdout.trim().split("\n").pop()!);
    expect(result.parity.latents).toBeLessThanOrEqual(1e-4);
    expect(result.parity.fields).toBeLessThanOrEqual(1e-4);
  }, 120_000);
});
