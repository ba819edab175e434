// The overlay keeps to the screen's edges, in real Chromium: on a desktop (1280 x 720), a phone held sideways
// (844 x 390, touch, 2 device pixels per CSS pixel) and upright (390 x 844), as a visitor arrives, joins and adds
// a mesh, the HUD's panels cover at most 12% of a desktop's screen and 15% of a phone's, and none of them ever
// covers the table's bodies or the new body's placeholder, as the camera shows them (the page checks at every
// frame). The phone held sideways is saved to out/browser/phone-landscape.png.

import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser as ChromiumBrowser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { ARTIFACTS, inPage, openPage, waitForPage, type WatchedPage } from "./browser";
import { watchLayout, type LayoutWatch } from "./hud-probes";

const SCREENS = [
  { name: "desktop", width: 1280, height: 720, phone: false, maxArea: 0.12, mesh: "beetle" },
  { name: "phone-landscape", width: 844, height: 390, phone: true, maxArea: 0.15, mesh: "ladybird" },
  { name: "phone-portrait", width: 390, height: 844, phone: true, maxArea: 0.15, mesh: "snail" },
] as const;

let server: RunningServer;
// Phones need contexts of their own (touch, device pixels), which browser.ts's one persistent context cannot give:
// the same Chromium, launched the same way, with a context per screen.
let chromiumBrowser: ChromiumBrowser;
let origin: string;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "layout", log: () => undefined, uploadRate: { perMinute: 600, burst: 100 } });
  origin = `http://127.0.0.1:${server.port}`;
  chromiumBrowser = await chromium.launch({
    executablePath: path.join(import.meta.dirname, "niced-chromium.sh"), headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
    ],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await chromiumBrowser?.close();
  await server?.close();
});

/**
 * A small mesh no bake cache holds (a lumpy ellipsoid, its bumps new each run): its bake takes long enough for the
 * placeholder to stand on the table for a good many frames.
 */
function freshMesh(): string {
  const rings = 8, segments = 12, seed = Math.random();
  const lines: string[] = ["# a beetle-ish lump"];
  lines.push(`v 0 ${0.6} 0`);
  for (let i = 1; i < rings; i++) {
    const t = (Math.PI * i) / rings;
    for (let j = 0; j < segments; j++) {
      const a = (2 * Math.PI * j) / segments, bump = 1 + 0.08 * Math.sin(7 * a + 13 * seed + 3 * i);
      lines.push(`v ${(bump * Math.sin(t) * Math.cos(a)).toFixed(5)} ${(0.6 * Math.cos(t)).toFixed(5)} ${(0.8 * bump * Math.sin(t) * Math.sin(a)).toFixed(5)}`);
    }
  }
  lines.push(`v 0 ${-0.6} 0`);
  const ring = (i: number, j: number) => 2 + (i - 1) * segments + (j % segments);
  const bottom = 2 + (rings - 1) * segments;
  for (let j = 0; j < segments; j++) lines.push(`f 1 ${ring(1, j + 1)} ${ring(1, j)}`);
  for (let i = 1; i < rings - 1; i++) {
    for (let j = 0; j < segments; j++) lines.push(`f ${ring(i, j)} ${ring(i, j + 1)} ${ring(i + 1, j + 1)} ${ring(i + 1, j)}`);
  }
  for (let j = 0; j < segments; j++) lines.push(`f ${bottom} ${ring(rings - 1, j)} ${ring(rings - 1, j + 1)}`);
  return `${lines.join("\n")}\n`;
}

/** Waits for `expression`; a timeout says what the page showed and how its connection stood. */
async function waitFor(page: WatchedPage, expression: string, timeoutMs: number): Promise<void> {
  await waitForPage(page.page, expression, timeoutMs).catch(async (error: Error) => {
    const said = await inPage<string>(page.page, "JSON.stringify({ text: document.body.innerText, connection: { ...window.pliant.connection.snapshot, client: undefined }, ready: window.pliant.ready })");
    throw new Error(`${error.message}; the page: ${said}; its errors: ${page.errors.join(" | ")}`);
  });
}

async function layout(page: WatchedPage): Promise<LayoutWatch> {
  return inPage<LayoutWatch>(page.page, "window.__layout");
}

/** Waits until the page has checked its layout on `frames` more frames. */
async function checkedFrames(page: WatchedPage, frames: number): Promise<void> {
  const start = (await layout(page)).frames;
  await waitForPage(page.page, `window.__layout.frames >= ${start + frames}`, 60_000);
}

describe("the overlay keeps to the edges", () => {
  for (const screen of SCREENS) {
    it(`${screen.name} (${screen.width} x ${screen.height}): a visitor arrives, joins and adds a mesh`, async () => {
      const context = await chromiumBrowser.newContext({
        viewport: { width: screen.width, height: screen.height }, ...(screen.phone ? { deviceScaleFactor: 2, hasTouch: true, isMobile: true } : {}),
      });
      const visitor = await openPage({ context, close: () => context.close() }, origin, "/");
      try {
        await waitForPage(visitor.page, "window.pliant && window.pliant.ready", 120_000);
        await inPage(visitor.page, watchLayout);
        await checkedFrames(visitor, 3);
        // Joins as a player (on a phone, with the button beside the title: no form in the way).
        await visitor.page.click("text=Join as player", { timeout: 120_000 });
        await waitFor(visitor, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready", 120_000);
        // Adds a mesh, dropped on the page: its placeholder stands on the table while it bakes, then it lands.
        await inPage(visitor.page, `(() => {
          const transfer = new DataTransfer();
          transfer.items.add(new File([${JSON.stringify(freshMesh())}], "${screen.mesh}.obj"));
          window.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, cancelable: true }));
          window.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, cancelable: true }));
        })()`);
        await waitFor(visitor, "window.__layout.placeholderFrames > 0", 120_000);
        await waitFor(visitor, `window.pliant.bodyNamed("${screen.mesh}") !== null && window.pliant.ready`, 240_000);
        // The notice that it landed is up, over the room with its new body.
        await waitFor(visitor, `window.__layout.lines.some((t) => t.includes("added ${screen.mesh}"))`, 60_000);
        await checkedFrames(visitor, 3);
        if (screen.name === "phone-landscape") await visitor.page.screenshot({ path: path.join(ARTIFACTS, "phone-landscape.png"), scale: "css" });
        await visitor.page.screenshot({ path: path.join(ARTIFACTS, `hud-${screen.name}.png`), scale: "css" });

        const seen = await layout(visitor);
        console.info(`${screen.name}: the HUD covered at most ${(100 * seen.worstArea).toFixed(1)}% of the screen over ${seen.frames} checks (${seen.placeholderFrames} with a placeholder)`);
        expect(seen.hits, "HUD panels over the table's bodies or the placeholder").toEqual([]);
        expect(seen.worstArea, `the HUD's area; its rectangles then: ${JSON.stringify(seen.worstRects)}`).toBeLessThanOrEqual(screen.maxArea);
        expect(visitor.errors).toEqual([]);
        expect(visitor.offsite).toEqual([]);
      } finally {
        await context.close();
      }
    }, 600_000);
  }
});
