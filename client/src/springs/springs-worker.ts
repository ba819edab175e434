// The page's worker that finds characters' spring models (shared/rig/page-springs.ts): a fifth of a second or more of
// eigensolves a visitor's character would otherwise take from the frames of every page when it arrives.

import { pageSpringBuffers, pageSpringModel } from "../../../shared/rig/page-springs";
import type { SpringsReply, SpringsRequest } from "./springs-messages";

const post = (reply: SpringsReply, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(reply, transfer);

self.onmessage = (event: MessageEvent<SpringsRequest>) => {
  const { id, baked, size } = event.data;
  try {
    const model = pageSpringModel(baked, size);
    post({ id, model }, pageSpringBuffers(model));
  } catch (error) {
    post({ id, error: error instanceof Error ? error.message : String(error) });
  }
};
