// `npm run train:secondary -- --smoke`: the whole pipeline for a rigged mesh on a tiny budget (the solver's data at
// one size, 20 steps of Debian's torch, the ONNX export), without touching the shipped network: what it writes goes
// to a temporary directory, onnxruntime-node runs it, and it reproduces its own parity fixture.

import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { createSecondaryNetwork, readSecondaryModel, SECONDARY_MODEL_DIRECTORY } from "../../server/characters/secondary-model";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const FOX = path.resolve(ROOT, "../shared/assets/characters/fox.glb");

const digest = async (file: string) => createHash("sha256").update(await readFile(file)).digest("hex");

it("a smoke run trains and exports a network that onnxruntime runs, and leaves the shipped one alone", async () => {
  const shipped = path.join(SECONDARY_MODEL_DIRECTORY, "secondary-fox.onnx"), before = await digest(shipped);
  const { stdout } = await run("npx", ["tsx", "server/cli/train-secondary.ts", "--mesh", FOX, "--smoke"], { cwd: ROOT, timeout: 280_000, maxBuffer: 1 << 24 });
  // The exporter's last line names what it wrote.
  const written = JSON.parse(stdout.trim().split("\n").pop()!) as { onnx: string; parameters: number };
  const directory = path.dirname(written.onnx);
  expect(directory.startsWith(tmpdir())).toBe(true);
  expect(await digest(shipped)).toBe(before);

  const files = (await readSecondaryModel("fox", directory))!;
  expect(files.info.sizes).toEqual([0.8]);
  expect(files.info.featureCount).toBe(577);
  expect(files.info.n).toBe(204);
  const parity = JSON.parse(await readFile(path.join(directory, "secondary-fox-parity.json"), "utf8")) as { steps: number; features: number[]; q: number[] };
  const network = await createSecondaryNetwork(files);
  try {
    const q = await network.run(Float32Array.from(parity.features), parity.steps);
    const scale = Math.max(1e-12, ...parity.q.map(Math.abs));
    expect(q.length).toBe(parity.q.length);
    expect(q.every(Number.isFinite)).toBe(true);
    for (let i = 0; i < q.length; i++) expect(Math.abs(q[i] - parity.q[i]) / scale).toBeLessThan(1e-4);
  } finally {
    await network.release();
    // The smoke run's data and network (<tmp>/pliant-secondary-smoke-PID/out).
    await rm(path.dirname(directory), { recursive: true, force: true });
  }
}, 300_000);
