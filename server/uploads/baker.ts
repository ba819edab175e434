// The process's baker: two worker threads (worker-lane.ts, started with the first upload or by warm()), one that reads uploaded
// files and one that bakes them, one at a time in the order they came, off the rooms' ticks. A job is answered
// twice: once parsed (the file is a usable mesh, and which bake it will be), then baked. Reading never waits
// behind bakes, so the answer to an upload comes as soon as its file is read; a bake the cache holds is finished
// by the reader, never queued. While a job waits and bakes, its status (its place in line and an estimate of the
// time left) is told again every STATUS_EVERY_MS, which is also how rooms know the baker is alive. A bake is never
// stopped for the time it takes (a busy machine is not the file's fault), only for the work it has done: more than
// UPLOAD_LIMITS.bakeCpuSeconds of its thread's CPU time.

import type { MeshFormat } from "../../shared/geometry";
import { UPLOAD_LIMITS } from "../../shared/net";
import type { BakeWorkerReply } from "./bake-messages";
import { adoptBodyShape } from "../../shared/scene";
import type { BodyShape } from "../../shared/scene/body-shape-cache";
import { WorkerLane } from "./worker-lane";

/** How often every job's status is told again, ms. */
export const STATUS_EVERY_MS = 2000;
/**
 * How often each worker's CPU time is checked against its limit, ms: often, so that a costly file is stopped close
 * to its limit (a /proc read each time), and so that a bake shorter than the status period is still checked.
 */
const WORK_CHECK_EVERY_MS = 250;
const CHECKS_PER_STATUS = Math.round(STATUS_EVERY_MS / WORK_CHECK_EVERY_MS);

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
  /** Rigged: it becomes a character, not a body. */
  character: boolean;
}

export interface BakedUpload {
  hash: string;
  fromCache: boolean;
  /** Its base-colour image's file in the bake cache (GET /uploaded-textures/<file>), if it has one. */
  texture?: string;
  /** Its subspace and proxy cover at the size asked for (a rigged one: at a character's size), `shapeSize` m. */
  shape: BodyShape;
  shapeSize: number;
}

/** Where an upload's bake stands, as its placeholder shows it (UploadState). */
export interface BakeStatus {
  /** "queued" while it waits, then the bake's stage. */
  stage: string;
  progress: number;
  /** Bakes ahead of it in this process's line, the one being baked included; 0 once its own bake runs. */
  ahead: number;
  /** Estimated seconds until it is baked, from this process's recent bakes; 0 while none has been timed. */
  secondsLeft: number;
}

export interface BakeTicket {
  parsed: Promise<ParsedUpload>;
  baked: Promise<BakedUpload>;
}

interface Pending {
  bytes: Uint8Array;
  format: MeshFormat;
  size: number;
  status: BakeStatus;
  onStatus: (status: BakeStatus) => void;
  parsed: { resolve(value: ParsedUpload): void; reject(error: Error): void; done: boolean };
  baked: { resolve(value: BakedUpload): void; reject(error: Error): void };
}

export interface BakerSettings {
  weights: string;
  providerKey: string;
  fitCubature: boolean;
  /** CPU seconds a worker may spend on one file (default UPLOAD_LIMITS.bakeCpuSeconds). */
  cpuLimitSeconds?: number;
}

export class Baker {
  private readonly pending = new Map<number, Pending>();
  private readonly reader: WorkerLane;
  private readonly baking: WorkerLane;
  private nextId = 1;
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private checks = 0;
  /** Seconds a bake has been taking here lately (a running mean of the last few; 0 before the first). */
  private typicalBakeSeconds = 0;
  private warmed: Promise<boolean> | undefined;
  private onWarmed: (ok: boolean) => void = () => {};

  constructor(private readonly settings: BakerSettings) {
    const limit = settings.cpuLimitSeconds ?? UPLOAD_LIMITS.bakeCpuSeconds;
    const events = {
      reply: (reply: BakeWorkerReply, seconds: number) => this.onReply(reply, seconds),
      died: (id: number, reason: string) => {
        this.fail(id, new UploadError(reason, 400));
        this.tellPlaces();
      },
    };
    this.reader = new WorkerLane(events, limit);
    this.baking = new WorkerLane(events, limit);
  }

  /** Jobs given to the workers and not finished (being read, baking, and waiting). */
  get jobs(): number {
    return this.pending.size;
  }

  /**
   * Parses and bakes a file, and builds its body's shape at `size` (m). `onStatus` hears where it stands: its
   * place in line while it waits, its stage while it bakes, again and again until it is done.
   */
  bake(bytes: Uint8Array, format: MeshFormat, size: number, onStatus: (status: BakeStatus) => void): BakeTicket {
    const id = this.nextId++;
    let pending!: Pending;
    const parsed = new Promise<ParsedUpload>((resolve, reject) => {
      pending = { bytes, format, size, onStatus, status: { stage: "queued", progress: 0, ahead: 0, secondsLeft: 0 }, parsed: { resolve, reject, done: false }, baked: undefined! };
    });
    const baked = new Promise<BakedUpload>((resolve, reject) => {
      pending.baked = { resolve, reject };
    });
    // Whoever waits for `parsed` only still gets a rejected `baked` handled.
    baked.catch(() => undefined);
    this.pending.set(id, pending);
    this.reader.add({ kind: "read", id, bytes, format, ...this.jobSettings(), size });
    if (!this.watchdog) {
      this.checks = 0;
      this.watchdog = setInterval(() => this.onWatch(), WORK_CHECK_EVERY_MS);
      this.watchdog.unref();
    }
    return { parsed, baked };
  }

  /**
   * Starts both workers now and has the baker warm up (the fields' provider loaded, a small box baked), so that the
   * first upload is as quick as the next. Without it the workers start with the first upload, which then waits
   * for them (several seconds). Settles true once warmed up, false when the warm-up failed or was stopped.
   */
  warm(): Promise<boolean> {
    if (!this.warmed) {
      this.warmed = new Promise<boolean>((resolve) => (this.onWarmed = resolve));
      this.reader.start();
      this.baking.start({ kind: "warm", weights: this.settings.weights, fitCubature: this.settings.fitCubature });
    }
    return this.warmed;
  }

  async close(): Promise<void> {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
    await Promise.all([this.reader.close(), this.baking.close()]);
    this.onWarmed(false);
    for (const id of [...this.pending.keys()]) this.fail(id, new UploadError("the server is shutting down", 503));
  }

  private jobSettings() {
    return { weights: this.settings.weights, providerKey: this.settings.providerKey, fitCubature: this.settings.fitCubature };
  }

  private onWatch(): void {
    this.reader.checkWork();
    this.baking.checkWork();
    if (++this.checks % CHECKS_PER_STATUS === 0) this.tellPlaces();
    if (this.pending.size === 0) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
    }
  }

  /** Tells every job in the bake line its place and the time it may take (and that the baker is alive). */
  private tellPlaces(): void {
    const typical = this.typicalBakeSeconds, firstLeft = Math.max(0, typical - this.baking.firstElapsedSeconds);
    this.baking.ids.forEach((id, ahead) => {
      const job = this.pending.get(id);
      if (!job) return;
      job.status.ahead = ahead;
      job.status.secondsLeft = typical > 0 ? firstLeft + ahead * typical : 0;
      job.onStatus({ ...job.status });
    });
  }

  private onReply(reply: BakeWorkerReply, seconds: number): void {
    if (reply.type === "warmed") return this.onWarmed(reply.ok);
    const job = this.pending.get(reply.id);
    if (!job) return;
    switch (reply.type) {
      case "parsed":
        job.parsed.done = true;
        job.parsed.resolve({ hash: reply.hash, vertices: reply.vertices, triangles: reply.triangles, character: reply.character });
        if (reply.mesh) {
          this.baking.add({ kind: "bake", id: reply.id, bytes: job.bytes, format: job.format, ...this.jobSettings(), size: job.size, mesh: reply.mesh });
          this.tellPlaces();
        }
        return;
      case "progress":
        job.status.stage = reply.stage;
        job.status.progress = reply.fraction;
        job.status.ahead = 0;
        job.status.secondsLeft = this.typicalBakeSeconds > 0 ? Math.max(0, this.typicalBakeSeconds - this.baking.firstElapsedSeconds) : 0;
        job.onStatus({ ...job.status });
        return;
      case "baked":
        if (!reply.fromCache) {
          this.typicalBakeSeconds = this.typicalBakeSeconds > 0 ? 0.5 * (this.typicalBakeSeconds + seconds) : seconds;
        }
        this.pending.delete(reply.id);
        job.baked.resolve({ hash: reply.hash, fromCache: reply.fromCache, texture: reply.texture, shape: adoptBodyShape(reply.shape), shapeSize: reply.shapeSize });
        this.tellPlaces();
        return;
      case "failed":
        this.fail(reply.id, new UploadError(reply.reason, reply.bad ? 400 : 500));
        this.tellPlaces();
    }
  }

  private fail(id: number, error: UploadError): void {
    const job = this.pending.get(id);
    if (!job) return;
    this.pending.delete(id);
    if (!job.parsed.done) job.parsed.reject(error);
    job.baked.reject(error);
  }
}
