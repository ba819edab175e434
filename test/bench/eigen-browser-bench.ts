// npx tsx test/bench/eigen-browser-bench.ts [--pairs N]: how long the skinning-eigenmode fields
// (createEigenFields, shared/skinning/eigen.ts, 16 handles as bakes use) take in a dedicated Web Worker in headless
// Chromium against Node, for spot and the Stanford bunny. Each side parses the OBJ with the repo's parser and
// prepares the solid as bakeMesh does (eigen-browser-worker.ts); only createEigenFields is timed. The worker is
// bundled with esbuild and served from 127.0.0.1; nothing else is reached. Per mesh: one warm-up on each side,
// then N pairs (default 3) run one after the other (Node, browser, Node, browser...), so that load from other
// processes hits both sides of a pair alike: the ratio to quote is the median of the pairs' ratios.
// Prints a markdown table.

import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { launchBrowser, openPage } from "../browser/browser";
import { prepareSolid, timeEigenFields, type EigenRun } from "./eigen-browser-worker";

const MESHES = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
const MESH_NAMES = ["spot", "stanford-bunny"];
const HANDLES = 16;
const pairsArg = process.argv.indexOf("--pairs");
const PAIRS = pairsArg >= 0 ? Number(process.argv[pairsArg + 1]) : 3;
if (!Number.isInteger(PAIRS) || PAIRS < 1) throw new Error("--pairs takes a positive integer");

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const load = () => loadavg().map((v) => v.toFixed(2)).join(", ");

const bundle = await build({
  entryPoints: [path.join(import.meta.dirname, "eigen-browser-worker.ts")],
  bundle: true, format: "esm", platform: "browser", target: "es2022", write: false, logLevel: "warning",
  // @gltf-transform/core (the glTF parser, in shared/geometry's parseMesh) imports these dynamically in its Node-only
  // file reader, which a worker parsing an OBJ never reaches.
  external: ["node:fs", "node:path"],
});
const workerJs = bundle.outputFiles[0].contents;

// The page keeps one module worker and exposes runEigen(meshUrl, handles) -> the worker's reply.
const PAGE = `<!doctype html><meta charset="utf-8"><title>eigen bench</title><script>
const worker = new Worker("/worker.js", { type: "module" });
const pending = new Map();
let nextId = 0;
worker.onmessage = ({ data }) => {
  const p = pending.get(data.id);
  pending.delete(data.id);
  if (data.error) p.reject(new Error(data.error)); else p.resolve(data);
};
worker.onerror = (event) => { for (const p of pending.values()) p.reject(new Error("worker: " + event.message)); pending.clear(); };
window.runEigen = (mesh, handles) => new Promise((resolve, reject) => {
  const id = nextId++;
  pending.set(id, { resolve, reject });
  worker.postMessage({ id, mesh, handles });
});
</script>`;

const server = createServer((request, response) => {
  const url = request.url ?? "/";
  const mesh = /^\/meshes\/([a-z-]+)\.obj$/.exec(url);
  if (url === "/") {
    response.writeHead(200, { "content-type": "text/html" }).end(PAGE);
  } else if (url === "/worker.js") {
    response.writeHead(200, { "content-type": "text/javascript" }).end(workerJs);
  } else if (mesh && MESH_NAMES.includes(mesh[1])) {
    response.writeHead(200, { "content-type": "text/plain" }).end(readFileSync(path.join(MESHES, `${mesh[1]}.obj`)));
  } else {
    response.writeHead(404).end();
  }
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const loadBefore = load();
const browser = await launchBrowser({ niced: false });
const rows: string[] = [], summary: string[] = [];
let chromiumVersion = "";
try {
  const { page, errors, offsite } = await openPage(browser, origin, "/");
  // The user agent gives the major version only (the rest reads 0.0.0).
  chromiumVersion = /Chrome\/(\d+)/.exec(await page.evaluate("navigator.userAgent") as string)?.[1] ?? "?";
  const inBrowser = async (name: string): Promise<EigenRun> => {
    const run = await page.evaluate(`window.runEigen("/meshes/${name}.obj", ${HANDLES})`) as EigenRun;
    if (errors.length || offsite.length) throw new Error(`page errors: ${errors.join("; ")}; offsite requests: ${offsite.join(", ")}`);
    return run;
  };
  for (const name of MESH_NAMES) {
    const solid = await prepareSolid(readFileSync(path.join(MESHES, `${name}.obj`)));
    const inNode = () => timeEigenFields(solid, HANDLES);
    process.stderr.write(`${name}: warm-up...\n`);
    const warmNode = inNode(), warmBrowser = await inBrowser(name);
    const nodeMs: number[] = [], browserMs: number[] = [], ratios: number[] = [];
    let eigenDiff = 0;
    for (let pair = 1; pair <= PAIRS; pair++) {
      const n = inNode(), b = await inBrowser(name);
      for (let f = 0; f < HANDLES; f++) eigenDiff = Math.max(eigenDiff, Math.abs(n.eigenvalues[f] - b.eigenvalues[f]) / Math.abs(n.eigenvalues[f]));
      nodeMs.push(n.ms);
      browserMs.push(b.ms);
      ratios.push(b.ms / n.ms);
      rows.push(`| ${name} | ${pair} | ${n.ms.toFixed(0)} | ${b.ms.toFixed(0)} | ${(b.ms / n.ms).toFixed(2)} |`);
      process.stderr.write(`${name} pair ${pair}: Node ${n.ms.toFixed(0)} ms, browser ${b.ms.toFixed(0)} ms\n`);
    }
    summary.push(`| ${name} | ${warmNode.cells.join("x")} | ${warmNode.ms.toFixed(0)} / ${warmBrowser.ms.toFixed(0)} | ${median(nodeMs).toFixed(0)} | ${median(browserMs).toFixed(0)} | ${median(ratios).toFixed(2)} | ${eigenDiff.toExponential(1)} |`);
  }
} finally {
  await browser.close();
  server.close();
}

console.log(`createEigenFields, ${HANDLES} handles: Node ${process.version} against a dedicated worker in headless Chromium ${chromiumVersion}`);
console.log(`(${cpus().length} cores; load average ${loadBefore} before, ${load()} after)\n`);
console.log("| mesh | pair | Node ms | Chromium worker ms | browser/Node |\n|---|---|---|---|---|");
for (const row of rows) console.log(row);
console.log("\n| mesh | grid cells | warm-up ms (Node / browser) | Node median ms | browser median ms | median of pair ratios | eigenvalues' largest relative difference |\n|---|---|---|---|---|---|---|");
for (const row of summary) console.log(row);
