// The page's side of the springs worker: a character's spring model found off the page's frames (one worker, made
// when a character first needs springs; requests answered in turn, each given up after SPRING_MODEL_TIMEOUT_MS).

import type { SpringModelFinder } from "../../../shared/net/client-characters";
import type { PageSpringModel } from "../../../shared/rig/page-springs";
import type { SpringsReply, SpringsRequest } from "./springs-messages";

/** A request unanswered this long is given up (the character's flesh is then shown as snapshots have it), ms. */
const SPRING_MODEL_TIMEOUT_MS = 20_000;

let worker: Worker | undefined;
/** Why the worker could not run (it is not made again: every request would fail the same way). */
let broken: string | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (model: PageSpringModel) => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> }>();

function settle(id: number): { resolve: (model: PageSpringModel) => void; reject: (error: Error) => void } | undefined {
  const request = waiting.get(id);
  waiting.delete(id);
  if (request) clearTimeout(request.timer);
  return request;
}

function failAll(why: string): void {
  broken = why;
  worker?.terminate();
  worker = undefined;
  for (const id of [...waiting.keys()]) settle(id)?.reject(new Error(why));
}

function springsWorker(): Worker {
  if (worker) return worker;
  worker = new Worker(new URL("./springs-worker.ts", import.meta.url), { type: "module", name: "pliant-springs" });
  worker.onmessage = (event: MessageEvent<SpringsReply>) => {
    const reply = event.data, request = settle(reply.id);
    if ("error" in reply) request?.reject(new Error(reply.error));
    else request?.resolve(reply.model);
  };
  worker.onmessageerror = () => failAll("the springs worker's answer could not be read");
  // A module that fails to load fires a plain Event, without a message.
  worker.onerror = (event) => failAll(`the springs worker failed: ${(event as ErrorEvent).message ?? "it could not load"}`);
  return worker;
}

export const springModelOnWorker: SpringModelFinder = (baked, size) => new Promise<PageSpringModel>((resolve, reject) => {
  if (broken) return reject(new Error(broken));
  const id = nextId++;
  const timer = setTimeout(() => settle(id)?.reject(new Error(`no spring model within ${SPRING_MODEL_TIMEOUT_MS / 1000} s`)), SPRING_MODEL_TIMEOUT_MS);
  waiting.set(id, { resolve, reject, timer });
  try {
    springsWorker().postMessage({ id, baked, size } satisfies SpringsRequest);
  } catch (error) {
    settle(id)?.reject(error instanceof Error ? error : new Error(String(error)));
  }
});
