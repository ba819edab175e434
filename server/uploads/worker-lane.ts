// One upload worker thread (bake-worker.ts) and the jobs given to it, worked through in order: the first is the
// one it is on. A job is stopped for the work it has done, never for the time it has waited: when the thread has
// spent more than its CPU-time limit on one job (a file whose bake would never end). A worker that dies (a hostile
// file that exhausts its memory, or one stopped) fails the job it was on, and the others go to a new one.

import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { BakeWorkerReply, StopMessage, WarmJob, WorkerJob } from "./bake-messages";

/** A worker's own heap limit, MB: a file that needs more fails its upload, not the server. */
const WORKER_HEAP_MB = 3072;
/**
 * How long a worker asked to stop may take to end by itself (ms): it waits for its inference in flight, a batch of
 * well under a second. Past this it is busy in its own code, with no native run in flight, and is terminated.
 */
const STOP_GRACE_MS = 5000;
/** Linux's clock ticks per second in /proc's CPU times (USER_HZ, 100 on every architecture Node runs on). */
const CLOCK_TICKS = 100;

interface LaneJob {
  message: WorkerJob;
  /** performance.now() when the worker started on it (0: waiting behind another). */
  startedAt: number;
  /** The thread's CPU seconds when it started on it (NaN: not known yet). */
  cpuAtStart: number;
}

export interface LaneEvents {
  /** A reply about a job; `seconds`: how long the worker had been on it. */
  reply(reply: BakeWorkerReply, seconds: number): void;
  /** The job `id` failed with its worker: `reason` says why. */
  died(id: number, reason: string): void;
}

export class WorkerLane {
  private readonly jobs = new Map<number, LaneJob>();
  private worker: Worker | undefined;
  /** The worker thread's Linux task id (0: unknown, no CPU limit). */
  private task = 0;
  /** Why the worker is being stopped (too much CPU time), told to the job it was on. */
  private stopReason: string | undefined;
  private closing = false;
  /** The worker is on its warm-up: a job that comes meanwhile waits, and its work counts from the warm-up's end. */
  private warming = false;

  constructor(private readonly events: LaneEvents, private readonly cpuLimitSeconds: number) {}

  /** The jobs in line, the one the worker is on first. */
  get ids(): number[] {
    return [...this.jobs.keys()];
  }

  /** Seconds since the worker started on the job first in line (0 when none). */
  get firstElapsedSeconds(): number {
    const first = this.jobs.values().next().value;
    return first && first.startedAt > 0 ? (performance.now() - first.startedAt) / 1000 : 0;
  }

  add(message: WorkerJob): void {
    this.jobs.set(message.id, { message, startedAt: 0, cpuAtStart: Number.NaN });
    this.ensureWorker().postMessage(message);
    this.startFirst();
  }

  /**
   * Starts the worker now rather than with the first job, and gives it `warmUp` to do first when there is one. A
   * job that comes meanwhile waits for the warm-up (a second or two, once).
   */
  start(warmUp?: WarmJob): void {
    if (this.closing) return;
    const worker = this.ensureWorker();
    if (!warmUp) return;
    this.warming = true;
    worker.postMessage(warmUp);
  }

  /** A job left this worker (done, failed, or handed on). */
  remove(id: number): void {
    if (this.jobs.delete(id)) this.startFirst();
  }

  /** Stops the job first in line if its worker has spent more than the limit on it. */
  checkWork(): void {
    const first = this.jobs.values().next().value;
    if (!first || !this.worker || first.startedAt === 0 || this.stopReason) return;
    if (Number.isNaN(first.cpuAtStart)) first.cpuAtStart = this.cpuSeconds();
    const used = this.cpuSeconds() - first.cpuAtStart;
    if (!(used > this.cpuLimitSeconds)) return;
    this.stopReason = `its bake was stopped after ${Math.round(used)} s of computing time (the limit is ${this.cpuLimitSeconds} s): the file is too costly to bake`;
    void stopWorker(this.worker);
  }

  async close(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await stopWorker(worker);
    this.jobs.clear();
  }

  /** The job first in line is the one the worker is on: its work counts from now. */
  private startFirst(): void {
    const first = this.jobs.values().next().value;
    if (!first || first.startedAt > 0 || this.warming) return;
    first.startedAt = performance.now();
    first.cpuAtStart = this.cpuSeconds();
  }

  /** The worker thread's CPU time so far, s (NaN where the platform does not tell: Linux's /proc does). */
  private cpuSeconds(): number {
    if (!this.task) return Number.NaN;
    try {
      const stat = readFileSync(`/proc/self/task/${this.task}/stat`, "utf8");
      // Fields after the command name (which may hold spaces): state is the 3rd field, utime the 14th, stime the 15th.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      return Number.NaN;
    }
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL("./bake-worker-entry.mjs", import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    worker.unref();
    this.task = 0;
    worker.on("message", (reply: BakeWorkerReply) => this.onReply(reply, worker));
    worker.on("error", (error) => this.workerDied(`the baker stopped: ${error.message}`, worker));
    worker.on("exit", (code) => this.workerDied(`the baker stopped (exit code ${code})`, worker));
    this.worker = worker;
    return worker;
  }

  private onReply(reply: BakeWorkerReply, worker: Worker): void {
    if (this.worker !== worker) return;
    if (reply.type === "thread") {
      this.task = reply.task;
      // A new worker's first job counts its work from now (loading the worker's code is not the file's).
      const first = this.jobs.values().next().value;
      if (first && first.startedAt > 0) first.cpuAtStart = this.cpuSeconds();
      return;
    }
    if (reply.type === "warmed") {
      this.warming = false;
      this.startFirst();
    }
    const job = this.jobs.get(reply.id);
    const seconds = job && job.startedAt > 0 ? (performance.now() - job.startedAt) / 1000 : 0;
    // A job leaves this worker when it is through with it: finished, failed, or parsed and handed to the baker.
    if (reply.type === "baked" || reply.type === "failed" || (reply.type === "parsed" && reply.mesh)) this.remove(reply.id);
    this.events.reply(reply, seconds);
  }

  /**
   * The worker died (or was stopped): the job it was on fails, as the file that killed it; the jobs waiting behind
   * it go to a new worker.
   */
  private workerDied(reason: string, worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    if (this.warming) {
      // It died on its warm-up, not on a file: the jobs waiting go to a new worker, which loads what it needs itself.
      this.warming = false;
      this.stopReason = undefined;
      this.events.reply({ id: 0, type: "warmed", ok: false }, 0);
      if (this.closing || this.jobs.size === 0) return;
      for (const waiting of this.jobs.values()) this.ensureWorker().postMessage(waiting.message);
      this.startFirst();
      return;
    }
    const first = this.jobs.keys().next();
    const why = this.stopReason ?? `${reason} while working on this file; it may be too large or malformed`;
    this.stopReason = undefined;
    if (first.done) return;
    this.jobs.delete(first.value);
    for (const waiting of this.jobs.values()) waiting.startedAt = 0;
    this.events.died(first.value, why);
    if (this.closing || this.jobs.size === 0) return;
    for (const waiting of this.jobs.values()) this.ensureWorker().postMessage(waiting.message);
    this.startFirst();
  }
}

/**
 * Ends a worker without aborting the process: terminating a thread while onnxruntime-node runs in it throws past
 * the thread's end (native-runs.ts), so it is asked first, and terminated only if it has not ended in STOP_GRACE_MS.
 */
export async function stopWorker(worker: Worker): Promise<void> {
  if (worker.threadId < 0) return;
  const ended = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.postMessage({ kind: "stop" } satisfies StopMessage);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), STOP_GRACE_MS)));
  if ((await Promise.race([ended, late])) === "late") await worker.terminate();
  clearTimeout(timer);
}
