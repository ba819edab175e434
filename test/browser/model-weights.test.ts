// A room baked with the skinning network's own fields (SKINNING=model-raw): the page's worker runs the decoder in
// onnxruntime-web (wasm here; WebGPU where the browser has an adapter) on the latents the server sends, and gets
// the render weights the server's onnxruntime-node computed, without downloading them.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { configurePlayground } from "../../server/room/playground-config";
import { PLAYGROUND } from "../../shared/scene";
import { fieldChoice } from "../../server/skinning/weights-source";
import { BAKE_CACHE_DIRECTORY } from "../../server/world/bake-cache";
import { decodeBakedBody } from "../../shared/skinning";
import { inPage, launchBrowser, openPage, waitForPage, type Browser } from "./browser";
import { bakeWeightNorms, pageWeightNorms, relativeDifference, seamSources } from "./page-weights";

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  const raw = await fieldChoice("model-raw");
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "model", provider: raw.provider, providerKey: raw.providerKey, log: () => undefined });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  // Later files in this process start their own servers with the default fields.
  configurePlayground({ fields: null });
});

describe("network fields in the browser", () => {
  it("the worker evaluates the decoder in onnxruntime-web and matches the server's render weights", async () => {
    const page = await openPage(browser, `http://127.0.0.1:${server.port}`, "/");
    await waitForPage(page.page, "window.pliant && window.pliant.ready", 90_000);
    // The bodies' bakes (the fox's is small enough that its weights travel as they are).
    const bodyBakes = await inPage<string[]>(page.page, "[...window.pliant.client.room.state.bodies.values()].map((b) => b.bake)");
    const bakes = (await inPage<{ hash: string; weightsComputed: boolean; vertices: number }[]>(page.page, "window.pliant.bakes")).filter((b) => bodyBakes.includes(b.hash));
    expect(bakes.length).toBe(PLAYGROUND.bodies.length);
    expect(bakes.every((b) => b.weightsComputed)).toBe(true);
    for (const bake of bakes) {
      const server = decodeBakedBody(new Uint8Array(await readFile(path.join(BAKE_CACHE_DIRECTORY, `${bake.hash}.bake`))));
      const sources = seamSources(server.triangles, server.renderUVTriangles, server.renderPositions.length / 3);
      const inBrowser = await pageWeightNorms(page.page, bake.hash);
      expect(inBrowser.length).toBe(sources.length);
      // float32 tables and float32 inference on both sides.
      expect(relativeDifference(inBrowser, bakeWeightNorms(server.renderWeights, server.learnedHandles + 1, sources))).toBeLessThan(1e-4);
    }
    // What it ran on: this Chromium offers no WebGPU adapter without --enable-unsafe-webgpu.
    expect(await inPage(page.page, "window.pliant.inference")).toMatchObject({ provider: "wasm" });
    expect(page.errors).toEqual([]);
    expect(page.offsite).toEqual([]);
  });
});
