// The trained secondary-motion network of a rigged mesh in Node (models/secondary-NAME.{onnx,json}, written by
// `npm run train:secondary`), run by onnxruntime-node.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { SecondaryNetwork, type SecondaryModelInfo } from "../../shared/rig/rnn-character";
import type { OrtModule } from "../../shared/skinning";

/** Where the secondary-motion networks live: models/ (SKINNING_MODEL_DIR, which moves the skinning network, does not move them). */
export const SECONDARY_MODEL_DIRECTORY = path.resolve(import.meta.dirname, "../../models");

export interface SecondaryModelFiles {
  model: Uint8Array;
  info: SecondaryModelInfo;
}

/** The files of the network trained for `name` (a mesh's base name, e.g. "fox"); null when none was trained. */
export async function readSecondaryModel(name: string, directory = SECONDARY_MODEL_DIRECTORY): Promise<SecondaryModelFiles | null> {
  const base = path.join(directory, `secondary-${name}`);
  let model: Buffer;
  try {
    model = await readFile(`${base}.onnx`);
  } catch {
    return null;
  }
  const info = JSON.parse(await readFile(`${base}.json`, "utf8")) as SecondaryModelInfo;
  return { model: new Uint8Array(model), info };
}

/** A fresh network (its own hidden state) from the files. */
export async function createSecondaryNetwork(files: SecondaryModelFiles): Promise<SecondaryNetwork> {
  const ort = (await import("onnxruntime-node")) as unknown as OrtModule;
  return SecondaryNetwork.create(ort, files.model, files.info);
}

/** The mesh's base name a model is kept under: "../x/fox.glb" and "asset:fox" are both "fox". */
export function secondaryModelName(mesh: string): string {
  return path.basename(mesh.replace(/^asset:/, "")).replace(/\.[^.]*$/, "");
}
