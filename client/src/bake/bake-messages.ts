// Messages between the page and the bake worker.
import type { RenderInfluences } from "../../../shared/skinning";

export interface BakeRequest {
  type: "bake";
  hash: string;
  /** Absolute URL of GET /bakes/<hash>. */
  url: string;
}

/**
 * The onnxruntime-web wasm at `url`, as the page fetched it (the worker asked with `runtime-wanted`), or why the page
 * could not fetch it.
 */
export type RuntimeBytes = { type: "runtime"; url: string; wasm: ArrayBuffer } | { type: "runtime"; url: string; error: string };

/** What the page sends the worker (what the worker sends back is a BakeReply). */
export type PageToWorker = BakeRequest | RuntimeBytes;

export type BakeStage = "download" | "fields" | "weights";

export type BakeReply =
  | { type: "progress"; hash: string; stage: BakeStage; fraction: number }
  | { type: "ready"; hash: string; bytes: Uint8Array; influences: RenderInfluences; cached: boolean; ms: number; weightsComputed: boolean; inference?: Inference }
  /** The render weights refined by the network (refined-fields.ts), after `ready`: new tables for the same mesh. */
  | { type: "refined"; hash: string; influences: RenderInfluences; inference: Inference }
  | { type: "error"; hash: string; message: string }
  /** The worker needs onnxruntime-web's wasm: the page sends it (RuntimeBytes) rather than the worker downloading it again. */
  | { type: "runtime-wanted"; url: string };

/** What decoding the skinning network in this page ran on, how long it took and how many points it answered. */
export interface Inference {
  provider: "webgpu" | "wasm";
  ms: number;
  queries: number;
}

/** Learned influences the renderer applies per vertex (all 16 of the default bake: see npm run bench:influences). */
export const RENDER_INFLUENCES = 16;
