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

/**
 * The bake's vertex behind each vertex the browser draws: a textured mesh is split along its seams, one vertex per
 * (vertex, UV point) pair in the order triangle corners first use them (splitTextureSeams); otherwise the same.
 */
function seamSources(triangles: Uint32Array, uvTriangles: Uint32Array, vertices: number): number[] {
  if (uvTriangles.length === 0) return Array.from({ length: vertices }, (_, v) => v);
  const seen = new Set<string>(), source: number[] = [];
  triangles.forEach((v, k) => {
    const key = `${v}/${uvTriangles[k]}`;
    if (!seen.has(key)) { seen.add(key); source.push(v); }
  });
  return source;
}

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
      // Per vertex, the squared length of its 16 learned weights (the GPU tables hold them sorted by strength).
      const inBrowser = await inPage<number[]>(page.page, `(() => {
        const t = window.pliant.loader.get(${JSON.stringify(bake.hash)}).influences, out = [];
        for (let v = 0; v < t.vertexCount; v++) { let s = 0; for (let k = 0; k < t.influences; k++) s += t.weights[v * t.influences + k] ** 2; out.push(s); }
        return out;
      })()`);
      const server = decodeBakedBody(new Uint8Array(await readFile(path.join(BAKE_CACHE_DIRECTORY, `${bake.hash}.bake`))));
      const h = server.learnedHandles + 1, source = seamSources(server.triangles, server.renderUVTriangles, server.renderPositions.length / 3);
      let worst = 0, largest = 0;
      inBrowser.forEach((value, i) => {
        const v = source[i];
        let s = 0;
        for (let k = 1; k < h; k++) s += server.renderWeights[v * h + k] ** 2;
        worst = Math.max(worst, Math.abs(value - s));
        largest = Math.max(largest, s);
      });
      expect(inBrowser.length).toBe(source.length);
      // float32 tables and float32 inference on both sides.
      expect(worst).toBeLessThan(1e-4 * largest);
    }
    expect(page.errors).toEqual([]);
    expect(page.offsite).toEqual([]);
  });
});
