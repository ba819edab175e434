// npm run bench [-- --json]: step time and accuracy of the reduced solver, and bake time per asset mesh.
// Timings go in this table, never in tests.

import { readdirSync } from "node:fs";
import path from "node:path";
import { loadBody, type LoadedBody } from "../../server/scenarios/body-from-mesh";
import { quantile } from "../../server/scenarios/run-scenario";
import { pullRun } from "./pull-run";

const MESH_DIRECTORY = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
const BENCH_MESH = path.join(MESH_DIRECTORY, "spot.obj");

interface SimRow { handles: number; cubature: number; stepMsMedian: number; stepMsP99: number; iterationsMean: number; errorVsConverged: number }
interface BakeRow { mesh: string; vertices: number; ms: number }

/** The pull, recording the render vertices' positions after every step. */
function grabRun(loaded: LoadedBody, converged: boolean): { times: number[]; frames: Float64Array[]; iterations: number } {
  const frames: Float64Array[] = [];
  const run = pullRun(loaded, converged ? { maxIterations: 1000, tolerance: 1e-9 } : {}, (body) => {
    const out = new Float64Array(loaded.renderRest.length);
    body.positions(loaded.renderRows, loaded.renderRest, out);
    frames.push(out);
  });
  return { ...run, frames };
}

function diagonal(points: Float64Array): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i += 3) for (let a = 0; a < 3; a++) { min[a] = Math.min(min[a], points[i + a]); max[a] = Math.max(max[a], points[i + a]); }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

async function benchSim(): Promise<SimRow[]> {
  const rows: SimRow[] = [];
  for (const handles of [9, 17, 33]) {
    for (const cubature of [128, 256, 512, 1024]) {
      const loaded = await loadBody({ mesh: BENCH_MESH, weights: "baseline", handles: handles - 1, cubature, size: 0.3 });
      grabRun(loaded, false); // warm-up (JIT)
      const fast = grabRun(loaded, false);
      const reference = grabRun(loaded, true);
      const diag = diagonal(loaded.renderRest);
      let worst = 0;
      fast.frames.forEach((frame, f) => {
        const ref = reference.frames[f];
        for (let i = 0; i < frame.length; i += 3) worst = Math.max(worst, Math.hypot(frame[i] - ref[i], frame[i + 1] - ref[i + 1], frame[i + 2] - ref[i + 2]));
      });
      const sorted = [...fast.times].sort((a, b) => a - b);
      rows.push({ handles, cubature, stepMsMedian: quantile(sorted, 0.5), stepMsP99: quantile(sorted, 0.99), iterationsMean: fast.iterations, errorVsConverged: worst / diag });
      process.stderr.write(`sim ${handles} handles x ${cubature} cubature done\n`);
    }
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
const sim = await benchSim();
const bake = await benchBake();
if (json) {
  process.stdout.write(`${JSON.stringify({ sim, bake })}\n`);
} else {
  const f = (v: number, d = 3) => v.toFixed(d);
  process.stdout.write("Reduced step: spot (0.3 m jelly) on the floor, its top pulled up 0.2 m over 1 s and held 1 s, 60 Hz\n");
  process.stdout.write("(error: largest render-vertex distance to the same subspace solved to full convergence, over the run)\n");
  process.stdout.write("| handles | cubature | step ms median | step ms p99 | iterations | error vs converged (of diagonal) |\n|---|---|---|---|---|---|\n");
  for (const r of sim) process.stdout.write(`| ${r.handles} | ${r.cubature} | ${f(r.stepMsMedian)} | ${f(r.stepMsP99)} | ${f(r.iterationsMean, 1)} | ${(100 * r.errorVsConverged).toFixed(3)}% |\n`);
  process.stdout.write("\nBake (baseline fields, 16 + 1 handles, 256 cubature)\n| mesh | vertices | ms |\n|---|---|---|\n");
  for (const r of bake) process.stdout.write(`| ${r.mesh} | ${r.vertices} | ${f(r.ms, 0)} |\n`);
}
