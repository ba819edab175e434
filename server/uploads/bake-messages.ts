// What the server's thread and its bake worker say to each other (server/uploads/baker.ts, bake-worker.ts).

import type { MeshFormat } from "../../shared/geometry";
import type { BodyShape } from "../../shared/scene/body-shape-cache";

export interface BakeJob {
  id: number;
  bytes: Uint8Array;
  format: MeshFormat;
  /** The fields to bake with (baseline, eigen or model) and their cache key. */
  weights: string;
  providerKey: string;
  fitCubature: boolean;
  /** The size the room will place it at (m): the worker builds its body shape for that size too. */
  size: number;
}

export type BakeWorkerReply =
  /** The file is a usable mesh: `hash` is the bake it will have. */
  | { id: number; type: "parsed"; hash: string; vertices: number; triangles: number }
  | { id: number; type: "progress"; stage: string; fraction: number }
  /**
   * The bake is in the cache (bakeByHash finds it), with its base-colour image when the file had one (a file name
   * there) and its body shape at the job's size, structured-cloned (adoptBodyShape).
   */
  | { id: number; type: "baked"; hash: string; fromCache: boolean; texture?: string; shape: BodyShape }
  /** `bad`: the file's fault (a 400); otherwise the server's. */
  | { id: number; type: "failed"; reason: string; bad: boolean };
