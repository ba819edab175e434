// A page that draws slowly keeps its grabs; a frozen one is let go. In real Chromium against a real server on
// loopback: a player drags a body with the mouse and holds it while the page draws a frame only every 1.5 silent
// holds (a slow GPU: the main thread free between frames), and the room still holds the grab after more than three
// silent holds (it used to let go within the first: only messages sent from the frame loop counted). Then the
// page's main thread is frozen (paused in the debugger) mid-grab, and the room lets go of it.

import type { CDPSession } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { matchMaker } from "@colyseus/core";
import { startServer, type RunningServer } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import { LIMITS, TICK_RATE } from "../../shared/net";
import { inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";
import { samplePoint, topSample } from "./page-probes";

/** The slow page draws a frame this often, ms: more than a silent hold apart. */
const FRAME_EVERY_MS = 1.5 * LIMITS.silentHoldSeconds * 1000;
const SILENT_HOLD_TICKS = LIMITS.silentHoldSeconds * TICK_RATE;
const BODY = "dough-ball";

let server: RunningServer;
let browser: Browser;
let origin: string;
let player: WatchedPage;
let cdp: CDPSession;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "slow-page-admin", log: () => undefined });
  origin = `http://127.0.0.1:${server.port}`;
  browser = await launchBrowser();
  player = await openPage(browser, origin, "/");
  await waitForPage(player.page, "window.pliant && window.pliant.ready");
  await player.page.fill("input[aria-label=name]", "Slow hand");
  await player.page.click("text=Join as player");
  await waitForPage(player.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready");
  cdp = await browser.context.newCDPSession(player.page);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const publicRoom = () => matchMaker.getLocalRoomById(server.publicRoomId) as PlaygroundRoom;

/** Presses the mouse on the body's top and waits until the room holds the grab; returns the grab's state entry. */
async function grabWithTheMouse() {
  const sessionId = await inPage<string>(player.page, "window.pliant.client.sessionId");
  const at = await inPage<number[]>(player.page, samplePoint(BODY, await inPage<number>(player.page, topSample(BODY))));
  const [x, y] = await inPage<[number, number]>(player.page, `window.pliant.project(${at.join(", ")})`);
  await player.page.mouse.move(x, y);
  await player.page.mouse.down();
  // Lifted a little, then held still.
  await player.page.mouse.move(x, y - 20, { steps: 4 });
  const key = `${sessionId}:pointer`;
  await vi.waitFor(() => expect(publicRoom().state.grabs.get(key)?.body).toBe(BODY), { timeout: 60_000, interval: 20 });
  return { key, grab: publicRoom().state.grabs.get(key)! };
}

describe("slow and frozen pages holding a body", () => {
  it("a page drawing a frame every 1.5 silent holds keeps its grab for more than three silent holds", async () => {
    await inPage(player.page, `window.pliant.frames.emulateSlowDevice({ everyMs: ${FRAME_EVERY_MS} })`);
    try {
      const { key, grab } = await grabWithTheMouse();
      const room = publicRoom(), since = room.sceneWorld.tick;
      const framesBefore = await inPage<number>(player.page, "window.pliant.frameStats.count");
      // Watched on every turn of the server's event loop it can spare: a grab let go never comes back by itself (the
      // mouse stays down; a new grab would be a new entry).
      let lostAtTick = -1;
      const watch = setInterval(() => {
        if (lostAtTick < 0 && room.state.grabs.get(key) !== grab) lostAtTick = room.sceneWorld.tick;
      }, 5);
      try {
        await vi.waitFor(() => expect(lostAtTick >= 0 || room.sceneWorld.tick - since > 3 * SILENT_HOLD_TICKS).toBe(true), { timeout: 90_000, interval: 50 });
      } finally {
        clearInterval(watch);
      }
      expect(lostAtTick < 0 ? -1 : lostAtTick - since, "ticks after the grab at which the room let go").toBe(-1);
      // The page did draw meanwhile, and slower than the silent hold: the keepalives, not its frames, kept the grab.
      const intervals = await inPage<number[]>(player.page, `(() => {
        const s = window.pliant.frameStats, out = [];
        for (let k = ${framesBefore}; k < s.count; k++) out.push(s.interval[k % s.interval.length]);
        return out;
      })()`);
      expect(intervals.length, "frames drawn while held").toBeGreaterThanOrEqual(1);
      expect(Math.min(...intervals), "ms between the slow page's frames").toBeGreaterThan(LIMITS.silentHoldSeconds * 1000);
      console.info(`slow page: held ${room.sceneWorld.tick - since} ticks (silent hold ${SILENT_HOLD_TICKS}) over ${intervals.length} frames ${intervals.map((ms) => ms.toFixed(0)).join(", ")} ms apart`);
    } finally {
      await player.page.mouse.up();
      await inPage(player.page, "window.pliant.frames.emulateSlowDevice({})");
    }
    await vi.waitFor(() => expect(publicRoom().state.grabs.size).toBe(0), { timeout: 30_000, interval: 50 });
    expect(player.errors).toEqual([]);
  });

  it("a page whose main thread freezes mid-grab is let go after its silent hold, and told why once it wakes", async () => {
    const { key } = await grabWithTheMouse();
    const room = publicRoom();
    await cdp.send("Debugger.enable");
    try {
      await cdp.send("Debugger.pause");
      await vi.waitFor(() => expect(room.state.grabs.has(key), "held by the frozen page").toBe(false), { timeout: 60_000, interval: 20 });
    } finally {
      await cdp.send("Debugger.resume").catch(() => undefined);
      await cdp.send("Debugger.disable");
    }
    await waitForPage(player.page, `window.pliant.client.heldBody("pointer") === undefined && document.body.textContent.includes('was let go: this page went quiet for more than ${LIMITS.silentHoldSeconds} s.')`, 60_000);
    await player.page.mouse.up();
    expect(player.errors).toEqual([]);
  });
});
