// npm run bench [-- --json] [--quick] [--js]: step time and accuracy of the reduced solver, a character's cost per
// frame (the fox as the room has it: rig evaluation, and its flesh by the solver or the spring layer), and bake
// time per asset mesh. --js runs the solver's JS loops instead of its WebAssembly SIMD kernels (the comparison).
// Timings go in this table, never in tests.

import { readdirSync } from "node:fs";
import path from "node:path";
import { loadBody, type LoadedBody } from "../../server/scenarios/body-from-mesh";
import { quantile } from "../../server/scenarios/run-scenario";
import { scenarioRun, type BenchScenario } from "./scenario-run";
import { CharacterBody, complementarySprings, LinearFlesh, RigMotion, SpringCharacter } from "../../shared/rig";
import { CHARACTER_MAX_ITERATIONS, FLESH } from "../../shared/rig/character-defaults";
import { FloorContact } from "../../shared/sim";
import { PLAYGROUND } from "../../shared/scene";

const MESH_DIRECTORY = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
const BENCH_MESH = path.join(MESH_DIRECTORY, "spot.obj");
/** The converged reference: the same subspace solved until nothing moves. */
const CONVERGED = { maxIterations: 1000, tolerance: 1e-9, factorWorkPerStep: 0 };
const JS_LOOPS = process.argv.includes("--js");

interface SimRow { scenario: string; handles: number; cubature: number; stepMsMedian: number; stepMsP99: number; stepMsMax: number; iterationsMean: number; errorVsConverged: number }
interface BakeRow { mesh: string; vertices: number; ms: number }
interface CharacterRow { clip: string; rigMsMedian: number; stepMsMedian: number; stepMsP99: number; linearMsMedian: number; springsMsMedian: number; springsFreeMsMedian: number }

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");
const FOX_SECONDS = 6;

/** A run, recording the render vertices' positions after every step. */
function recordedRun(loaded: LoadedBody, run: BenchScenario, converged: boolean): { times: number[]; frames: Float64Array[]; iterations: number } {
  const frames: Float64Array[] = [];
  const result = scenarioRun(loaded, run, { ...(converged ? CONVERGED : {}), simd: !JS_LOOPS }, (body) => {
    const out = new Float64Array(loaded.renderRest.length);
    body.positions(loaded.renderRows, loaded.renderRest, out);
    frames.push(out);
  });
  return { ...result, frames };
}

function diagonal(points: Float64Array): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i += 3) for (let a = 0; a < 3; a++) { min[a] = Math.min(min[a], points[i + a]); max[a] = Math.max(max[a], points[i + a]); }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

function label(run: BenchScenario): string {
  return run.scenario === "throw" ? `throw ${run.speed} m/s` : run.scenario;
}

async function simRow(run: BenchScenario, handles: number, cubature: number): Promise<SimRow> {
  const loaded = await loadBody({ mesh: BENCH_MESH, weights: "baseline", handles: handles - 1, cubature, size: 0.3 });
  // Warm-up: the JIT tiers code up over the first runs (one run left the 9-handle row's first steps 5-12 ms slow).
  for (let i = 0; i < 3; i++) recordedRun(loaded, run, false);
  const fast = recordedRun(loaded, run, false);
  const reference = recordedRun(loaded, run, true);
  const diag = diagonal(loaded.renderRest);
  let worst = 0;
  fast.frames.forEach((frame, f) => {
    const ref = reference.frames[f];
    for (let i = 0; i < frame.length; i += 3) worst = Math.max(worst, Math.hypot(frame[i] - ref[i], frame[i + 1] - ref[i + 1], frame[i + 2] - ref[i + 2]));
  });
  const sorted = [...fast.times].sort((a, b) => a - b);
  process.stderr.write(`sim ${label(run)}, ${handles} handles x ${cubature} cubature done\n`);
  return {
    scenario: label(run), handles, cubature, stepMsMedian: quantile(sorted, 0.5), stepMsP99: quantile(sorted, 0.99), stepMsMax: sorted[sorted.length - 1],
    iterationsMean: fast.iterations, errorVsConverged: worst / diag,
  };
}

async function benchSim(quick: boolean): Promise<SimRow[]> {
  const rows: SimRow[] = [];
  for (const handles of [9, 17, 33]) {
    for (const cubature of quick ? [256] : [128, 256, 512, 1024]) rows.push(await simRow({ scenario: "pull" }, handles, cubature));
  }
  for (const speed of [1, 6]) {
    for (const handles of [9, 17, 33]) rows.push(await simRow({ scenario: "throw", speed }, handles, 256));
  }
  return rows;
}

/**
 * The fox as the room has it (its size, flesh, fields and bake options), each clip played in place for six seconds
 * at 60 Hz: the rig (clip sampling, skinning matrices and the posed surface), the solver's step (the rig's force,
 * the constraint's update and the constrained step), the same step by the linearised flesh (the room's untouched
 * flesh on a clip its network never learned), and the spring layer (the flesh's own modes, nothing fitted), with and
 * without its projection onto the complement.
 */
async function benchCharacter(): Promise<CharacterRow[]> {
  const spec = PLAYGROUND.characters![0], material = { youngsModulus: FLESH.youngsModulus, poissonRatio: FLESH.poissonRatio, density: FLESH.density };
  const loaded = await loadBody({ mesh: FOX, weights: "eigen", handles: 16, cubature: 256, size: spec.size });
  const rows: CharacterRow[] = [];
  const median = (times: number[]) => quantile([...times].sort((a, b) => a - b), 0.5);
  for (const clipName of ["Walk", "Run", "Survey"]) {
    const character = new CharacterBody(loaded.baked, spec.size, material, { damping: FLESH.damping, maxIterations: CHARACTER_MAX_ITERATIONS });
    const clip = character.rig.clips.find((c) => c.name === clipName)!;
    character.body.addContactSurface(new FloorContact(character.motion.lowestPoint(clip)));
    const rig = new RigMotion(character.rig, loaded.baked, spec.size);
    const linearBody = new CharacterBody(loaded.baked, spec.size, material, { damping: FLESH.damping }), linear = new LinearFlesh(linearBody.subspace, material, FLESH.damping, 1 / 60);
    const model = complementarySprings(loaded.baked, spec.size, material, FLESH.damping);
    const springs = new SpringCharacter(loaded.baked, spec.size, model), free = new SpringCharacter(loaded.baked, spec.size, model, { complementary: false });
    const rigTimes: number[] = [], stepTimes: number[] = [], linearTimes: number[] = [], springTimes: number[] = [], freeTimes: number[] = [];
    for (let step = 0; step < FOX_SECONDS * 60; step++) {
      const t = ((step + 1) / 60) % clip.duration;
      let start = performance.now();
      rig.pose.sample(clip, t);
      rig.advance();
      rigTimes.push(performance.now() - start);
      character.pose.sample(clip, t);
      start = performance.now();
      character.step();
      stepTimes.push(performance.now() - start);
      linearBody.pose.sample(clip, t);
      start = performance.now();
      linearBody.stepLinear(linear);
      linearTimes.push(performance.now() - start);
      for (const [layer, times] of [[springs, springTimes], [free, freeTimes]] as const) {
        layer.pose.sample(clip, t);
        start = performance.now();
        layer.step(1 / 60);
        times.push(performance.now() - start);
      }
    }
    rows.push({ clip: clipName, rigMsMedian: median(rigTimes), stepMsMedian: median(stepTimes), stepMsP99: quantile([...stepTimes].sort((a, b) => a - b), 0.99), linearMsMedian: median(linearTimes), springsMsMedian: median(springTimes), springsFreeMsMedian: median(freeTimes) });
    process.stderr.write(`character ${clipName} done\n`);
  }
  return rows;
}

async function benchBake(): Promise<BakeRow[]> {
  const rows: BakeRow[] = [];
  for (const file of readdirSync(MESH_DIRECTORY).filter((f) => f.endsWith(".obj")).sort()) {
    const mesh = path.join(MESH_DIRECTORY, file);
    await loadBody({ mesh, weights: "baseline", handles: 16, cubature: 256, size: 0.3 }); // warm-up
    const loaded = await loadBody({ mesh, weights: "baseline", handles: 16, cubature: 256, size: 0.3 });
    rows.push({ mesh: file, vertices: loaded.renderRest.length / 3, ms: loaded.bakeMs });
    process.stderr.write(`bake ${file} done\n`);
  }
  return rows;
}

const json = process.argv.includes("--json");
const quick = process.argv.includes("--quick");
const sim = await benchSim(quick);
const character = await benchCharacter();
const bake = quick ? [] : await benchBake();
if (json) {
  process.stdout.write(`${JSON.stringify({ sim, character, bake })}\n`);
} else {
  const f = (v: number, d = 3) => v.toFixed(d);
  process.stdout.write("Reduced step, spot (0.3 m jelly), 60 Hz, 2 s: pull (resting on the floor, top pulled up 0.2 m over 1 s, held 1 s);\n");
  process.stdout.write("throw (released 0.3 m up at 1 or 6 m/s with 2 turns/s of spin, into a wall 0.2 m ahead and the floor)\n");
  process.stdout.write("(error: largest render-vertex distance to the same subspace solved to full convergence, over the run)\n");
  process.stdout.write(JS_LOOPS ? "(the solver's JS loops: --js)\n" : "(the solver's WebAssembly SIMD kernels)\n");
  process.stdout.write("| scenario | handles | cubature | step ms median | p99 | max | iterations | error vs converged (of diagonal) |\n|---|---|---|---|---|---|---|---|\n");
  for (const r of sim) process.stdout.write(`| ${r.scenario} | ${r.handles} | ${r.cubature} | ${f(r.stepMsMedian)} | ${f(r.stepMsP99)} | ${f(r.stepMsMax)} | ${f(r.iterationsMean, 1)} | ${(100 * r.errorVsConverged).toFixed(3)}% |\n`);
  process.stdout.write(`\nCharacter: the fox as the room has it (${PLAYGROUND.characters![0].size} m, flesh, eigen fields, 16 + 1 handles, 256 cubature), each clip in place, 60 Hz, ${FOX_SECONDS} s\n`);
  process.stdout.write("(rig: clip sampling, skinning matrices, posed surface; step: the rig's force, the constraint and the constrained solve; linearised: the same by linear-flesh.ts; springs: the flesh's own modes)\n");
  process.stdout.write("| clip | rig ms median | soft step ms median | p99 | linearised ms median | springs (complementary) ms median | springs (unprojected) ms median |\n|---|---|---|---|---|---|---|\n");
  for (const r of character) process.stdout.write(`| ${r.clip} | ${f(r.rigMsMedian)} | ${f(r.stepMsMedian)} | ${f(r.stepMsP99)} | ${f(r.linearMsMedian)} | ${f(r.springsMsMedian)} | ${f(r.springsFreeMsMedian)} |\n`);
  if (bake.length) {
    process.stdout.write("\nBake (baseline fields, 16 + 1 handles, 256 cubature)\n| mesh | vertices | ms |\n|---|---|---|\n");
    for (const r of bake) process.stdout.write(`| ${r.mesh} | ${r.vertices} | ${f(r.ms, 0)} |\n`);
  }
}
