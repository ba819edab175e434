// npm run eval:secondary -- --mesh RIGGED.glb [--train CLIPS] [--test Run] [--json]
// The layers of secondary motion against the solver on a held-out clip (server/scenarios/secondary-eval.ts).
// stdout carries only the result (JSON with --json, a table otherwise); progress goes to stderr.

import { CHARACTER_SIZE, FLESH } from "../../shared/rig/character-defaults";
import { loadBody } from "../scenarios/body-from-mesh";
import { rigOf } from "../../shared/skinning/baked-rig";
import { CHARACTER_WEIGHTS } from "../skinning/weights-source";
import { evaluateSecondary } from "../scenarios/secondary-eval";
import { readSecondaryModel, secondaryModelName } from "../characters/secondary-model";
import { integerFlag, numberFlag, parseFlags, runCli, UsageError, weightsFlag } from "./cli-support";

const USAGE = `usage: npm run eval:secondary -- --mesh RIGGED.glb [--train CLIPS] [--test Run] [--weights eigen|model|baseline|model-raw]
       [--handles 16] [--cubature 256] [--size ${CHARACTER_SIZE}] [--score-trained-clip] [--json]
  --train: the clips velocity skinning's floppiness is fitted on, comma-separated (default: every clip but --test;
           with none, its floppiness is 0)
  --score-trained-clip: score the network on --test even when it was trained on that clip (how well it learned it)`;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    mesh: { type: "string" }, train: { type: "string" }, test: { type: "string", default: "Run" },
    weights: { type: "string", default: CHARACTER_WEIGHTS }, handles: { type: "string" }, cubature: { type: "string" }, size: { type: "string" },
    "score-trained-clip": { type: "boolean", default: false }, json: { type: "boolean", default: false }, help: { type: "boolean" },
  });
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (typeof flags.mesh !== "string") throw new UsageError("--mesh is required");
  const test = String(flags.test);
  const named = typeof flags.train === "string" ? flags.train.split(",").map((c) => c.trim()).filter(Boolean) : null;
  if (named && named.length === 0) throw new UsageError("--train needs at least one clip");
  if (named?.includes(test)) throw new UsageError(`--test ${test} is also a training clip: the comparison is on a held-out clip`);
  const loaded = await loadBody({
    mesh: flags.mesh, weights: weightsFlag(flags), handles: integerFlag(flags, "handles", 16, 1, 64), cubature: integerFlag(flags, "cubature", 256, 8, 4096),
    size: numberFlag(flags, "size", CHARACTER_SIZE, (v) => v > 0 && v <= 100, "must be in (0, 100] m"),
  });
  if (loaded.baked.rigJointNodes.length === 0) throw new UsageError(`${flags.mesh} has no rig: a skinned glTF with clips is needed`);
  const clips = rigOf(loaded.baked)!.clips.map((c) => c.name);
  for (const clip of [test, ...(named ?? [])]) if (!clips.includes(clip)) throw new UsageError(`${flags.mesh} has no clip "${clip}": it has ${clips.join(", ")}`);
  const train = named ?? clips.filter((c) => c !== test);
  const material = { youngsModulus: FLESH.youngsModulus, poissonRatio: FLESH.poissonRatio, density: FLESH.density };
  const secondary = await readSecondaryModel(secondaryModelName(flags.mesh));
  const result = await evaluateSecondary({ loaded, mesh: flags.mesh, material, damping: FLESH.damping, train, test, secondary, scoreTrainedClip: flags["score-trained-clip"] === true, onProgress: (what) => process.stderr.write(`${what}...\n`) });
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const lines = [
    `${result.test} (held out; ${result.springModel.directions} springs, the flesh's modes, found in ${result.springModel.buildSeconds} s)`,
    "| layer | RMS error playing, mm | after the stop, mm | ms a frame |",
    "|---|---|---|---|",
    `| solver (reference) | 0 | 0 | ${result.sim.msPerFrame} |`,
    `| springs (nothing fitted), complementary | ${result.springs.rmsErrorMm} | ${result.springs.stopErrorMm} | ${result.springs.msPerFrame} |`,
    `| springs, unprojected | ${result.springsFree.rmsErrorMm} | ${result.springsFree.stopErrorMm} | ${result.springsFree.msPerFrame} |`,
    result.rnn
      ? `| rnn (trained on ${result.rnn.trainedOn.join(", ")}) | ${result.rnn.rmsErrorMm} | ${result.rnn.stopErrorMm} | ${result.rnn.msPerFrame} |`
      : `| rnn | ${result.rnnSkipped} | | |`,
    `| velocity skinning (floppiness ${result.velocitySkinning.floppiness} s, fitted on ${result.train.join(", ") || "no clip: the mesh has no other"}) | ${result.velocitySkinning.rmsErrorMm} | ${result.velocitySkinning.stopErrorMm} | ${result.velocitySkinning.msPerFrame} |`,
    `| linearised dynamics (nothing fitted) | ${result.linear.rmsErrorMm} | ${result.linear.stopErrorMm} | ${result.linear.msPerFrame} |`,
    `| no soft part | ${result.none.rmsErrorMm} | ${result.none.stopErrorMm} | 0 |`,
    "",
    "| rate | solver error, mm | solver peak RMS, mm | springs error, mm | springs peak RMS, mm |",
    "|---|---|---|---|---|",
    ...result.rates.map((r) => `| ${r.hz} Hz | ${r.sim.finite ? r.sim.errorMm : "not finite"} | ${r.sim.peakSoftRmsMm} | ${r.springs.finite ? r.springs.errorMm : "not finite"} | ${r.springs.peakSoftRmsMm} |`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

runCli(main, USAGE);
