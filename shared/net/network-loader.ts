// A character's secondary-motion network as a client opens it: fetched from the room's server and opened in the
// client's onnxruntime (a page's, or Node's in tests and tools).

import { SecondaryNetwork, type SecondaryModelInfo } from "../rig/rnn-character";
import type { OrtModule } from "../skinning/onnx-provider";
import type { NetworkLoader } from "./client-characters";

/** Fetches a secondary-motion network (GET /models/NAME.onnx and .json from `http`) and opens it in `ort`. */
export function networkLoader(loadOrt: () => Promise<OrtModule>, http: string, executionProviders?: string[] | (() => Promise<string[]>)): NetworkLoader {
  return async (name) => {
    const ort = await loadOrt();
    const providers = typeof executionProviders === "function" ? await executionProviders() : executionProviders;
    const [model, info] = await Promise.all([`${http}/models/${name}.onnx`, `${http}/models/${name}.json`].map(async (url) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      return url.endsWith(".json") ? response.json() : new Uint8Array(await response.arrayBuffer());
    }));
    // A page's onnxruntime-web takes one request at a time: its characters' networks take turns.
    const network = await SecondaryNetwork.create(ort, model as Uint8Array, info as SecondaryModelInfo, providers, { inTurns: true });
    if (network.declined.length) console.warn(`${name} runs on ${network.provider}: ${network.declined.join("; ")}`);
    return network;
  };
}
