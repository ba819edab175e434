// Messages between the page and its springs worker (springs-worker.ts).
import type { PageSpringModel } from "../../../shared/rig/page-springs";
import type { BakedBody } from "../../../shared/skinning";

export interface SpringsRequest {
  id: number;
  baked: BakedBody;
  size: number;
}

export type SpringsReply = { id: number; model: PageSpringModel } | { id: number; error: string };
