// npm run sim -- --mesh PATH|box:LxWxH --scenario drop|cantilever|pull|throw|animate [flags] [--json]
// stdout carries only the result (JSON with --json, a short summary otherwise); progress goes to stderr.

import { CHARACTER_SIZE, FLESH } from "../../shared/rig/character-defaults";
import { LAYERS, runAnimate, type Layer } from "../scenarios/animate";
import { CHARACTER_WEIGHTS, DEFAULT_WEIGHTS } from "../skinning/weights-source";
import { DEFAULT_THROW_SPEED, runScenario, SCENARIOS, type ScenarioName } from "../scenarios/run-scenario";
import { integerFlag, numberFlag, parseFlags, runCli, UsageError, weightsFlag } from "./cli-support";

const USAGE = `usage: npm run sim -- --mesh PATH|box:LxWxH --scenario drop|cantilever|pull|throw [--weights model|eigen|baseline|model-raw]
       [--handles 16] [--cubature 256] [--E 1e5] [--nu 0.45] [--rho 1000] [--damping 0.002] [--dt 0.016667]
       [--steps 240] [--size 0.3] [--seed 1] [--speed 6] [--json]
       npm run sim -- --mesh RIGGED.glb --scenario animate [--clip NAME] [--seconds 6] [--layer ${LAYERS.join("|")}]
       (animate: flesh by default, --E ${FLESH.youngsModulus} --nu ${FLESH.poissonRatio} --rho ${FLESH.density} --damping ${FLESH.damping} --size ${CHARACTER_SIZE})`;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    mesh: { type: "string" }, scenario: { type: "string" }, weights: { type: "string" },
    handles: { type: "string" }, cubature: { type: "string" }, E: { type: "string" }, nu: { type: "string" },
    rho: { type: "string" }, damping: { type: "string" }, dt: { type: "string" }, steps: { type: "string" },
    size: { type: "string" }, seed: { type: "string" }, speed: { type: "string" }, json: { type: "boolean", default: false }, help: { type: "boolean" },
    clip: { type: "string" }, seconds: { type: "string" }, layer: { type: "string" },
  });
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (typeof flags.mesh !== "string") throw new UsageError("--mesh is required");
  // A rigged mesh's flesh is baked with the characters' fields, as the room bakes it; any other body with the default.
  if (flags.scenario === "animate") return animate({ weights: CHARACTER_WEIGHTS, ...definedFlags(flags) }, flags.mesh);
  flags.weights ??= DEFAULT_WEIGHTS;
  const scenario = flags.scenario as ScenarioName;
  if (!SCENARIOS.includes(scenario)) throw new UsageError(`--scenario must be one of ${[...SCENARIOS, "animate"].join(", ")}`);
  const weights = weightsFlag(flags);
  const json = flags.json === true;
  const result = await runScenario({
    mesh: flags.mesh,
    scenario,
    weights,
    handles: integerFlag(flags, "handles", 16, 1, 64),
    cubature: integerFlag(flags, "cubature", 256, 8, 4096),
    youngsModulus: numberFlag(flags, "E", 1e5),
    poissonRatio: numberFlag(flags, "nu", 0.45),
    density: numberFlag(flags, "rho", 1000),
    damping: numberFlag(flags, "damping", 0.002),
    dt: numberFlag(flags, "dt", 1 / 60),
    steps: integerFlag(flags, "steps", 240, 1, 1_000_000),
    size: numberFlag(flags, "size", 0.3, (v) => v > 0 && v <= 100, "must be in (0, 100] m"),
    seed: integerFlag(flags, "seed", 1, 0, 2 ** 31 - 1),
    speed: numberFlag(flags, "speed", DEFAULT_THROW_SPEED, (v) => v >= 0 && v <= 50, "must be in [0, 50] m/s"),
    onProgress: (f) => process.stderr.write(`\rsimulating ${(100 * f).toFixed(0)}%`),
  });
  process.stderr.write("\rsimulating 100%\n");
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const f = result.final;
  process.stdout.write(
    `${result.scenario} ${result.mesh}: ${result.handles} handles, ${result.cubature} cubature, bake ${result.bakeMs.toFixed(0)} ms, ` +
      `step median ${result.stepMs.median.toFixed(3)} ms (p99 ${result.stepMs.p99.toFixed(3)})\n` +
      `final centroid [${f.centroid.map((v) => v.toFixed(4)).join(", ")}] m, min y ${f.minY.toFixed(4)} m` +
      (f.tipDeflection !== undefined ? `, tip deflection ${f.tipDeflection.toFixed(4)} m` : "") + "\n",
  );
}

async function animate(flags: Record<string, string | boolean | undefined>, mesh: string): Promise<void> {
  const layer = (flags.layer ?? "sim") as Layer;
  if (!LAYERS.includes(layer)) throw new UsageError(`--layer must be one of ${LAYERS.join(", ")}`);
  const result = await runAnimate({
    mesh,
    clip: typeof flags.clip === "string" ? flags.clip : undefined,
    layer,
    weights: weightsFlag(flags),
    handles: integerFlag(flags, "handles", 16, 1, 64),
    cubature: integerFlag(flags, "cubature", 256, 8, 4096),
    youngsModulus: numberFlag(flags, "E", FLESH.youngsModulus),
    poissonRatio: numberFlag(flags, "nu", FLESH.poissonRatio),
    density: numberFlag(flags, "rho", FLESH.density),
    damping: numberFlag(flags, "damping", FLESH.damping),
    dt: numberFlag(flags, "dt", 1 / 60, (v) => v > 0 && v <= 0.1, "must be in (0, 0.1] s"),
    seconds: numberFlag(flags, "seconds", 6, (v) => v > 0 && v <= 600, "must be in (0, 600] s"),
    size: numberFlag(flags, "size", CHARACTER_SIZE, (v) => v > 0 && v <= 100, "must be in (0, 100] m"),
    seed: integerFlag(flags, "seed", 1, 0, 2 ** 31 - 1),
    onProgress: (f) => process.stderr.write(`\rsimulating ${(100 * f).toFixed(0)}%`),
  });
  process.stderr.write("\rsimulating 100%\n");
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const s = result.summary;
  process.stdout.write(
    `animate ${result.mesh} (${result.clip}, ${result.layer}${result.trainedOn ? `, trained on ${result.trainedOn.join(", ")}` : ""}): ${result.subspace} directions, ${result.rigColumns} rig columns` +
      (result.complementaryDirections ? `, ${result.complementaryDirections.min}-${result.complementaryDirections.max} complementary` : "") + "\n" +
      `rig ${result.rigMs.median.toFixed(3)} ms + soft ${result.layer === "sim" ? "step" : result.layer === "rnn" ? "network" : "springs"} ${result.stepMs.median.toFixed(3)} ms a frame (median; p99 ${result.stepMs.p99.toFixed(3)})\n` +
      `soft part ${(1000 * s.playingSoftRms).toFixed(2)} mm RMS while playing (peak ${(1000 * s.peakSoftRms).toFixed(2)}), ` +
      `settled ${s.decaySeconds === null ? `not within ${result.settleSeconds} s` : `${s.decaySeconds.toFixed(2)} s`} after the stop; ` +
      `worst complementarity ${s.worstComplementarity.toExponential(2)}\n`,
  );
}

runCli(main, USAGE);

function definedFlags(flags: Record<string, string | boolean | undefined>): Record<string, string | boolean> {
  return Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as Record<string, string | boolean>;
}
