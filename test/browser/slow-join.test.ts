// Joining from a slow page or over a bad network, in real Chromium against a real server on loopback. A page whose
// every frame keeps its (CPU-throttled) main thread busy for seconds takes the first seat it asks for, as a player and
// again when its room drops it (it used to miss seat after seat: "seat reservation expired" for over a minute). A
// page whose room does not answer tells the visitor so, and what to do, within JOIN_ATTEMPTS attempts, and joins by
// itself once the room answers.

import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { matchMaker } from "@colyseus/core";
import { startServer, type RunningServer } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import { JOIN_ATTEMPTS, SEAT_RESERVATION_SECONDS } from "../../shared/net";
import { inPage, launchBrowser, openPage, waitForPage, type Browser } from "./browser";

/**
 * Main-thread time of each of the slow page's frames, ms: longer than the 5 s the server used to keep a seat for a
 * page (so that a frame between asking for a seat and taking it up lost it), shorter than the seat's time now.
 */
const BUSY_FRAME_MS = 6000;
/** Slow frames after each seat request. */
const SLOW_FRAMES = 3;
/** Chromium's CPU throttling of the slow page (DevTools' "6x slowdown"). */
const CPU_SLOWDOWN = 6;
/** The room's close code for a room that failed (Colyseus' "closed with an error"): its pages join again. */
const ROOM_FAILED_CLOSE_CODE = 4002;

let server: RunningServer;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "slow-join-admin", log: () => undefined });
  origin = `http://127.0.0.1:${server.port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const publicRoom = () => matchMaker.getLocalRoomById(server.publicRoomId) as PlaygroundRoom;

/** Counts the page's seat requests (POST /matchmake/...) from now on. */
async function countSeatRequests(page: Page): Promise<() => number> {
  let count = 0;
  await page.route("**/matchmake/**", (route) => {
    count++;
    return route.continue();
  });
  return () => count;
}

interface Report { status: string; error: string | null; attempts: number; stage: string | null }

/** Records, in the page, every state its connection reports from now on (read with `reports`). */
const recordReports = `(() => {
  window.reports = [];
  window.pliant.connection.subscribe(() => {
    const s = window.pliant.connection.snapshot;
    window.reports.push({ status: s.status, error: s.error, attempts: s.attempts, stage: s.stage });
  });
})()`;
const reports = (page: Page) => inPage<Report[]>(page, "window.reports");

/** Words no visitor should be shown. */
const DEVELOPER_WORDING = /fetch|ECONN|code \d|reservation|undefined|null|Error\b/;

describe("joining from a slow page", () => {
  it("a page whose frames each take seconds of a throttled CPU joins as a player, and again when its room drops it, at the first seat it asks for", async () => {
    const visitor = await openPage(browser, origin, "/");
    try {
      await waitForPage(visitor.page, "window.pliant && window.pliant.ready");
      const t0 = Date.now(), mark = (what: string) => console.info(`slow join: ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const cdp = await browser.context.newCDPSession(visitor.page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
      // Its frames turn slow whenever it asks for a seat (for SLOW_FRAMES frames: loading the room after is not
      // what this test is about, and a page busy in every frame hardly runs anything else, such as a test's probes).
      await inPage(visitor.page, `(() => {
        const fetch = window.fetch;
        window.fetch = (input, init) => {
          if (String(input.url ?? input).includes("/matchmake/")) window.pliant.frames.emulateSlowDevice({ busyMs: ${BUSY_FRAME_MS}, frames: ${SLOW_FRAMES} });
          return fetch(input, init);
        };
      })()`);
      const playing = "window.pliant.connection.snapshot.role === 'player' && window.pliant.connection.snapshot.status === 'connected' && window.pliant.ready";
      const seatRequests = await countSeatRequests(visitor.page);
      await inPage(visitor.page, recordReports);
      const seats = () => publicRoom().clients.map((c) => c.sessionId);
      const spectatorSeat = seats()[0];
      expect(seats()).toHaveLength(1);

      // Join as a player (the page's form does this): it must get the first seat it asks for.
      await inPage(visitor.page, `void window.pliant.connection.joinAsPlayer("Slow", "#4477aa").catch((error) => { window.joinError = error.message; })`);
      const playerSeat = await newPlayerSeat(visitor.page, seats, [spectatorSeat]);
      mark("player seat");
      expect(seatRequests(), "seats asked for by the player's join").toBe(1);
      await waitForPage(visitor.page, playing, 120_000);
      mark("playing");

      // The room drops the page (as a failed room does): it joins again as it was, at the first seat it asks for.
      publicRoom().clients.find((c) => c.sessionId === playerSeat)!.leave(ROOM_FAILED_CLOSE_CODE);
      await newPlayerSeat(visitor.page, seats, [spectatorSeat, playerSeat]);
      mark("seat after the drop");
      expect(seatRequests(), "seats asked for by the player's join and the join after the drop").toBe(2);
      await waitForPage(visitor.page, playing, 120_000);
      mark("loaded");
      const seen = await reports(visitor.page);
      expect(seen.filter((r) => r.error && /seat|slow|busy/i.test(r.error)), "no seat missed").toEqual([]);
      expect(Math.max(...seen.map((r) => r.attempts)), "attempts of any join").toBe(1);
      expect(visitor.errors).toEqual([]);
    } finally {
      await visitor.page.close();
    }
  }, 600_000);
});

/** Waits until the server has a new player seat (not one of `known`) or the page gave its join up; returns the seat. */
async function newPlayerSeat(page: Page, seats: () => string[], known: string[]): Promise<string> {
  let seat: string | undefined, gaveUp: string | undefined;
  await vi.waitFor(async () => {
    seat = seats().find((s) => !known.includes(s) && publicRoom().state.players.get(s)?.role === "player");
    gaveUp = seat ? undefined : await inPage<string | undefined>(page, "window.joinError");
    expect(seat ?? gaveUp, "a new player seat, or the page's reason for giving up").toBeDefined();
  }, { timeout: 8 * SEAT_RESERVATION_SECONDS * 1000, interval: 200 });
  expect(gaveUp, "the page gave its join up").toBeUndefined();
  return seat!;
}

describe("joining a room that does not answer", () => {
  it("tells the visitor within JOIN_ATTEMPTS attempts that the room is not answering and what to do, then joins by itself once it answers", async () => {
    const page = await browser.context.newPage();
    try {
      // The room's matchmaking cannot be reached (the page itself loads).
      let refused = 0;
      await page.route("**/matchmake/**", (route) => {
        refused++;
        return route.abort("connectionrefused");
      });
      await page.goto(`${origin}/`);
      await waitForPage(page, "window.pliant !== undefined");
      await inPage(page, recordReports);
      await waitForPage(page, "window.pliant.connection.snapshot.status === 'failed'", 60_000);
      const failed = await inPage<Report>(page, "window.pliant.connection.snapshot");
      expect(failed.attempts).toBe(JOIN_ATTEMPTS);
      expect(failed.error).toMatch(/not answering/);
      expect(failed.error).toMatch(/Wi-Fi/);
      expect(failed.error).toMatch(/reload/);
      expect(failed.error).toContain(`${JOIN_ATTEMPTS} times`);
      expect(await page.textContent("[data-testid=connection-error]")).toBe(failed.error);
      const seen = await reports(page);
      expect(seen.filter((r) => r.error).map((r) => r.error).filter((e) => DEVELOPER_WORDING.test(e!)), "visitor wording").toEqual([]);
      // Before giving up, each failure said that it was trying again.
      expect(seen.filter((r) => r.status !== "failed" && r.error).every((r) => /not answering; trying again/.test(r.error!))).toBe(true);
      expect(refused).toBeGreaterThanOrEqual(JOIN_ATTEMPTS);
      // The room answers again: the page joins without a reload.
      await page.unroute("**/matchmake/**");
      await waitForPage(page, "window.pliant.connection.snapshot.status === 'connected' && window.pliant.ready", 120_000);
      expect(await inPage<string | null>(page, "window.pliant.connection.snapshot.error")).toBeNull();
    } finally {
      await page.close();
    }
  });

  it("says what it is waiting for when the room takes long to answer", async () => {
    const page = await browser.context.newPage();
    try {
      // Seat requests that get no answer (a room behind a network that drops them).
      await page.route("**/matchmake/**", () => undefined);
      await page.goto(`${origin}/`);
      await waitForPage(page, "window.pliant !== undefined");
      await waitForPage(page, "/not answered yet/.test(window.pliant.connection.snapshot.error ?? '')", 60_000);
      const state = await inPage<Report>(page, "window.pliant.connection.snapshot");
      expect(state.status).toBe("connecting");
      expect(state.error).toMatch(/Wi-Fi/);
      expect(state.error).not.toMatch(DEVELOPER_WORDING);
    } finally {
      await page.close();
    }
  });
});
