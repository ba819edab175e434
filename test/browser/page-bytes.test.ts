// What a cold visitor downloads (issue 29): the built client is served compressed (Brotli, else gzip) with its hashed
// assets cached for good, the page loads only the onnxruntime-web build it needs and starts fetching its wasm
// before it joins the room, and a cold page stays within the byte targets (bytes are counted, not timed).

import { readdir, readFile } from "node:fs/promises";
import { get as httpGet, type IncomingHttpHeaders } from "node:http";
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

/** The built client's files in assets/ (as built, without the compressed copies). */
async function builtAssets(): Promise<string[]> {
  return (await readdir(path.join(BUILD, "assets"))).filter((f) => !/\.(br|gz)$/.test(f));
}

/** The plain wasm build's runtime: what a browser without WebGPU (this headless Chromium) loads. */
const PLAIN_WASM = /^ort-wasm-simd-threaded-[\w-]+\.wasm$/;

const get = (url: string, acceptEncoding: string) => fetch(url, { headers: { "accept-encoding": acceptEncoding } });

/** A GET whose body is read as sent (fetch would decode it), with its headers. */
function getAsSent(url: string, acceptEncoding: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers: { "accept-encoding": acceptEncoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

describe("the built client over HTTP", () => {
  it("sends the wasm runtime Brotli- or gzip-compressed as the browser accepts, as application/wasm, cached for good", async () => {
    const wasm = `assets/${(await builtAssets()).find((f) => PLAIN_WASM.test(f))}`;
    const raw = await readFile(path.join(BUILD, wasm));
    for (const [accepted, encoding, decode] of [["gzip, deflate, br, zstd", "br", brotliDecompressSync], ["gzip, deflate", "gzip", gunzipSync], ["identity", undefined, (b: Buffer) => b]] as const) {
      const { status, headers, body } = await getAsSent(`${origin}/${wasm}`, accepted);
      expect(status).toBe(200);
      expect(headers["content-encoding"]).toBe(encoding);
      expect(headers["content-type"]).toBe("application/wasm");
      expect(headers["cache-control"]).toMatch(IMMUTABLE);
      expect(headers.vary).toMatch(/Accept-Encoding/i);
      expect(Number(headers["content-length"])).toBe(body.length);
      expect(decode(body).equals(raw)).toBe(true);
      if (encoding) expect(body.length).toBeLessThan(raw.length * 0.3);
    }
  });

  it("revalidates the pages on every visit, sends them compressed, and ships no 27-28 MB WebGPU runtime", async () => {
    for (const page of ["/", "/index.html", "/admin", "/admin.html"]) {
      const response = await get(`${origin}${page}`, "gzip, deflate, br");
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control"), page).toBe("no-cache");
      expect(response.headers.get("content-encoding"), page).toBe("br");
      expect(response.headers.get("content-type"), page).toMatch(/^text\/html/);
    }
    // Two runtimes: the plain wasm build and, for browsers with WebGPU and JSPI, the JSPI build.
    expect((await builtAssets()).filter((f) => f.endsWith(".wasm")).map((f) => f.replace(/-[\w-]{8}\.wasm$/, ".wasm")).sort()).toEqual(["ort-wasm-simd-threaded.jspi.wasm", "ort-wasm-simd-threaded.wasm"]);
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
    // One runtime, the plain build, downloaded once (the preload and onnxruntime's own fetch share it), compressed.
    const wasm = bytes.responses.filter((r) => r.kind === "wasm");
    expect(wasm.map((r) => path.basename(new URL(r.url).pathname))).toEqual([expect.stringMatching(PLAIN_WASM)]);
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
