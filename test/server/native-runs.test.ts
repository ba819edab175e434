// An upload's bake worker running the skinning network in onnxruntime-node must be stoppable without taking the
// server with it: Worker.terminate() while a native run is in flight aborts the whole process (seen once in a full
// run with SKINNING=model: "terminate called after throwing an instance of 'Napi::Error'"). Each case runs in a
// process of its own (fixtures/inference-loop.mjs), so that the abort it shows cannot take the test runner with it.

import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";

const FIXTURE = path.resolve(import.meta.dirname, "fixtures/inference-loop.mjs");
// The fixture ended with "terminate" instead aborts (exit 134, that message): the lanes must not terminate first.
const endWorker = (how: "stop" | "terminate") => spawnSync(process.execPath, [FIXTURE, how], { encoding: "utf8", timeout: 120_000 });

it("a worker running the network, stopped as the upload lanes stop theirs, ends and its process goes on", () => {
  const stopped = endWorker("stop");
  expect(stopped.stderr).not.toContain("Napi::Error");
  expect(stopped.stdout).toContain("survived");
  expect(stopped.status).toBe(0);
}, 180_000);
