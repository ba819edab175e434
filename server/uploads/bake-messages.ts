// What the server's thread and its upload workers say to each other (server/uploads/baker.ts, bake-worker.ts).
// Two workers run the same code: one reads files (parse, hash, and a bake already in the cache finished at once),
// the other bakes, so that reading a file never waits behind the bakes queued before it.

import type { MeshFormat, TriangleMesh } from "../../shared/geometry";
import type { BodyShape } from "../../shared/scene/body-shape-cache";

/** What both kinds of job say about the bake they are for. */
interface JobBase {
  id: number;
  /** The file as sent (a glTF's base-colour image is read from it when the body is finished). */
  bytes: Uint8Array;
  format: MeshFormat;
  /** The fields to bake with (baseline, eigen or model) and their cache key. */
  weights: string;
  providerKey: string;
  fitCubature: boolean;
  /** The size the room will place it at (m): the worker builds its body shape for that size too. */
  size: number;
}

/** Parse the file and hash its bake; a bake the cache holds is finished by the reader too. */
export interface ReadJob extends JobBase {
  kind: "read";
}

/** Bake a mesh the reader parsed. */
export interface BakeJob extends JobBase {
  kind: "bake";
  mesh: TriangleMesh;
}

/**
 * Get ready for the first upload (sent once, at the server's start, when it warms its workers): load the fields'
 * provider (the network's session) and bake a small box, so that the first visitor's file does not pay for
 * loading code, the network and the compiler's first passes over the bake. Its result is thrown away.
 */
export interface WarmJob {
  kind: "warm";
  weights: string;
  fitCubature: boolean;
}

export type WorkerJob = ReadJob | BakeJob;
/** Asks a worker to end: it refuses new inference, waits for the runs in flight, and exits (native-runs.ts). */
export interface StopMessage { kind: "stop" }

export type BakeWorkerReply =
  /** The worker's thread (its Linux task id, or 0 where there is none): the baker reads its CPU time. */
  | { id: 0; type: "thread"; task: number }
  /** The warm-up is over: `ok` false when it failed (the first upload then loads what it needs itself). */
  | { id: 0; type: "warmed"; ok: boolean }
  /**
   * The file is a usable mesh: `hash` is the bake it will have, `character` whether it is rigged (it becomes a
   * character). `mesh` (the parsed mesh) when it must be baked; without it the bake is in the cache, and the
   * reader's `baked` follows.
   */
  | { id: number; type: "parsed"; hash: string; vertices: number; triangles: number; character: boolean; mesh?: TriangleMesh }
  | { id: number; type: "progress"; stage: string; fraction: number }
  /**
   * The bake is in the cache (bakeByHash finds it), with its base-colour image when the file had one (a file name
   * there) and its body shape at the job's size, structured-cloned (adoptBodyShape).
   */
  | { id: number; type: "baked"; hash: string; fromCache: boolean; texture?: string; shape: BodyShape; shapeSize: number }
  /** `bad`: the file's fault (a 400); otherwise the server's. */
  | { id: number; type: "failed"; reason: string; bad: boolean };
