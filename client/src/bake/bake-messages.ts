// Messages between the page and the bake worker.
import type { RenderInfluences } from "../../../shared/skinning";

export interface BakeRequest {
  hash: string;
  /** Absolute URL of GET /bakes/<hash>. */
  url: string;
}

export type BakeStage = "download" | "fields" | "weights";

export type BakeReply =
  | { type: "progress"; hash: string; stage: BakeStage; fraction: number }
  | { type: "ready"; hash: string; bytes: Uint8Array; influences: RenderInfluences; cached: boolean; ms: number; weightsComputed: boolean }
  | { type: "error"; hash: string; message: string };

/** Learned influences the renderer applies per vertex (all 16 of the default bake: see npm run bench:influences). */
export const RENDER_INFLUENCES = 16;
