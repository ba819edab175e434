// npm run train:secondary -- [--mesh fox.glb] [--train Walk,Survey] [--sizes 0.8,1] [--seconds 600] [--steps 2500]
//     [--data-only] [--smoke] [--out DIR]
// Trains the learned secondary-motion layer of a rigged mesh: the solver's soft part under the training clips and
// procedural motions made of them (server/characters/secondary-data.ts), then Debian's torch on the CPU
// (models/train/secondary.py), which writes models/secondary-NAME.{onnx,json} and a parity fixture.

import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { FLESH } from "../../shared/rig/character-defaults";
import { generateSecondaryData, type SecondaryData } from "../characters/secondary-data";
import { loadBody } from "../scenarios/body-from-mesh";
import { SECONDARY_MODEL_DIRECTORY } from "../characters/secondary-model";
import { integerFlag, numberFlag, parseFlags, runCli, UsageError } from "./cli-support";

const FOX = path.resolve(import.meta.dirname, "../assets/fox.glb");
const USAGE = `usage: npm run train:secondary -- [--mesh RIGGED.glb] [--train Walk,Survey] [--sizes 0.8,1] [--seconds 600] [--runs 8]
       [--steps 2500] [--seed 1] [--data-only] [--smoke] [--out DIR]
  --out: where the network goes (models/, or a temporary directory with --smoke)`;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    mesh: { type: "string", default: FOX }, train: { type: "string", default: "Walk,Survey" }, sizes: { type: "string", default: "0.8,1" },
    seconds: { type: "string" }, runs: { type: "string" }, steps: { type: "string" }, seed: { type: "string" }, out: { type: "string" },
    "data-only": { type: "boolean", default: false }, smoke: { type: "boolean", default: false }, help: { type: "boolean" },
  });
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const smoke = flags.smoke === true;
  const clips = String(flags.train).split(",").map((c) => c.trim()).filter(Boolean);
  const sizes = String(flags.sizes).split(",").map(Number);
  if (clips.length === 0) throw new UsageError("--train needs at least one clip");
  if (sizes.length === 0 || sizes.some((s) => !(s > 0 && s <= 10))) throw new UsageError(`--sizes must be sizes in (0, 10] m, got "${String(flags.sizes)}"`);
  const seconds = numberFlag(flags, "seconds", smoke ? 4 : 600, (v) => v > 0 && v <= 3600, "must be in (0, 3600] s");
  const runs = integerFlag(flags, "runs", smoke ? 1 : 8, 1, 100);
  const steps = integerFlag(flags, "steps", 2500, 1, 1_000_000), seed = integerFlag(flags, "seed", 1, 0, 2 ** 31);
  const usedSizes = smoke ? sizes.slice(0, 1) : sizes;
  const mesh = String(flags.mesh), name = path.basename(mesh).replace(/\.[^.]*$/, "");
  const loaded = await loadBody({ mesh, weights: "eigen", handles: 16, cubature: 256, size: 1 });
  if (loaded.baked.rigJointNodes.length === 0) throw new UsageError(`${mesh} has no rig: a skinned glTF with clips is needed`);

  const material = { youngsModulus: FLESH.youngsModulus, poissonRatio: FLESH.poissonRatio, density: FLESH.density };
  const started = performance.now();
  const data = generateSecondaryData(loaded.baked, material, FLESH.damping, {
    clips, sizes: usedSizes, proceduralSeconds: seconds, proceduralRuns: runs, seed, dt: 1 / 60,
    onProgress: (what) => process.stderr.write(`solver: ${what}\n`),
  });
  // A smoke run never touches the shipped network or its data unless told where to write.
  const directory = smoke ? path.join(tmpdir(), `pliant-secondary-smoke-${process.pid}`) : path.resolve(import.meta.dirname, "../../models/train/runs/secondary");
  const out = typeof flags.out === "string" ? path.resolve(flags.out) : smoke ? path.join(directory, "out") : SECONDARY_MODEL_DIRECTORY;
  await writeData(directory, data, { ...material, damping: FLESH.damping }, usedSizes);
  process.stderr.write(`data: ${data.sequences.reduce((s, q) => s + q.steps, 0)} steps in ${((performance.now() - started) / 1000).toFixed(1)} s -> ${directory}\n`);
  if (flags["data-only"] === true) return;
  await python([path.resolve(import.meta.dirname, "../../models/train/secondary.py"), "--data", directory, "--out", out, "--name", name, "--steps", String(steps), "--seed", String(seed), ...(smoke ? ["--smoke"] : [])]);
}

async function writeData(directory: string, data: SecondaryData, material: Record<string, number>, sizes: number[]): Promise<void> {
  await mkdir(directory, { recursive: true });
  const total = data.sequences.reduce((s, q) => s + q.features.length + q.q.length, 0), raw = new Float32Array(total);
  let offset = 0;
  const sequences = data.sequences.map((s) => {
    const entry = { name: s.name, size: s.size, steps: s.steps, featuresOffset: offset, qOffset: offset + s.features.length };
    raw.set(s.features, offset);
    raw.set(s.q, offset + s.features.length);
    offset += s.features.length + s.q.length;
    return entry;
  });
  const meta = { clips: data.clips, sizes, dt: data.dt, featureCount: data.featureCount, n: data.n, material, surfaceMetric: Array.from(data.surfaceMetric), sequences };
  await writeFile(path.join(directory, "data.json"), JSON.stringify(meta));
  await writeFile(path.join(directory, "data.f32"), new Uint8Array(raw.buffer));
}

function python(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/python3", args, { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", (error) => reject(new Error(`cannot start /usr/bin/python3 (Debian's torch): ${error.message}`)));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`models/train/secondary.py exited with ${code}`))));
  });
}

runCli(main, USAGE);
