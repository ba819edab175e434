// The process's baker: one worker thread (bake-worker.ts, started with the first upload) that parses and bakes
// uploaded meshes one at a time, off the rooms' ticks. A job is answered twice: once parsed (the file is a usable
// mesh, and which bake it will be), then baked. A worker that dies (a hostile file that exhausts its memory) or
// overruns BAKE_DEADLINE_MS fails the job it was on, and the others go to a new one.

import { Worker } from "node:worker_threads";
import type { MeshFormat } from "../../shared/geometry";
import type { BakeJob, BakeWorkerReply } from "./bake-messages";
import { adoptBodyShape } from "../../shared/scene";
import type { BodyShape } from "../../shared/scene/body-shape-cache";

/** The worker's own heap limit, MB: a file that needs more fails its upload, not the server. */
const WORKER_HEAP_MB = 3072;
/** A job still baking this long after it started is stopped (its worker too): one file cannot hold up the rest. */
export const BAKE_DEADLINE_MS = 60_000;

export class UploadError extends Error {
  /** `status`: the HTTP status the upload is answered with. */
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

export interface ParsedUpload {
  hash: string;
  vertices: number;
  triangles: number;
}

export interface BakedUpload {
  hash: string;
  fromCache: boolean;
  /** Its base-colour image's file in the bake cache (GET /uploaded-textures/<file>), if it has one. */
  texture?: string;
  /** Its subspace and proxy cover at the size asked for. */
  shape: BodyShape;
}

export interface BakeTicket {
  parsed: Promise<ParsedUpload>;
  baked: Promise<BakedUpload>;
}

interface Pending {
  job: BakeJob;
  /** When the worker started on it (0: waiting behind another). */
  startedAt: number;
  onProgress: (stage: string, fraction: number) => void;
  parsed: { resolve(value: ParsedUpload): void; reject(error: Error): void; done: boolean };
  baked: { resolve(value: BakedUpload): void; reject(error: Error): void };
}

export interface BakerSettings {
  weights: string;
  providerKey: string;
  fitCubature: boolean;
}

export class Baker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing = false;
  private watchdog: ReturnType<typeof setInterval> | undefined;
  /** Why the worker is being stopped (a deadline), told to the job it was on. */
  private stopReason: string | undefined;

  constructor(private readonly settings: BakerSettings) {}

  /** Jobs given to the worker and not finished (the one baking, and those waiting). */
  get jobs(): number {
    return this.pending.size;
  }

  /** Parses and bakes a file, and builds its body's shape at `size` (m). */
  bake(bytes: Uint8Array, format: MeshFormat, size: number, onProgress: (stage: string, fraction: number) => void): BakeTicket {
    const id = this.nextId++;
    let pending!: Pending;
    const parsed = new Promise<ParsedUpload>((resolve, reject) => {
      pending = { job: undefined!, startedAt: 0, onProgress, parsed: { resolve, reject, done: false }, baked: undefined! };
    });
    const baked = new Promise<BakedUpload>((resolve, reject) => {
      pending.baked = { resolve, reject };
    });
    // Whoever waits for `parsed` only still gets a rejected `baked` handled.
    baked.catch(() => undefined);
    pending.job = { id, bytes, format, weights: this.settings.weights, providerKey: this.settings.providerKey, fitCubature: this.settings.fitCubature, size };
    this.pending.set(id, pending);
    this.ensureWorker().postMessage(pending.job);
    this.startNext();
    return { parsed, baked };
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.watchdog);
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
    for (const job of this.pending.values()) {
      const error = new UploadError("the server is shutting down", 503);
      if (!job.parsed.done) job.parsed.reject(error);
      job.baked.reject(error);
    }
    this.pending.clear();
  }

  /** The job first in line is the one the worker is on: its deadline runs from now. */
  private startNext(): void {
    const first = this.pending.values().next().value;
    if (first && first.startedAt === 0) first.startedAt = Date.now();
    if (first && !this.watchdog) {
      this.watchdog = setInterval(() => this.checkDeadline(), 1000);
      this.watchdog.unref();
    } else if (!first && this.watchdog) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
    }
  }

  private checkDeadline(): void {
    const first = this.pending.values().next().value;
    if (!first || !this.worker || Date.now() - first.startedAt < BAKE_DEADLINE_MS) return;
    this.stopReason = `the bake took longer than ${BAKE_DEADLINE_MS / 1000} s`;
    void this.worker.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL("./bake-worker-entry.mjs", import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    worker.unref();
    worker.on("message", (reply: BakeWorkerReply) => this.onReply(reply));
    worker.on("error", (error) => this.workerDied(`the baker stopped: ${error.message}`, worker));
    worker.on("exit", (code) => this.workerDied(`the baker stopped (exit code ${code})`, worker));
    this.worker = worker;
    return worker;
  }

  private onReply(reply: BakeWorkerReply): void {
    const job = this.pending.get(reply.id);
    if (!job) return;
    switch (reply.type) {
      case "parsed":
        job.parsed.done = true;
        job.parsed.resolve({ hash: reply.hash, vertices: reply.vertices, triangles: reply.triangles });
        return;
      case "progress":
        job.onProgress(reply.stage, reply.fraction);
        return;
      case "baked":
        this.pending.delete(reply.id);
        this.startNext();
        job.baked.resolve({ hash: reply.hash, fromCache: reply.fromCache, texture: reply.texture, shape: adoptBodyShape(reply.shape) });
        return;
      case "failed": {
        this.pending.delete(reply.id);
        this.startNext();
        const error = new UploadError(reply.reason, reply.bad ? 400 : 500);
        if (!job.parsed.done) job.parsed.reject(error);
        job.baked.reject(error);
      }
    }
  }

  /**
   * The worker died (or was closed): the job it was on fails, as the file that killed it; the jobs waiting behind
   * it go to a new worker.
   */
  private workerDied(reason: string, worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const first = this.pending.keys().next();
    if (first.done) return;
    const job = this.pending.get(first.value)!;
    this.pending.delete(first.value);
    const error = new UploadError(this.stopReason ?? `${reason} while baking this file; it may be too large or malformed`, 400);
    this.stopReason = undefined;
    for (const waiting of this.pending.values()) waiting.startedAt = 0;
    this.startNext();
    if (!job.parsed.done) job.parsed.reject(error);
    job.baked.reject(error);
    if (this.closing) return;
    for (const waiting of this.pending.values()) this.ensureWorker().postMessage(waiting.job);
  }
}
