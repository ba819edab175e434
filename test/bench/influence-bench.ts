// npm run bench:influences [-- --json]: how many learned influences per render vertex the GPU skinning needs. Each
// mesh (0.3 m jelly on the floor) goes through the pull (scenario-run.ts); the largest distance between
// full skinning and the truncated one, over the render vertices and the run, is reported per influence count.

import path from "node:path";
import { computeRenderInfluences, INFLUENCE_COUNTS, truncationError } from "../../shared/skinning";
import { loadBody } from "../../server/scenarios/body-from-mesh";
import { scenarioRun } from "./scenario-run";

const MESH_DIRECTORY = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
const MESHES = ["spot.obj", "stanford-bunny.obj", "teapot.obj", "cow.obj"];
const SIZE = 0.3;

interface Row { mesh: string; vertices: number; influences: number; worstMm: number; computeMs: number }

const rows: Row[] = [];
for (const file of MESHES) {
  const loaded = await loadBody({ mesh: path.join(MESH_DIRECTORY, file), weights: "baseline", handles: 16, cubature: 256, size: SIZE });
  const states: Float64Array[] = [];
  scenarioRun(loaded, { scenario: "pull" }, {}, (body, step) => {
    if (step % 10 === 9) states.push(body.q.slice());
  });
  for (const influences of INFLUENCE_COUNTS) {
    const t0 = performance.now();
    const table = computeRenderInfluences(loaded.baked, influences);
    const computeMs = performance.now() - t0;
    let worst = 0;
    for (const q of states) worst = Math.max(worst, truncationError(loaded.baked, table, q, SIZE));
    rows.push({ mesh: file, vertices: table.vertexCount, influences, worstMm: 1000 * worst, computeMs });
  }
  process.stderr.write(`${file} done\n`);
}
if (process.argv.includes("--json")) process.stdout.write(`${JSON.stringify(rows)}\n`);
else {
  process.stdout.write("GPU skinning: learned influences per vertex (of 16) against full skinning, 0.3 m jelly pulled up 0.2 m\n");
  process.stdout.write("| mesh | vertices | influences | worst vertex error mm | table ms (Node) |\n|---|---|---|---|---|\n");
  for (const r of rows) process.stdout.write(`| ${r.mesh} | ${r.vertices} | ${r.influences} | ${r.worstMm.toFixed(3)} | ${r.computeMs.toFixed(0)} |\n`);
}
