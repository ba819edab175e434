// The stand's big screen from every angle its camera takes: the kiosk's auto camera is held at 8 points of its
// loop round the table, and no third of the frame may be dark (the walls behind the table and beside it were
// near-black from half the loop's angles), at full quality (a stand's GPU) and at low (software GL). Four of the
// full-quality frames are kept as out/browser/kiosk-loop.png.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { ARTIFACTS, inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";
import { contactSheet, hideOverlays, keepShot, thirds } from "./screen-pixels";

const PHASES = 8;
/** Luminance (0-255, of the sRGB pixels) below which a pixel reads as black on a big screen. */
const NEAR_BLACK = 24;
/** Each third of every frame: at least this mean luminance, and at most this share of near-black pixels. */
const MIN_MEAN = 55;
const MAX_DARK = 0.05;

let server: RunningServer;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "room-look", log: () => undefined });
  origin = `http://127.0.0.1:${server.port}`;
  // A big screen's shape at a quarter of its pixels: software GL draws each frame of the loop 4x sooner, and the
  // thirds' luminance does not depend on the resolution.
  browser = await launchBrowser({ viewport: { width: 640, height: 360 } });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function renderedFrames(kiosk: WatchedPage, frames: number): Promise<void> {
  const start = await inPage<number>(kiosk.page, "window.pliant.frameStats.count");
  await waitForPage(kiosk.page, `window.pliant.frameStats.count >= ${start + frames}`, 120_000);
}

/**
 * The kiosk at `quality`, its auto camera held at each point of its loop in turn: what is wrong with each third of
 * each frame (none: nothing). `sheet`: where to keep four of the frames, side by side.
 */
async function lookRoundTheLoop(quality: "high" | "low", sheet?: string): Promise<string[]> {
  const kiosk = await openPage(browser, origin, `/?kiosk&quality=${quality}`);
  await waitForPage(kiosk.page, "window.pliant && window.pliant.ready", 480_000);
  await waitForPage(kiosk.page, "(window.pliant.bodyLook('spot')?.textureWidth ?? 0) > 0", 60_000);
  await hideOverlays(kiosk.page);
  const seen: string[] = [], failures: string[] = [];
  for (let k = 0; k < PHASES; k++) {
    await inPage(kiosk.page, `window.pliant.pinAutoCamera(${(2 * Math.PI * k) / PHASES})`);
    // The camera moves on the first frame after the pin; a few more settle its focus on the bodies.
    await renderedFrames(kiosk, 4);
    const name = `phase-${k}`;
    await keepShot(kiosk.page, name, await kiosk.page.screenshot({ path: path.join(ARTIFACTS, `kiosk-loop-${quality}-${k}.png`), timeout: 300_000 }));
    const parts = await thirds(kiosk.page, name, NEAR_BLACK);
    seen.push(`${k}/${PHASES}: ${parts.map((p) => `${p.mean.toFixed(0)} (${(100 * p.dark).toFixed(1)}% dark)`).join(", ")}`);
    parts.forEach((p, t) => {
      if (p.mean < MIN_MEAN || p.dark > MAX_DARK) failures.push(`${["top", "middle", "bottom"][t]} third at ${k}/${PHASES} of the loop: mean ${p.mean.toFixed(0)}, ${(100 * p.dark).toFixed(1)}% near-black`);
    });
  }
  console.info(`kiosk loop, ${quality} quality: mean luminance of the top, middle and bottom thirds\n${seen.join("\n")}`);
  if (sheet) writeFileSync(sheet, await contactSheet(kiosk.page, [0, 2, 4, 6].map((k) => `phase-${k}`), 2, 1));
  expect(kiosk.errors).toEqual([]);
  expect(kiosk.offsite).toEqual([]);
  await kiosk.page.close();
  return failures;
}

describe("the kiosk's look", () => {
  it("lights every wall and the floor the auto camera faces round its whole loop, on a stand's GPU", async () => {
    expect(await lookRoundTheLoop("high", path.join(ARTIFACTS, "kiosk-loop.png"))).toEqual([]);
  }, 900_000);

  it("and in software GL (no shadows, no studio light)", async () => {
    expect(await lookRoundTheLoop("low")).toEqual([]);
  }, 900_000);
});
