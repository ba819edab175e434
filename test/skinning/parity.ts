// Replays an export's parity fixture (fixed inputs with torch's outputs) in onnxruntime-node.

import { readFileSync } from "node:fs";
import path from "node:path";
import * as ort from "onnxruntime-node";

export async function parityError(modelDirectory: string, fixturePath: string): Promise<{ latents: number; fields: number }> {
  const fixture = JSON.parse(readFileSync(fixturePath, "utf8")) as {
    surface: number[]; surfaceCount: number; points: number[]; pointCount: number; latents: number[]; latentShape: number[]; fields: number[];
  };
  const encoder = await ort.InferenceSession.create(path.join(modelDirectory, "skinning-encoder.onnx"));
  const decoder = await ort.InferenceSession.create(path.join(modelDirectory, "skinning-decoder.onnx"));
  const { latents } = await encoder.run({ surface: new ort.Tensor("float32", Float32Array.from(fixture.surface), [1, fixture.surfaceCount, 6]) });
  const { fields } = await decoder.run({ latents, points: new ort.Tensor("float32", Float32Array.from(fixture.points), [1, fixture.pointCount, 3]) });
  const maxDiff = (a: ArrayLike<number>, b: number[]) => {
    expectLength(a.length, b.length);
    let m = 0;
    for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
    return m;
  };
  return { latents: maxDiff(latents.data as Float32Array, fixture.latents), fields: maxDiff(fields.data as Float32Array, fixture.fields) };
}

function expectLength(actual: number, expected: number): void {
  if (actual !== expected) throw new Error(`onnxruntime gave ${actual} numbers, torch ${expected}`);
}
