// Every page decodes the skinning network itself (issue 30): a room baked with the network's finished fields
// (SKINNING=model) sends its bodies with the grid fields
// the physics uses, and each page's bake worker then decodes the network (onnxruntime-web) to refine its render
// weights between the grid's nodes (shared/skinning/refined-fields.ts). On WebGPU when the browser offers an
// adapter (this Chromium does with --enable-unsafe-webgpu: SwiftShader's, in software), on wasm otherwise; either
// way the page's weights are Node's (onnxruntime-node) within float32 round-off, and the page says what it ran on.
// The room holds two small bodies, the dough ball and a jelly cube: SwiftShader's WebGPU runs the decoder about 100
// times slower than wasm (models/README.md has the table); two bodies refine at once, through one decoder session.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { configurePlayground } from "../../server/room/playground-config";
import { MODEL_DIRECTORY } from "../../server/skinning/model-provider";
import { fieldChoice } from "../../server/skinning/weights-source";
import { BAKE_CACHE_DIRECTORY } from "../../server/world/bake-cache";
import { PLAYGROUND, type SceneLayout, type SoftBodySpec } from "../../shared/scene";
import { decodeBakedBody, refinedRenderWeights, type DecoderRuntime, type OrtModule } from "../../shared/skinning";
import { inPage, launchBrowser, openPage, waitForPage } from "./browser";
import { bakeWeightNorms, pageWeightNorms, relativeDifference, seamSources } from "./page-weights";

let server: RunningServer;
let node: DecoderRuntime;

const DOUGH = PLAYGROUND.bodies.find((b) => b.id === "dough-ball")!;
const CUBE: SoftBodySpec = { id: "jelly-cube", mesh: "box:0.1x0.1x0.1", size: 0.1, material: "jelly", position: [DOUGH.position[0] + 0.25, DOUGH.position[1], DOUGH.position[2]] };
const LAYOUT: SceneLayout = { ...PLAYGROUND, bodies: [DOUGH, CUBE], characters: [] };

beforeAll(async () => {
  configurePlayground({ layout: LAYOUT });
  const model = await fieldChoice("model");
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "inference", provider: model.provider, providerKey: model.providerKey, log: () => undefined });
  const ort = (await import("onnxruntime-node")) as unknown as OrtModule;
  node = { ort, decoder: await ort.InferenceSession.create(new Uint8Array(await readFile(path.join(MODEL_DIRECTORY, "skinning-decoder.onnx")))) };
});

afterAll(async () => {
  await server?.close();
  // Later files in this process start their own servers with the default room.
  configurePlayground({ layout: PLAYGROUND, fields: null });
});

describe("the skinning network in every page", () => {
  for (const webGpu of [true, false]) {
    const provider = webGpu ? "webgpu" : "wasm";
    it(`${webGpu ? "with" : "without"} a WebGPU adapter, the page refines the bodies' weights on ${provider}, as Node does`, async () => {
      const browser = await launchBrowser({ webGpu });
      try {
        const page = await openPage(browser, `http://127.0.0.1:${server.port}`, "/");
        await waitForPage(page.page, "window.pliant && window.pliant.ready", 120_000);
        const bodyBakes = await inPage<string[]>(page.page, "[...window.pliant.client.room.state.bodies.values()].map((b) => b.bake)");
        expect(bodyBakes.length).toBe(LAYOUT.bodies.length);
        // Each body refined once its worker has decoded the network.
        await waitForPage(page.page, `(() => { const refined = window.pliant.bakes.filter((b) => b.inference); return ${JSON.stringify(bodyBakes)}.every((h) => refined.some((b) => b.hash === h)); })()`, 300_000);
        const inference = await inPage<{ provider: string; ms: number; queries: number }>(page.page, "window.pliant.inference");
        expect(inference.provider).toBe(provider);
        expect(inference.queries).toBeGreaterThan(0);
        expect(inference.ms).toBeGreaterThan(0);
        for (const hash of bodyBakes) {
          const bake = decodeBakedBody(new Uint8Array(await readFile(path.join(BAKE_CACHE_DIRECTORY, `${hash}.bake`))));
          const h = bake.learnedHandles + 1, sources = seamSources(bake.triangles, bake.renderUVTriangles, bake.renderPositions.length / 3);
          const refined = await refinedRenderWeights(bake, bake.renderWeights, node);
          expect(refined, `${hash} carries the network's refinement`).not.toBeNull();
          const inPageNorms = await pageWeightNorms(page.page, hash);
          expect(inPageNorms.length).toBe(sources.length);
          // The page's weights are Node's refined ones (float32 tables and inference on both sides)...
          expect(relativeDifference(inPageNorms, bakeWeightNorms(refined!.weights, h, sources))).toBeLessThan(1e-4);
          // ... and not the grid's alone: the refinement changed them.
          expect(relativeDifference(inPageNorms, bakeWeightNorms(bake.renderWeights, h, sources))).toBeGreaterThan(1e-3);
        }
        expect(page.errors).toEqual([]);
        expect(page.offsite).toEqual([]);
      } finally {
        await browser.close();
      }
    }, 600_000);
  }
});
