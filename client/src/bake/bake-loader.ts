// The page's side of the bake worker: one request per hash, progress per hash for the loading UI.

import type { RenderInfluences } from "../../../shared/skinning";
import { fetchRuntimeWasm } from "../onnx-runtime";
import type { BakeReply, BakeStage, Inference, PageToWorker } from "./bake-messages";

export interface LoadedBake {
  bytes: Uint8Array;
  influences: RenderInfluences;
  cached: boolean;
  ms: number;
  /** The render weights were evaluated here from the fields' description (not downloaded). */
  weightsComputed: boolean;
  /** The skinning network decoded in this page for these weights (its own fields, or the refinement of a grid's). */
  inference?: Inference;
}

export interface BakeProgress {
  stage: BakeStage | "ready" | "error";
  fraction: number;
  message?: string;
}

export class BakeLoader {
  private worker: Worker | undefined;
  private readonly requests = new Map<string, { promise: Promise<LoadedBake>; resolve: (bake: LoadedBake) => void; reject: (error: Error) => void }>();
  private readonly loaded = new Map<string, LoadedBake>();
  readonly progress = new Map<string, BakeProgress>();
  private readonly listeners = new Set<() => void>();
  /** Counts bakes loaded or refined: what the scene re-renders on (progress alone does not change it). */
  version = 0;
  /** The page's latest decode of the skinning network (window.pliant.inference). */
  inference: Inference | null = null;

  constructor(private readonly baseUrl: string) {}

  /** The baked body bytes and GPU tables of a hash; loads once, later calls share the result. */
  load(hash: string): Promise<LoadedBake> {
    const existing = this.requests.get(hash);
    if (existing) return existing.promise;
    let resolve!: (bake: LoadedBake) => void, reject!: (error: Error) => void;
    const promise = new Promise<LoadedBake>((a, b) => { resolve = a; reject = b; });
    this.requests.set(hash, { promise, resolve, reject });
    this.setProgress(hash, { stage: "download", fraction: 0 });
    this.post({ type: "bake", hash, url: new URL(`bakes/${hash}`, this.baseUrl).href });
    return promise;
  }

  /** Already loaded (synchronous, for render code). */
  get(hash: string): LoadedBake | undefined {
    return this.loaded.get(hash);
  }

  /** A listener for every change (progress included); an arrow, so that it can be passed on unbound. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    this.worker = new Worker(new URL("./bake-worker.ts", import.meta.url), { type: "module", name: "pliant-bakes" });
    this.worker.onmessage = (event: MessageEvent<BakeReply>) => this.onReply(event.data);
    this.worker.onerror = (event) => {
      for (const [hash, request] of this.requests) {
        if (this.loaded.has(hash)) continue;
        this.setProgress(hash, { stage: "error", fraction: 0, message: event.message });
        request.reject(new Error(`bake worker failed: ${event.message}`));
      }
    };
    return this.worker;
  }

  private post(message: PageToWorker, transfer: Transferable[] = []): void {
    this.ensureWorker().postMessage(message, transfer);
  }

  /** The worker's copy of the runtime the page fetched (the page's own onnxruntime keeps the original). */
  private async sendRuntime(url: string): Promise<void> {
    try {
      const wasm = (await fetchRuntimeWasm(url)).slice(0);
      this.post({ type: "runtime", url, wasm }, [wasm]);
    } catch (error) {
      // The worker's decoder fails with this reason: its bodies keep the grid's weights, or say why they cannot load.
      this.post({ type: "runtime", url, error: error instanceof Error ? error.message : String(error) });
    }
  }

  private onReply(reply: BakeReply): void {
    if (reply.type === "runtime-wanted") {
      void this.sendRuntime(reply.url);
      return;
    }
    const request = this.requests.get(reply.hash);
    if (!request) return;
    if (reply.type === "progress") {
      this.setProgress(reply.hash, { stage: reply.stage, fraction: reply.fraction });
    } else if (reply.type === "ready") {
      const bake = { bytes: reply.bytes, influences: reply.influences, cached: reply.cached, ms: reply.ms, weightsComputed: reply.weightsComputed, ...(reply.inference ? { inference: reply.inference } : {}) };
      this.loaded.set(reply.hash, bake);
      if (reply.inference) this.inference = reply.inference;
      this.version++;
      this.setProgress(reply.hash, { stage: "ready", fraction: 1 });
      request.resolve(bake);
    } else if (reply.type === "refined") {
      const loaded = this.loaded.get(reply.hash);
      if (!loaded) return;
      // A new object for the same bake: the scene swaps the tables into the body's geometry.
      this.loaded.set(reply.hash, { ...loaded, influences: reply.influences, inference: reply.inference });
      this.inference = reply.inference;
      this.version++;
      for (const listener of this.listeners) listener();
    } else {
      this.setProgress(reply.hash, { stage: "error", fraction: 0, message: reply.message });
      this.requests.delete(reply.hash); // a later join may try again
      request.reject(new Error(reply.message));
    }
  }

  private setProgress(hash: string, progress: BakeProgress): void {
    this.progress.set(hash, progress);
    for (const listener of this.listeners) listener();
  }
}
