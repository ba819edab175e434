// What a cold visitor downloads (issue 29): the built client is served compressed (Brotli, else gzip) with its hashed
// assets cached for good, the page loads only the onnxruntime-web build it needs and starts fetching its wasm
// before it joins the room, and a cold page stays within the byte targets (bytes are counted, not timed).

import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { PLAYGROUND } from "../../shared/scene";
import { PAGE_BYTE_TARGETS, PageBytes } from "../bench/page-bytes";
import { launchBrowser, waitForPage, type Browser } from "./browser";

const BUILD = path.resolve(import.meta.dirname, "../../client/dist");
const IMMUTABLE = /^public, max-age=31536000, immutable$/;

let server: RunningServer;
let origin: string;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "page-bytes", log: () => undefined });
  origin = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
});

/** The wasm files the built client references (the page preloads the first). */
async function builtWasm(): Promise<string[]> {
  const html = await readFile(path.join(BUILD, "index.html"), "utf8");
  return [...html.matchAll(/href="\.\/(assets\/[^"]+\.wasm)"/g)].map((m) => m[1]);
}

const get = (url: string, acceptEncoding: string) => fetch(url, { headers: { "accept-encoding": acceptEncoding } });

describe("the built client over HTTP", () => {
  it("sends the wasm runtime Brotli- or gzip-compressed as the browser accepts, as application/wasm, cached for good", async () => {
    const [wasm] = await builtWasm();
    expect(wasm, "index.html preloads the wasm runtime").toBeDefined();
    const raw = await readFile(path.join(BUILD, wasm));
    for (const [accepted, encoding, decode] of [["gzip, deflate, br, zstd", "br", brotliDecompressSync], ["gzip, deflate", "gzip", gunzipSync], ["identity", null, (b: Buffer) => b]] as const) {
      const response = await get(`${origin}/${wasm}`, accepted);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-encoding")).toBe(encoding);
      expect(response.headers.get("content-type")).toBe("application/wasm");
      expect(response.headers.get("cache-control")).toMatch(IMMUTABLE);
      expect(response.headers.get("vary")).toMatch(/Accept-Encoding/i);
      // Node's fetch decodes the body as a browser does; Content-Length counts the bytes sent.
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.equals(raw)).toBe(true);
      const sent = Number(response.headers.get("content-length"));
      if (encoding) {
        expect(sent).toBeLessThan(raw.length * 0.3);
        expect(decode(await readFile(path.join(BUILD, `${wasm}.${encoding === "br" ? "br" : "gz"}`))).equals(raw)).toBe(true);
      } else {
        expect(sent).toBe(raw.length);
      }
    }
  });

  it("revalidates the pages on every visit, sends them compressed, and leaves the 28 MB WebGPU (JSEP) runtime out", async () => {
    for (const page of ["/", "/index.html", "/admin.html"]) {
      const response = await get(`${origin}${page}`, "gzip, deflate, br");
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control"), page).toBe("no-cache");
      expect(response.headers.get("content-encoding"), page).toBe("br");
      expect(response.headers.get("content-type"), page).toMatch(/^text\/html/);
    }
    const assets = await readdir(path.join(BUILD, "assets"));
    expect(assets.filter((f) => /jsep|asyncify/.test(f))).toEqual([]);
  });

  it("sends the networks and the controller models compressed as well", async () => {
    for (const url of ["/models/skinning-decoder.onnx", "/models/secondary-fox.onnx", "/profiles/generic-hand/left.glb", "/profiles/profilesList.json"]) {
      const response = await get(`${origin}${url}`, "gzip, deflate, br");
      expect(response.status, url).toBe(200);
      expect(response.headers.get("content-encoding"), url).toBe("br");
      expect(response.headers.get("vary"), url).toMatch(/Accept-Encoding/i);
      await response.arrayBuffer();
    }
  });
});

describe("a cold visitor", () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("downloads at most 8 MB until the room's bodies show and 10 MB in all, the wasm once, fetched before joining", { timeout: 400_000 }, async () => {
    // No request routing here: playwright turns the browser's HTTP cache off while it routes.
    const page = await browser.context.newPage();
    const errors: string[] = [], started: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("request", (request) => started.push(request.url()));
    const bytes = new PageBytes(page);
    await page.goto(`${origin}/`);
    await waitForPage(page, "window.pliant && window.pliant.ready", 180_000);
    const untilVisible = await bytes.table();
    const characters = JSON.stringify((PLAYGROUND.characters ?? []).map((c) => c.id));
    await waitForPage(page, `${characters}.every((id) => (window.pliant.character(id)?.learnedSteps ?? 0) > 0)`, 180_000);
    const inAll = await bytes.table();
    const summary = bytes.responses.map((r) => `${r.kind} ${r.wire} ${r.contentEncoding || "-"} ${new URL(r.url).pathname}`).join("\n");

    expect(started.filter((url) => !url.startsWith(origin) && !/^(data|blob):/.test(url))).toEqual([]);
    expect(untilVisible.total.wire, summary).toBeLessThanOrEqual(PAGE_BYTE_TARGETS.untilVisible);
    expect(inAll.total.wire, summary).toBeLessThanOrEqual(PAGE_BYTE_TARGETS.inAll);
    // One runtime, downloaded once (the preload and onnxruntime's own fetch share it), compressed.
    const wasm = bytes.responses.filter((r) => r.kind === "wasm");
    expect(wasm.map((r) => new URL(r.url).pathname)).toEqual((await builtWasm()).map((f) => `/${f}`));
    expect(wasm[0].contentEncoding).toBe("br");
    // Asked for before the page asks the room for a seat, not once a character needs it.
    const wasmAt = started.findIndex((url) => url.endsWith(".wasm")), joinAt = started.findIndex((url) => url.includes("/matchmake/"));
    expect(joinAt).toBeGreaterThan(0);
    expect(wasmAt).toBeGreaterThanOrEqual(0);
    expect(wasmAt).toBeLessThan(joinAt);
    expect(errors).toEqual([]);
    await page.close();
  });
});
