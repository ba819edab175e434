// The shipped model: ONNX parity with torch, size, and its provider plugged into the bake and the solver.

import { statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bakedQuality, bakeMesh } from "../../shared/skinning";
import { readMeshFile } from "../../server/mesh-file";
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

  it("bakes a real mesh into finite, normalised fields whose render and cubature weights agree", async () => {
    const mesh = await readMeshFile(path.resolve(import.meta.dirname, "../../../shared/assets/meshes/spot.obj"));
    const { body } = await bakeMesh(mesh, await modelProvider(), { handles: 16, cubature: 256 });
    expect(body.provider).toBe("model");
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

  it("simulates a cantilever with model weights within 25% of Euler-Bernoulli", async () => {
    const result = await runScenario({
      scenario: "cantilever", mesh: "box:1x0.1x0.1", weights: "model", handles: 16, cubature: 256, size: 1,
      youngsModulus: 5e7, poissonRatio: 0.3, density: 1000, damping: 0.01, dt: 1 / 60, steps: 360,
    });
    const tail = result.frames.slice(-30).map((f) => -f.tip![1]);
    const deflection = tail.reduce((a, b) => a + b, 0) / tail.length;
    const eulerBernoulli = (1000 * 9.81 * 0.01) / (8 * 5e7 * (0.1 ** 4 / 12));
    expect(Math.abs(deflection / eulerBernoulli - 1)).toBeLessThan(0.25);
  });
});
