// The shipped skinning model in Node: the ONNX files from models/, run by onnxruntime-node.

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createModelProvider, SkinningError, type OrtModule, type SkinningFieldProvider } from "../../shared/skinning";
import { countedRuns } from "./native-runs";

/** models/, or SKINNING_MODEL_DIR (evaluating another export of the network with the same tools). */
export const MODEL_DIRECTORY = path.resolve(process.env.SKINNING_MODEL_DIR || path.join(import.meta.dirname, "../../models"));
/** The pose-consistent fine-tune of the network (models/train/pose_consistency.py), when exported. */
export const POSE_CONSISTENT_DIRECTORY = path.resolve(import.meta.dirname, "../../models/pose-consistent");

let cached: Promise<SkinningFieldProvider> | undefined;

/** The model provider (created once per process). */
export function modelProvider(directory = MODEL_DIRECTORY): Promise<SkinningFieldProvider> {
  if (directory !== MODEL_DIRECTORY) return load(directory);
  cached ??= load(directory).catch((error) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

/**
 * The shipped network, predicting on a rigged mesh's anchor frame with the pose-consistent fine-tune when it is
 * exported (the bake of an animated mesh, issue 16), with the shipped network itself otherwise.
 */
export async function modelWithAnchor(): Promise<SkinningFieldProvider> {
  const shipped = await modelProvider();
  if (!existsSync(path.join(POSE_CONSISTENT_DIRECTORY, "skinning-encoder.onnx"))) return shipped;
  posed ??= load(POSE_CONSISTENT_DIRECTORY).catch((error) => {
    posed = undefined;
    throw error;
  });
  return { ...shipped, anchorProvider: await posed };
}

let posed: Promise<SkinningFieldProvider> | undefined;

/**
 * The model's key for bake caches: "model-" and a hash of its ONNX files, so that a retrained model never reuses
 * bakes (latents and weights) made with the one before.
 */
export async function modelCacheKey(directory = MODEL_DIRECTORY): Promise<string> {
  const hash = createHash("sha256");
  // The pose-consistent files too: a rigged mesh's bake predicts with them.
  for (const dir of [directory, POSE_CONSISTENT_DIRECTORY]) {
    for (const name of ["skinning-encoder.onnx", "skinning-decoder.onnx"]) hash.update(await readFile(path.join(dir, name)).catch(() => Buffer.alloc(0)));
  }
  return `model-${hash.digest("hex").slice(0, 16)}`;
}

async function load(directory: string): Promise<SkinningFieldProvider> {
  const read = async (name: string) => {
    try {
      return new Uint8Array(await readFile(path.join(directory, name)));
    } catch {
      throw new SkinningError(`the skinning model ${path.join(directory, name)} is missing; train and export it (models/train/README.md)`);
    }
  };
  const [encoder, decoder] = await Promise.all([read("skinning-encoder.onnx"), read("skinning-decoder.onnx")]);
  const ort = countedRuns((await import("onnxruntime-node")) as unknown as OrtModule);
  return createModelProvider(ort, { encoder, decoder });
}
