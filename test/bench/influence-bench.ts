// npm run bench:influences [-- --json]: how many learned influences per render vertex the GPU skinning needs. Each
// mesh (0.3 m jelly on the floor) has its top pulled up 0.2 m over 1 s and held 1 s; the largest distance between
// full skinning and the truncated one, over the render vertices and the run, is reported per influence count.

import path from "node:path";
import { FloorContact } from "../../shared/sim";
import { computeRenderInfluences, INFLUENCE_COUNTS, truncationError } from "../../shared/skinning";
import { createSoftBody, loadBody } from "../../server/scenarios/body-from-mesh";

const MESH_DIRECTORY = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
const MESHES = ["spot.obj", "stanford-bunny.obj", "teapot.obj", "cow.obj"];
const JELLY = { youngsModulus: 1e5, poissonRatio: 0.45, density: 1000 };
const SIZE = 0.3;
const DT = 1 / 60;

interface Row { mesh: string; vertices: number; influences: number; worstMm: number; computeMs: number }

const rows: Row[] = [];
for (const file of MESHES) {
  const loaded = await loadBody({ mesh: path.join(MESH_DIRECTORY, file), weights: "baseline", handles: 16, cubature: 256, size: SIZE });
  const rest = loaded.renderRest;
  let minY = Infinity, top = 0;
  for (let i = 0; i < rest.length / 3; i++) {
    minY = Math.min(minY, rest[3 * i + 1]);
    if (rest[3 * i + 1] > rest[3 * top + 1]) top = i;
  }
  const body = createSoftBody(loaded, JELLY, {}, [0, -minY, 0]);
  body.addContactSurface(new FloorContact(0));
  const start = [rest[3 * top], rest[3 * top + 1] - minY, rest[3 * top + 2]];
  const grab = body.grab(start[0], start[1], start[2]);
  const states: Float64Array[] = [];
  for (let s = 0; s < 120; s++) {
    body.moveGrab(grab, start[0], start[1] + 0.2 * Math.min(1, (s + 1) * DT), start[2]);
    body.step();
    if (s % 10 === 9) states.push(body.q.slice());
  }
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
