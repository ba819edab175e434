// The shipped model: ONNX parity with torch, size, and its provider plugged into the bake and the solver.

import { statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bakedQuality, bakeMesh } from "../../shared/skinning";
import { readMeshFile } from "../../server/world/mesh-file";
import { modelProvider, MODEL_DIRECTORY } from "../../server/skinning/model-provider";
import { runScenario } from "../../server/scenarios/run-scenario";
import { parityError } from "./parity";

describe("shipped skinning model", () => {
  it("is at most 20 MB and onnxruntime reproduces torch's outputs within 1e-4", async () => {
    const bytes = ["skinning-encoder.onnx", "skinning-decoder.onnx"].reduce((a, f) => a + statSync(path.join(MODEL_DIRECTORY, f)).size, 0);
    expect(bytes).toBeLessThanOrEqual(20 * 1024 * 1024);
    const error = await parityError(MODEL_DIRECTORY, path.join(MODEL_DIRECTORY, "skinning-parity.json"));
    expect(error.latents).toBeLessThanOrEqual(1e-4);
    expect(error.fields).toBeLessThanOrEqual(1e-4);
  });

  it("bakes a real mesh into finite fields of unit RMS over the cubature points, with quality figures", async () => {
    const mesh = await readMeshFile(path.resolve(import.meta.dirname, "../../../shared/assets/meshes/spot.obj"));
    // Clustered cubature: the fields are normalised over its points (a fitted bake normalises over its pool).
    const { body } = await bakeMesh(mesh, await modelProvider(), { handles: 16, cubature: 256, fitCubature: false });
    expect(body.provider).toBe("model-raw");
    const h = 17, nc = body.cubatureVolumes.length;
    expect(body.cubatureWeights.every(Number.isFinite) && body.cubatureGradients.every(Number.isFinite) && body.renderWeights.every(Number.isFinite)).toBe(true);
    for (let f = 1; f < h; f++) {
      let ms = 0;
      for (let c = 0; c < nc; c++) ms += body.cubatureWeights[c * h + f] ** 2;
      expect(Math.sqrt(ms / nc)).toBeCloseTo(1, 6); // unit RMS over the cubature points
    }
    const quality = bakedQuality(body);
    expect(Number.isFinite(quality.elastic) && quality.elastic > 0).toBe(true);
    expect(quality.ortho).toBeLessThan(0.5);
  });

  it("drives the solver: spot with the network's own fields falls onto the floor and rests there, with no NaN", async () => {
    const result = await runScenario({
      scenario: "drop", mesh: path.resolve(import.meta.dirname, "../../../shared/assets/meshes/spot.obj"), weights: "model-raw",
      handles: 16, cubature: 256, size: 0.3, youngsModulus: 1e5, poissonRatio: 0.45, density: 1000, damping: 0.002, dt: 1 / 60, steps: 240,
    });
    expect(result.weights).toBe("model-raw");
    for (const f of result.frames) expect([...f.centroid, f.minY, f.energy.kinetic, f.energy.elastic].every(Number.isFinite)).toBe(true);
    const last = result.frames[result.frames.length - 1];
    expect(last.minY).toBeGreaterThan(-0.01);
    expect(last.minY).toBeLessThan(0.01);
    expect(last.energy.kinetic).toBeLessThan(1e-3 * result.frames[0].energy.potential);
  });
});
