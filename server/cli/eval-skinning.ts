// npm run eval:skinning [-- --json] [--heldout 14] [--optimum-steps 1500] [--skip-optimum]
// Evaluates the skinning model (as predicted, and as delivered: orthonormalised) against the baseline and a
// per-shape optimum (a Simplicits-style MLP trained on each shape for the smoothest orthonormal fields,
// models/train/per_shape.py) on held-out procedural shapes and the asset meshes; then physics with model weights,
// pose invariance and inference time. Tables on stdout (JSON with --json), progress on stderr.

import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { normaliseMesh, sampleInterior, sampleSurface, thickenFlatMesh } from "../../shared/geometry";
import { basisRows, FloorContact } from "../../shared/sim";
import { baselineProvider, createModelProvider, fieldQuality, orthonormalProvider, type FieldQuality, type OrtModule, type ShapeSamples, type SkinningFieldProvider } from "../../shared/skinning";
import { readMeshFile } from "../world/mesh-file";
import { runScenario } from "../scenarios/run-scenario";
import { createSoftBody, loadBody } from "../scenarios/body-from-mesh";
import { MODEL_DIRECTORY, modelProvider } from "../skinning/model-provider";
import { integerFlag, parseFlags, runCli } from "./cli-support";

const run = promisify(execFile);
const USAGE = "usage: npm run eval:skinning -- [--heldout 14] [--optimum-steps 1500] [--skip-optimum] [--optimum-file OUT.json] [--json]";
const ROOT = path.resolve(import.meta.dirname, "../..");
const MESHES = path.resolve(ROOT, "../shared/assets/meshes");
const PYTHON = "/usr/bin/python3";
const FIELDS = 16;
const EVAL_POINTS = 512;

interface EvalShape {
  name: string;
  split: "heldout" | "mesh";
  samples: ShapeSamples;
  /** Points the fields are judged on (normalised, uniform in the volume). */
  points: Float64Array;
}

/**
 * One number for a set of fields: PhysSkin's weighting (le = 0.1 with vol = 0.5, lo = 1e6) carried over to our
 * normalisation (unit-RMS fields and T ~ 0.05 randn instead of unit-norm fields over ~1,000 points and 0.2 randn:
 * elastic energies 0.016x; MSE over K^2 entries instead of the K(K-1) off-diagonals: (K - 1) / K).
 */
// PhysSkin's weights (le = 0.1 at volume 0.5, lo = 1e6) in our normalisation. The ortho weight applies to the
// mean over all K^2 Gram entries, as training and per_shape.py take it; q.ortho averages the K(K-1) off-diagonal ones.
const ELASTIC_WEIGHT = 0.1 * 0.5 * 0.016, ORTHO_WEIGHT = 1e6;

function objective(q: FieldQuality): number {
  return ELASTIC_WEIGHT * q.elastic + ORTHO_WEIGHT * ((FIELDS - 1) / FIELDS) * q.ortho;
}

interface QualityRow {
  shape: string;
  split: string;
  /** The network's fields as predicted. */
  model?: FieldQuality;
  /** The same span made orthonormal over the interior samples, as the bake delivers it (orthonormalProvider). */
  delivered?: FieldQuality;
  baseline: FieldQuality;
  optimum?: FieldQuality;
  /** objective(delivered) / objective(optimum). */
  ratio?: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function heldoutShapes(count: number, dir: string): Promise<EvalShape[]> {
  const file = path.join(dir, "heldout.json");
  await run(PYTHON, [path.join(ROOT, "models/train/heldout.py"), file, "--count", String(count)]);
  const shapes = JSON.parse(readFileSync(file, "utf8")) as { name: string; surface: number[]; normals: number[]; interior: number[] }[];
  return shapes.map((s) => ({
    name: s.name,
    split: "heldout" as const,
    samples: { surfacePoints: Float64Array.from(s.surface), surfaceNormals: Float64Array.from(s.normals), interiorPoints: Float64Array.from(s.interior) },
    points: Float64Array.from(s.interior.slice(0, 3 * EVAL_POINTS)),
  }));
}

async function meshShapes(): Promise<EvalShape[]> {
  const out: EvalShape[] = [];
  for (const file of readdirSync(MESHES).filter((f) => f.endsWith(".obj")).sort()) {
    const mesh = normaliseMesh(thickenFlatMesh(await readMeshFile(path.join(MESHES, file)))).mesh;
    const surface = sampleSurface(mesh, 4096, 1);
    const interior = sampleInterior(mesh, { count: 256, seed: 3 });
    const stride = Math.max(1, Math.floor(interior.candidates.length / 3 / EVAL_POINTS));
    const points = new Float64Array(3 * EVAL_POINTS);
    for (let i = 0; i < EVAL_POINTS; i++) points.set(interior.candidates.subarray(3 * i * stride, 3 * i * stride + 3), 3 * i);
    out.push({ name: file.replace(".obj", ""), split: "mesh", samples: { surfacePoints: surface.points, surfaceNormals: surface.normals, interiorPoints: interior.candidates }, points });
  }
  return out;
}

async function providerQuality(provider: SkinningFieldProvider, shape: EvalShape): Promise<FieldQuality> {
  const fields = await provider.fieldsFor(shape.samples, FIELDS);
  const n = shape.points.length / 3;
  const weights = new Float64Array(n * FIELDS), gradients = new Float64Array(n * FIELDS * 3);
  await fields.evaluate(shape.points, weights, gradients);
  return fieldQuality({ points: shape.points, weights, gradients, fields: FIELDS });
}

async function optimumQuality(shapes: EvalShape[], steps: number, dir: string, reuse?: string): Promise<Map<string, FieldQuality & { seconds: number }>> {
  const input = path.join(dir, "optimum-in.json"), output = reuse ?? path.join(dir, "optimum-out.json");
  if (!reuse) await trainOptima(shapes, steps, input, output);
  const results = JSON.parse(readFileSync(output, "utf8")) as { name: string; weights: number[]; gradients: number[]; seconds: number }[];
  const map = new Map<string, FieldQuality & { seconds: number }>();
  for (const r of results) {
    const shape = shapes.find((s) => s.name === r.name);
    if (!shape) continue;
    map.set(r.name, { ...fieldQuality({ points: shape.points, weights: Float64Array.from(r.weights), gradients: Float64Array.from(r.gradients), fields: FIELDS }), seconds: r.seconds });
  }
  return map;
}

async function trainOptima(shapes: EvalShape[], steps: number, input: string, output: string): Promise<void> {
  writeFileSync(input, JSON.stringify(shapes.map((s) => ({
    name: s.name,
    interior: Array.from(s.samples.interiorPoints.subarray(0, 3 * 1024)),
    points: Array.from(s.points),
  }))));
  log(`per-shape optimum: ${shapes.length} shapes x ${steps} steps (Python)...`);
  const child = execFile(PYTHON, [path.join(ROOT, "models/train/per_shape.py"), input, output, "--steps", String(steps), "--fields", String(FIELDS)], { maxBuffer: 1 << 26 });
  child.stderr?.on("data", (d) => process.stderr.write(String(d)));
  await new Promise<void>((resolve, reject) => child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`per_shape.py exited with ${code}`)))));
}

async function physics(): Promise<Record<string, unknown>> {
  const E = 5e7, inertia = 0.1 ** 4 / 12, load = 1000 * 9.81 * 0.01;
  const eb = (load * 1) / (8 * E * inertia);
  const cantilever = await runScenario({
    scenario: "cantilever", mesh: "box:1x0.1x0.1", weights: "model-raw", handles: FIELDS, cubature: 256, size: 1,
    youngsModulus: E, poissonRatio: 0.3, density: 1000, damping: 0.01, dt: 1 / 60, steps: 360,
  });
  const tail = cantilever.frames.slice(-30).map((f) => -f.tip![1]);
  const deflection = tail.reduce((a, b) => a + b, 0) / tail.length;
  const meshes: Record<string, unknown>[] = [];
  for (const file of readdirSync(MESHES).filter((f) => f.endsWith(".obj")).sort()) {
    for (const scenario of ["drop", "pull"] as const) {
      const r = await runScenario({
        scenario, mesh: path.join(MESHES, file), weights: "model-raw", handles: FIELDS, cubature: 256, size: 0.3,
        youngsModulus: 1e5, poissonRatio: 0.45, density: 1000, damping: 0.002, dt: 1 / 60, steps: 240,
      });
      const finite = r.frames.every((f) => [...f.centroid, f.minY, f.energy.kinetic, f.energy.elastic].every(Number.isFinite));
      const last = r.frames[r.frames.length - 1];
      meshes.push({ mesh: file, scenario, finite, finalKinetic: last.energy.kinetic, finalMinY: last.minY, stepMsMedian: r.stepMs.median });
    }
    log(`physics ${file} done`);
  }
  return { cantilever: { tipDeflection: deflection, eulerBernoulli: eb, ratio: deflection / eb }, meshes };
}

/**
 * Pose invariance (SPRig's measure): deform each asset mesh with our solver (the pull scenario, at its highest),
 * predict the fields from the deformed surface, and compare them at the same material points with the rest-pose
 * prediction: mean L1 difference of the unit-RMS fields.
 */
async function poseInvariance(provider: SkinningFieldProvider): Promise<{ mesh: string; meanL1: number }[]> {
  const rows: { mesh: string; meanL1: number }[] = [];
  for (const file of ["spot.obj", "teapot.obj", "suzanne.obj"]) {
    const loaded = await loadBody({ mesh: path.join(MESHES, file), weights: "model-raw", handles: FIELDS, cubature: 256, size: 0.3 });
    const rest = loaded.renderRest;
    let minY = Infinity, top = 0;
    for (let i = 0; i < rest.length / 3; i++) {
      minY = Math.min(minY, rest[3 * i + 1]);
      if (rest[3 * i + 1] > rest[3 * top + 1]) top = i;
    }
    const body = createSoftBody(loaded, { youngsModulus: 1e5, poissonRatio: 0.45, density: 1000 }, {}, [0, -minY, 0]);
    body.addContactSurface(new FloorContact(0));
    const grab = body.grab(rest[3 * top], rest[3 * top + 1] - minY, rest[3 * top + 2]);
    for (let s = 0; s < 60; s++) {
      body.moveGrab(grab, rest[3 * top], rest[3 * top + 1] - minY + 0.2 * ((s + 1) / 60), rest[3 * top + 2]);
      body.step();
    }
    // Deformed render mesh -> deformed shape samples, normalised like any input.
    const deformed = new Float64Array(rest.length);
    body.positions(loaded.renderRows, rest, deformed);
    const deformedMesh = normaliseMesh({ positions: deformed, triangles: loaded.baked.triangles });
    const surface = sampleSurface(deformedMesh.mesh, 4096, 1);
    // The same material points at rest and deformed: the mass samples.
    const s = loaded.size / 2, h = FIELDS + 1;
    const massRest = loaded.baked.massPositions;
    const count = Math.min(EVAL_POINTS, massRest.length / 3);
    const restPoints = massRest.slice(0, 3 * count);
    const massRows = basisRows({ positions: restPoints.map((v) => v * s), weights: loaded.baked.massWeights.slice(0, count * h) }, h);
    const world = new Float64Array(3 * count);
    body.positions(massRows, restPoints.map((v) => v * s), world);
    const deformedPoints = world.map((v, i) => (v - deformedMesh.center[i % 3]) / deformedMesh.scale);
    const predict = async (samples: ShapeSamples, points: Float64Array) => {
      const fields = await provider.fieldsFor(samples, FIELDS);
      const w = new Float64Array(count * FIELDS);
      await fields.evaluate(points, w);
      for (let f = 0; f < FIELDS; f++) {
        let ms = 0;
        for (let i = 0; i < count; i++) ms += w[i * FIELDS + f] ** 2;
        const inv = 1 / (Math.sqrt(ms / count) + 1e-12);
        for (let i = 0; i < count; i++) w[i * FIELDS + f] *= inv;
      }
      return w;
    };
    const restSurface = sampleSurface(normaliseMesh(thickenFlatMesh(await readMeshFile(path.join(MESHES, file)))).mesh, 4096, 1);
    const atRest = await predict({ surfacePoints: restSurface.points, surfaceNormals: restSurface.normals, interiorPoints: restPoints }, restPoints);
    const posed = await predict({ surfacePoints: surface.points, surfaceNormals: surface.normals, interiorPoints: deformedPoints }, deformedPoints);
    let l1 = 0;
    for (let i = 0; i < atRest.length; i++) l1 += Math.abs(atRest[i] - posed[i]);
    rows.push({ mesh: file, meanL1: l1 / atRest.length });
    log(`pose invariance ${file} done`);
  }
  return rows;
}

async function inferenceTimes(): Promise<Record<string, number>> {
  const encoder = new Uint8Array(readFileSync(path.join(MODEL_DIRECTORY, "skinning-encoder.onnx")));
  const decoder = new Uint8Array(readFileSync(path.join(MODEL_DIRECTORY, "skinning-decoder.onnx")));
  const surface = 4096, queries = 20000;
  const samples: ShapeSamples = {
    surfacePoints: Float64Array.from({ length: 3 * surface }, (_, i) => Math.sin(i * 12.9898) * 0.9),
    surfaceNormals: Float64Array.from({ length: 3 * surface }, (_, i) => (i % 3 === 1 ? 1 : 0)),
    interiorPoints: new Float64Array(0),
  };
  const points = Float64Array.from({ length: 3 * queries }, (_, i) => Math.cos(i * 78.233) * 0.9);
  const time = async (ort: OrtModule) => {
    const provider = await createModelProvider(ort, { encoder, decoder });
    const once = async () => {
      const start = performance.now();
      const fields = await provider.fieldsFor(samples, FIELDS);
      await fields.evaluate(points, new Float64Array(queries * FIELDS));
      return performance.now() - start;
    };
    await once();
    return Math.min(await once(), await once());
  };
  const node = await time((await import("onnxruntime-node")) as unknown as OrtModule);
  const web = (await import("onnxruntime-web")) as unknown as OrtModule & { env: { wasm: { numThreads: number; wasmPaths: string } } };
  web.env.wasm.numThreads = 1;
  web.env.wasm.wasmPaths = `${path.join(ROOT, "node_modules/onnxruntime-web/dist")}/`;
  const wasm = await time(web);
  return { onnxruntimeNodeMs: node, onnxruntimeWebWasmMs: wasm };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    json: { type: "boolean", default: false }, heldout: { type: "string" }, "optimum-steps": { type: "string" },
    "skip-optimum": { type: "boolean", default: false }, "optimum-file": { type: "string" }, help: { type: "boolean" },
  });
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "pliant-eval-"));
  const shapes = [...(await heldoutShapes(integerFlag(flags, "heldout", 14, 1, 200), dir)), ...(await meshShapes())];
  const model = await modelProvider();
  const rows: QualityRow[] = [];
  for (const shape of shapes) {
    rows.push({
      shape: shape.name, split: shape.split, model: await providerQuality(model, shape),
      delivered: await providerQuality(orthonormalProvider(model), shape), baseline: await providerQuality(baselineProvider, shape),
    });
    log(`quality ${shape.name} done`);
  }
  if (!flags["skip-optimum"]) {
    const reuse = typeof flags["optimum-file"] === "string" ? flags["optimum-file"] : undefined;
    const optimum = await optimumQuality(shapes, integerFlag(flags, "optimum-steps", 1500, 10, 100000), dir, reuse);
    for (const row of rows) {
      row.optimum = optimum.get(row.shape);
      if (row.optimum && row.delivered) row.ratio = objective(row.delivered) / objective(row.optimum);
    }
  }
  const summary = (split: string) => {
    const r = rows.filter((x) => x.split === split);
    const mean = (f: (x: QualityRow) => number | undefined) => {
      const v = r.map(f).filter((x): x is number => x !== undefined);
      return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
    };
    return {
      split, shapes: r.length,
      modelElastic: mean((x) => x.model?.elastic), deliveredElastic: mean((x) => x.delivered?.elastic), baselineElastic: mean((x) => x.baseline.elastic), optimumElastic: mean((x) => x.optimum?.elastic),
      modelOrtho: mean((x) => x.model?.ortho), deliveredOrtho: mean((x) => x.delivered?.ortho), baselineOrtho: mean((x) => x.baseline.ortho), optimumOrtho: mean((x) => x.optimum?.ortho),
      modelObjective: mean((x) => (x.model ? objective(x.model) : undefined)),
      deliveredObjective: mean((x) => (x.delivered ? objective(x.delivered) : undefined)), baselineObjective: mean((x) => objective(x.baseline)),
      optimumObjective: mean((x) => (x.optimum ? objective(x.optimum) : undefined)),
      ratio: mean((x) => x.ratio),
      baselineRatio: mean((x) => (x.optimum ? objective(x.baseline) / objective(x.optimum) : undefined)),
    };
  };
  const physicsResult = await physics();
  const pose = await poseInvariance(model);
  const timing = await inferenceTimes();
  const result = { quality: rows, summary: [summary("heldout"), summary("mesh")], physics: physicsResult, poseInvariance: pose, inference: timing };
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const g = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "-" : v.toPrecision(3));
  const o = (q?: FieldQuality) => (q ? g(objective(q)) : "-");
  process.stdout.write("Columns: raw model / model as delivered (orthonormalised) / baseline / per-shape optimum.\n\n");
  process.stdout.write("| shape | elastic | ortho | objective | delivered / optimum |\n|---|---|---|---|---|\n");
  for (const r of rows) {
    process.stdout.write(`| ${r.shape} | ${g(r.model?.elastic)} / ${g(r.delivered?.elastic)} / ${g(r.baseline.elastic)} / ${g(r.optimum?.elastic)} | ${g(r.model?.ortho)} / ${g(r.delivered?.ortho)} / ${g(r.baseline.ortho)} / ${g(r.optimum?.ortho)} | ${o(r.model)} / ${o(r.delivered)} / ${o(r.baseline)} / ${o(r.optimum)} | ${g(r.ratio)} |\n`);
  }
  process.stdout.write("\n| split | shapes | objective raw / delivered / baseline / optimum | mean delivered / optimum | mean baseline / optimum | ortho raw / delivered / baseline / optimum |\n|---|---|---|---|---|---|\n");
  for (const s of result.summary) {
    process.stdout.write(`| ${s.split} | ${s.shapes} | ${g(s.modelObjective)} / ${g(s.deliveredObjective)} / ${g(s.baselineObjective)} / ${g(s.optimumObjective)} | ${g(s.ratio)} | ${g(s.baselineRatio)} | ${g(s.modelOrtho)} / ${g(s.deliveredOrtho)} / ${g(s.baselineOrtho)} / ${g(s.optimumOrtho)} |\n`);
  }
  const c = physicsResult.cantilever as { tipDeflection: number; eulerBernoulli: number; ratio: number };
  process.stdout.write(`\nCantilever with model weights: tip ${c.tipDeflection.toFixed(5)} m vs Euler-Bernoulli ${c.eulerBernoulli.toFixed(5)} m (ratio ${c.ratio.toFixed(3)})\n`);
  process.stdout.write("| mesh | scenario | finite | final kinetic J | final min y m | step ms median |\n|---|---|---|---|---|---|\n");
  for (const m of physicsResult.meshes as { mesh: string; scenario: string; finite: boolean; finalKinetic: number; finalMinY: number; stepMsMedian: number }[]) {
    process.stdout.write(`| ${m.mesh} | ${m.scenario} | ${m.finite} | ${m.finalKinetic.toExponential(2)} | ${m.finalMinY.toFixed(4)} | ${m.stepMsMedian.toFixed(3)} |\n`);
  }
  process.stdout.write("\nPose invariance (mean L1 of unit-RMS fields, deformed vs rest prediction)\n");
  for (const p of pose) process.stdout.write(`- ${p.mesh}: ${p.meanL1.toFixed(4)}\n`);
  process.stdout.write(`\nInference, 4,096 surface points + 20,000 queries: onnxruntime-node ${timing.onnxruntimeNodeMs.toFixed(0)} ms, onnxruntime-web (wasm, 1 thread, Node) ${timing.onnxruntimeWebWasmMs.toFixed(0)} ms\n`);
}

runCli(main, USAGE);
