// The page's side of the springs worker: a character's spring model found off the page's frames (one worker, made
// when a character first needs springs; requests answered in turn).

import type { SpringModelMaker } from "../../../shared/net/client-characters";
import type { PageSpringModel } from "../../../shared/rig/page-springs";
import type { SpringsReply, SpringsRequest } from "./springs-messages";

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (springs: PageSpringModel) => void; reject: (error: Error) => void }>();

function springsWorker(): Worker {
  if (worker) return worker;
  worker = new Worker(new URL("./springs-worker.ts", import.meta.url), { type: "module", name: "pliant-springs" });
  worker.onmessage = (event: MessageEvent<SpringsReply>) => {
    const reply = event.data, request = waiting.get(reply.id);
    waiting.delete(reply.id);
    if ("error" in reply) request?.reject(new Error(reply.error));
    else request?.resolve(reply.springs);
  };
  worker.onerror = (event) => {
    for (const request of waiting.values()) request.reject(new Error(`the springs worker failed: ${event.message}`));
    waiting.clear();
    worker = undefined;
  };
  return worker;
}

export const workerSprings: SpringModelMaker = (baked, size) => new Promise<PageSpringModel>((resolve, reject) => {
  const id = nextId++;
  waiting.set(id, { resolve, reject });
  springsWorker().postMessage({ id, baked, size } satisfies SpringsRequest);
});
