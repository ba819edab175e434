// npm run bench:inference [-- --providers webgpu,wasm] [--json]: how long a page takes to decode the skinning
// network for the default room's bodies baked with the network's fields (SKINNING=model; the refinement of their
// render weights, shared/skinning/refined-fields.ts) on each onnxruntime-web execution provider, and to run the
// fox's secondary-motion network. WebGPU here is SwiftShader's software adapter (Chromium with
// --enable-unsafe-webgpu); wasm is single-threaded. One fresh page per provider; per body the network queries and
// the milliseconds the worker took (window.pliant.bakes[].inference); for the fox, RUNS of its page's runs after the
// bodies are decoded and their milliseconds (window.pliant.character("fox").learnedRuntime; a run is the steps
// queued since the last one, one or a few).

import { startServer } from "../../server/app";
import { fieldChoice } from "../../server/skinning/weights-source";
import { launchBrowser, waitForPage, inPage } from "../browser/browser";

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const providers = (argument("--providers") ?? "wasm,webgpu").split(",");
for (const p of providers) if (p !== "wasm" && p !== "webgpu") throw new Error(`--providers lists wasm and webgpu, not ${p}`);

interface Row { provider: string; body: string; vertices: number; queries: number; ms: number }
interface CharacterRow { provider: string; character: string; runs: number; ms: number }
const RUNS = 20;
const rows: Row[] = [], characterRows: CharacterRow[] = [];
// The room baked with the network's finished fields, whatever SKINNING says: only those carry the refinement a page
// decodes (eigen's give the page nothing to run).
const model = await fieldChoice("model");
const server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "bench", log: () => undefined, provider: model.provider, providerKey: model.providerKey });
try {
  for (const provider of providers) {
    const browser = await launchBrowser({ niced: false, webGpu: provider === "webgpu" });
    try {
      const page = await browser.context.newPage();
      await page.goto(`http://127.0.0.1:${server.port}/`);
      await waitForPage(page, "window.pliant && window.pliant.ready", 180_000);
      const bodies = await inPage<{ id: string; bake: string }[]>(page, "[...window.pliant.client.room.state.bodies.values()].map((b) => ({ id: b.id, bake: b.bake }))");
      const hashes = JSON.stringify(bodies.map((b) => b.bake));
      await waitForPage(page, `${hashes}.every((h) => window.pliant.bakes.some((b) => b.hash === h && b.inference))`, 1_800_000);
      const bakes = await inPage<{ hash: string; vertices: number; inference: { provider: string; ms: number; queries: number } }[]>(page, "window.pliant.bakes");
      for (const body of bodies) {
        const bake = bakes.find((b) => b.hash === body.bake)!;
        if (bake.inference.provider !== provider) throw new Error(`asked for ${provider}, the page ran ${bake.inference.provider}`);
        rows.push({ provider, body: body.id, vertices: bake.vertices, queries: bake.inference.queries, ms: bake.inference.ms });
      }
      // The fox's runs once the bodies are decoded (the worker's decoding no longer shares the machine with them).
      const foxRuntime = `window.pliant.character("fox")?.learnedRuntime`;
      await waitForPage(page, `${foxRuntime} != null`, 1_800_000);
      const from = await inPage<{ provider: string; runs: number; ms: number }>(page, foxRuntime);
      await waitForPage(page, `${foxRuntime}.runs >= ${from.runs + RUNS}`, 1_800_000);
      const to = await inPage<{ provider: string; runs: number; ms: number }>(page, foxRuntime);
      if (to.provider !== provider) throw new Error(`asked for ${provider}, the fox's network ran on ${to.provider}`);
      characterRows.push({ provider, character: "fox", runs: to.runs - from.runs, ms: to.ms - from.ms });
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}

if (process.argv.includes("--json")) {
  process.stdout.write(`${JSON.stringify({ decoder: rows, secondary: characterRows })}\n`);
} else {
  process.stdout.write("| provider | body | drawn vertices | network queries | ms | queries per ms |\n|---|---|---|---|---|---|\n");
  for (const r of rows) process.stdout.write(`| ${r.provider} | ${r.body} | ${r.vertices} | ${r.queries} | ${r.ms.toFixed(0)} | ${(r.queries / r.ms).toFixed(2)} |\n`);
  process.stdout.write("\n| provider | character | secondary-motion runs | ms a run (mean) |\n|---|---|---|---|\n");
  for (const r of characterRows) process.stdout.write(`| ${r.provider} | ${r.character} | ${r.runs} | ${(r.ms / r.runs).toFixed(2)} |\n`);
}
