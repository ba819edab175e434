// The shipped secondary-motion network (models/secondary-fox.*) in onnxruntime-node: it reproduces torch's answers,
// stepping it one step a run gives what a run of many steps gives (the room queues its ticks that way), and ten
// minutes of looping clips (Walk, Run, Survey, 20 s each, ten times over) neither blow up nor drift: once the
// network has seen the loop, every later pass of it gives the same flesh as the second one.

import path from "node:path";
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { RigMotion, surfaceRms } from "../../shared/rig";
import { RnnCharacter, SecondaryNetwork, writeSecondaryFeatures } from "../../shared/rig/rnn-character";
import type { OrtModule } from "../../shared/skinning";
import { Subspace } from "../../shared/sim";
import { toSubspaceSource } from "../../shared/skinning";
import { rigOf } from "../../shared/skinning/baked-rig";
import { createSecondaryNetwork, readSecondaryModel } from "../../server/characters/secondary-model";
import { loadBody } from "../../server/scenarios/body-from-mesh";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");
const MODELS = path.resolve(import.meta.dirname, "../../models");
const SIZE = 0.8;

it("onnxruntime reproduces torch's answers and hidden state", async () => {
  const files = (await readSecondaryModel("fox"))!;
  expect(files).not.toBeNull();
  const parity = JSON.parse(await readFile(path.join(MODELS, "secondary-fox-parity.json"), "utf8")) as { steps: number; features: number[]; q: number[]; hiddenOut: number[] };
  const network = await createSecondaryNetwork(files);
  const q = await network.run(Float32Array.from(parity.features), parity.steps);
  const scale = Math.max(...parity.q.map(Math.abs));
  let worst = 0;
  for (let i = 0; i < q.length; i++) worst = Math.max(worst, Math.abs(q[i] - parity.q[i]) / scale);
  expect(q.length).toBe(parity.q.length);
  expect(worst).toBeLessThan(1e-4);
  await network.release();
});

it("opened on a list of execution providers, the network runs on the first the runtime has, and says which", async () => {
  const files = (await readSecondaryModel("fox"))!;
  const ort = (await import("onnxruntime-node")) as unknown as OrtModule;
  const network = await SecondaryNetwork.create(ort, files.model, files.info, ["no-such-provider", "cpu"]);
  expect(network.provider).toBe("cpu");
  const parity = JSON.parse(await readFile(path.join(MODELS, "secondary-fox-parity.json"), "utf8")) as { steps: number; features: number[]; q: number[] };
  const q = await network.run(Float32Array.from(parity.features), parity.steps);
  const scale = Math.max(...parity.q.map(Math.abs));
  expect(Math.max(...Array.from(q, (v, i) => Math.abs(v - parity.q[i]))) / scale).toBeLessThan(1e-4);
  expect(network.runs).toBe(1);
  await network.release();
  await expect(SecondaryNetwork.create(ort, files.model, files.info, ["no-such-provider"])).rejects.toThrow();
});

it("ten minutes of looping clips: finite, bounded, and the same flesh on every pass of the loop", async () => {
  const loaded = await loadBody({ mesh: FOX, weights: "eigen", handles: 16, cubature: 256, size: SIZE });
  const files = (await readSecondaryModel("fox"))!;
  const rig = rigOf(loaded.baked)!, info = files.info, dt = info.dt, F = info.featureCount, n = info.n;
  const subspace = new Subspace(toSubspaceSource(loaded.baked, SIZE));
  const clips = ["Walk", "Run", "Survey"].map((name) => rig.clips.find((c) => c.name === name)!);
  const segment = Math.round(20 / dt), loop = 3 * segment, loops = 10, steps = loops * loop;
  // The rig's motion for all ten minutes (what the network reads does not depend on what it answers).
  const motion = new RigMotion(rig, loaded.baked, SIZE), features = new Float32Array(steps * F);
  for (let step = 0; step < steps; step++) {
    const within = step % loop, clip = clips[Math.floor(within / segment)];
    motion.pose.sample(clip, (((within % segment) + 1) * dt) % clip.duration);
    motion.advance();
    writeSecondaryFeatures(motion, SIZE, dt, features, step * F);
  }
  // Step by step, as a page or a room without a backlog runs it, for the first seconds...
  const stepped = new RnnCharacter(loaded.baked, SIZE, await createSecondaryNetwork(files));
  const first: Float64Array[] = [];
  for (let step = 0; step < 120; step++) {
    const clip = clips[0];
    stepped.pose.sample(clip, ((step + 1) * dt) % clip.duration);
    await stepped.step();
    first.push(Float64Array.from(stepped.q));
  }
  // ...then in runs of 600 steps, carrying the hidden state, for the whole ten minutes.
  const network = await createSecondaryNetwork(files), q = new Float32Array(steps * n);
  for (let start = 0; start < steps; start += 600) q.set(await network.run(features.subarray(start * F, (start + 600) * F), 600), start * n);
  const at = (step: number) => Float64Array.from(q.subarray(step * n, (step + 1) * n));
  const difference = (a: Float64Array, b: Float64Array) => surfaceRms(subspace, a.map((v, i) => v - b[i]));
  let steppedGap = 0;
  for (let step = 0; step < first.length; step++) steppedGap = Math.max(steppedGap, difference(first[step], at(step)));

  const peaks: number[] = [], drift: number[] = [];
  for (let l = 0; l < loops; l++) {
    let peak = 0, gap = 0;
    for (let step = l * loop; step < (l + 1) * loop; step++) {
      const rms = surfaceRms(subspace, at(step));
      peak = Math.max(peak, Number.isFinite(rms) ? rms : Infinity);
      if (l >= 2) gap = Math.max(gap, difference(at(step), at(step - (l - 1) * loop)));
    }
    peaks.push(peak);
    drift.push(gap);
  }
  console.info(`secondary network, 10 min of loops: step-by-step vs runs of 600 ${(1000 * steppedGap).toExponential(2)} mm; peak soft RMS per minute ${peaks.map((p) => (1000 * p).toFixed(2)).join(", ")} mm; largest gap to the second minute ${drift.slice(2).map((d) => (1000 * d).toExponential(1)).join(", ")} mm`);
  expect(steppedGap).toBeLessThan(1e-5);
  // It moves the flesh (millimetres), never past what the solver does by far (centimetres would be a blow-up)...
  expect(Math.min(...peaks)).toBeGreaterThan(3e-4);
  expect(Math.max(...peaks)).toBeLessThan(0.03);
  // ...and every pass of the loop after the second repeats it to a micrometre.
  expect(Math.max(...drift)).toBeLessThan(1e-3 * Math.max(...peaks));
}, 300_000);
