// The stand in real Chromium: the big screen (/?kiosk) shows a QR code that decodes to the server's join address
// and no forms; the operator's page (/admin) kicks a player and resets the table; a visitor's hints appear for the
// device in hand and go once used; a body pulled off the table with the mouse comes back by itself. A QR code of
// an address only this machine can reach (a server on 127.0.0.1) comes with a warning that says how to fix it; the
// kiosk opened by a network name shows that name, and no warning.

import { mkdirSync } from "node:fs";
import path from "node:path";
import jsQR from "jsqr";
import { matchMaker } from "@colyseus/core";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import { KICK_CLOSE_CODE, PliantRoomClient } from "../../shared/net";
import { PLAYGROUND } from "../../shared/scene";
import { ARTIFACTS, CHROMIUM, inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";
import { samplePoint, topSample } from "./page-probes";

const ADMIN = "stand-admin";
type Vec = [number, number, number];

let server: RunningServer;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: ADMIN, log: () => undefined });
  origin = `http://127.0.0.1:${server.port}`;
  browser = await launchBrowser({ viewport: { width: 1280, height: 720 } });
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const publicRoom = () => matchMaker.getLocalRoomById(server.publicRoomId) as PlaygroundRoom;

/** The kiosk's QR code, decoded, and the URL it was drawn for. */
async function kioskQr(page: WatchedPage): Promise<{ decoded: string | undefined; url: string }> {
  await page.page.waitForSelector("[data-testid=join-qr]");
  const qr = await inPage<{ width: number; height: number; data: number[]; url: string }>(page.page, `(() => {
    const canvas = document.querySelector("[data-testid=join-qr]");
    const g = canvas.getContext("2d");
    return { width: canvas.width, height: canvas.height, data: Array.from(g.getImageData(0, 0, canvas.width, canvas.height).data), url: canvas.dataset.url };
  })()`);
  return { decoded: jsQR(Uint8ClampedArray.from(qr.data), qr.width, qr.height)?.data, url: qr.url };
}

async function renderedFrames(page: WatchedPage, frames: number): Promise<void> {
  const start = await inPage<number>(page.page, "window.pliant.frameStats.count");
  await waitForPage(page.page, `window.pliant.frameStats.count >= ${start + frames}`, 30_000);
}

describe("the stand in Chromium", () => {
  it("the kiosk shows a QR code of the join address, the title and no forms or telemetry", async () => {
    const kiosk = await openPage(browser, origin, "/?kiosk");
    try {
      await waitForPage(kiosk.page, "window.pliant && window.pliant.ready");
      await kiosk.page.waitForSelector("[data-testid=join-qr]");
      const qr = await inPage<{ width: number; height: number; data: number[]; url: string }>(kiosk.page, `(() => {
        const canvas = document.querySelector("[data-testid=join-qr]");
        const g = canvas.getContext("2d");
        return { width: canvas.width, height: canvas.height, data: Array.from(g.getImageData(0, 0, canvas.width, canvas.height).data), url: canvas.dataset.url };
      })()`);
      const decoded = jsQR(Uint8ClampedArray.from(qr.data), qr.width, qr.height);
      expect(decoded?.data, "the QR code decodes").toBe(origin);
      expect(qr.url).toBe(origin);
      expect(await kiosk.page.textContent("[data-testid=kiosk-title]")).toContain("Pliant");
      expect(await kiosk.page.locator("form, input, select, textarea").count(), "no forms on the big screen").toBe(0);
      expect(await kiosk.page.locator("[data-testid=telemetry], [data-testid=hud]").count(), "no telemetry").toBe(0);
      await renderedFrames(kiosk, 3);
      await kiosk.page.screenshot({ path: path.join(ARTIFACTS, "kiosk.png") });
      expect(kiosk.errors).toEqual([]);
      expect(kiosk.offsite).toEqual([]);
    } finally {
      await kiosk.page.close();
    }
  });

  it("the admin page takes the token, kicks a player and resets the table", async () => {
    const admin = await openPage(browser, origin, "/admin");
    const player = await PliantRoomClient.join({ endpoint: `ws://127.0.0.1:${server.port}`, options: { role: "player", name: "Visitor" } });
    let closedWith = 0;
    player.room.onLeave((code: number) => (closedWith = code));
    try {
      expect(admin.page.url(), "the token is never in the URL").not.toContain(ADMIN);
      await admin.page.fill("input[aria-label='admin token']", "wrong");
      await admin.page.click("text=Open");
      await admin.page.waitForSelector("text=wrong admin token");
      await admin.page.fill("input[aria-label='admin token']", ADMIN);
      await admin.page.click("text=Open");
      await admin.page.waitForSelector("tr[data-player=Visitor]");
      expect(await admin.page.textContent("tr[data-player=Visitor]")).toContain("player");
      await admin.page.waitForSelector("text=/tick p99 \\d/");
      await admin.page.screenshot({ path: path.join(ARTIFACTS, "admin.png") });

      // Reset: the spot moved along the table goes back to its spawn.
      const entity = publicRoom().sceneWorld.bodies.find((e) => e.id === "spot")!;
      entity.body.setState(entity.body.q.map((v, i) => (i === 3 ? v + 0.3 : v)), new Float64Array(entity.body.n));
      await admin.page.click("[data-testid=admin-reset]");
      const c = new Float64Array(3);
      await vi.waitFor(() => {
        entity.body.centroid(c);
        expect(Math.abs(c[0] - entity.spawn[0] - entity.subspace.restCentroid[0])).toBeLessThan(0.03);
      }, { timeout: 20_000, interval: 50 });

      await admin.page.click("tr[data-player=Visitor] >> text=Kick");
      await vi.waitFor(() => {
        expect(closedWith).toBe(KICK_CLOSE_CODE);
        expect([...publicRoom().state.players.values()].some((p) => p.name === "Visitor")).toBe(false);
      }, { timeout: 20_000, interval: 50 });
      await admin.page.waitForSelector("tr[data-player=Visitor]", { state: "detached" });
      // The wrong token was answered 401, which Chromium logs as a failed load; nothing else.
      expect(admin.errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
      expect(admin.offsite).toEqual([]);
    } finally {
      await admin.page.close();
      if (!closedWith) await player.leave();
    }
  });

  it("a visitor's hints match the mouse and go once used; a body pulled off the table comes back to it", async () => {
    const visitor = await openPage(browser, origin, "/");
    try {
      await waitForPage(visitor.page, "window.pliant && window.pliant.ready");
      // A spectator first: how to look around, and that joining lets them grab.
      await visitor.page.waitForSelector("[data-hint=look]");
      expect(await visitor.page.textContent("[data-testid=hints]")).toMatch(/scroll to zoom/);
      expect(await visitor.page.locator("[data-hint=join]").count()).toBe(1);
      expect(await visitor.page.locator("[data-testid=telemetry]").count(), "telemetry only behind the toggle").toBe(0);
      // Turning the view (a drag on the background) is the look hint's cue.
      await visitor.page.mouse.move(1100, 120);
      await visitor.page.mouse.down();
      await visitor.page.mouse.move(1000, 140, { steps: 5 });
      await visitor.page.mouse.up();
      await visitor.page.waitForSelector("[data-hint=look]", { state: "detached" });

      await visitor.page.click("text=Join as player");
      await waitForPage(visitor.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready");
      await visitor.page.waitForSelector("[data-hint=grab]");
      expect(await visitor.page.textContent("[data-hint=grab]")).toMatch(/Drag a body with the mouse/);

      // Drag the dough ball over the table's front edge and drop it: it falls to the floor.
      const body = "dough-ball";
      const grabAt = await inPage<Vec>(visitor.page, samplePoint(body, await inPage<number>(visitor.page, topSample(body))));
      const [x, y] = await inPage<[number, number]>(visitor.page, `window.pliant.project(${grabAt.join(", ")})`);
      const [tx, ty] = await inPage<[number, number]>(visitor.page, `window.pliant.project(${grabAt[0]}, ${grabAt[1] + 0.1}, 0.2)`);
      await vi.waitFor(async () => {
        await visitor.page.mouse.move(x, y);
        await visitor.page.mouse.down();
        await renderedFrames(visitor, 2);
        const holding = await inPage<string | undefined>(visitor.page, "window.pliant.client.heldBody('pointer')");
        if (holding !== body) await visitor.page.mouse.up();
        expect(holding).toBe(body);
      }, { timeout: 30_000, interval: 100 });
      await visitor.page.mouse.move(tx, ty, { steps: 20 });
      // Let go only once the page shows the ball's top 5 cm out past the table's front edge (a slow room carries it
      // there late).
      const table = PLAYGROUND.statics.find((box) => box.name === "table")!, frontEdge = table.center[2] + table.half[2];
      const top = await inPage<number>(visitor.page, topSample(body));
      await vi.waitFor(async () => {
        const shown = await inPage<Vec>(visitor.page, samplePoint(body, top));
        expect(shown[2] - frontEdge, "the held ball's top past the table's front edge, m").toBeGreaterThan(0.05);
      }, { timeout: 30_000, interval: 100 });
      await visitor.page.mouse.up();
      await visitor.page.waitForSelector("[data-hint=grab]", { state: "detached" });
      const shownY = `window.pliant.surfacePoint(${JSON.stringify(body)}, ${await inPage<number>(visitor.page, topSample(body))})[1]`;
      await vi.waitFor(async () => expect(await inPage<number>(visitor.page, shownY), "on the floor").toBeLessThan(0.3), { timeout: 20_000, interval: 100 });
      // It floats back by itself.
      await vi.waitFor(async () => {
        const shown = await inPage<Vec>(visitor.page, samplePoint(body, await inPage<number>(visitor.page, topSample(body))));
        expect(shown[1], "back on the table").toBeGreaterThan(0.8);
        expect(Math.hypot(shown[0] - grabAt[0], shown[2] - grabAt[2]), "at its spawn").toBeLessThan(0.05);
      }, { timeout: 30_000, interval: 200 });
      expect(visitor.errors).toEqual([]);
    } finally {
      await visitor.page.close();
    }
  });
  it("a QR code of 127.0.0.1 comes with a warning on the kiosk and the admin page that says how to fix it", async () => {
    const kiosk = await openPage(browser, origin, "/?kiosk");
    const admin = await openPage(browser, origin, "/admin");
    try {
      await kiosk.page.waitForSelector("[data-testid=join-address-warning]");
      expect(await kiosk.page.isVisible("[data-testid=join-address-warning]")).toBe(true);
      const warning = await kiosk.page.textContent("[data-testid=join-address-warning]");
      expect(warning).toMatch(/Phones can't reach 127\.0\.0\.1/);
      expect(warning, "the fix, with the setting the README documents").toMatch(/HOST=0\.0\.0\.0/);
      expect((await kioskQr(kiosk)).decoded).toBe(origin);
      await admin.page.fill("input[aria-label='admin token']", ADMIN, { timeout: 120_000 });
      await admin.page.click("text=Open", { timeout: 120_000 });
      await admin.page.waitForSelector("[data-testid=join-qr]", { timeout: 120_000 });
      expect(await admin.page.textContent("[data-testid=join-address-warning]")).toMatch(/HOST=0\.0\.0\.0/);
      expect([...kiosk.errors, ...admin.errors]).toEqual([]);
    } finally {
      await kiosk.page.close();
      await admin.page.close();
    }
  });

  it("the kiosk opened by the machine's network name shows that address, and no warning", async () => {
    // A name that resolves to this machine, as a stand's laptop is found on its network (the server stays on loopback).
    const named = await chromium.launchPersistentContext("", {
      executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 720 },
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--host-resolver-rules=MAP stand.lan 127.0.0.1"],
    });
    const standOrigin = `http://stand.lan:${server.port}`;
    try {
      const kiosk = await openPage({ context: named, close: () => named.close() }, standOrigin, "/?kiosk");
      const qr = await kioskQr(kiosk);
      expect(qr.url).toBe(standOrigin);
      expect(qr.decoded).toBe(standOrigin);
      expect(await kiosk.page.locator("[data-testid=join-address-warning]").count()).toBe(0);
      expect(kiosk.offsite).toEqual([]);
    } finally {
      await named.close();
    }
  });

  it("a page too slow to take up its seat in time asks for a new one, and joins as a player", async () => {
    const visitor = await openPage(browser, origin, "/");
    try {
      await waitForPage(visitor.page, "window.pliant && window.pliant.ready");
      // The first seat reservation of the player's join reaches the page only once the server has given it up
      // (after SEAT_RESERVATION_SECONDS): a page too slow to take it up in time.
      let delayed = 0;
      const reserved = () => (publicRoom() as unknown as { _reservedSeats: Record<string, unknown> })._reservedSeats;
      await visitor.page.route("**/matchmake/joinById/**", async (route) => {
        const response = await route.fetch();
        if (delayed++ === 0) {
          const { sessionId } = (await response.json()) as { sessionId: string };
          await vi.waitFor(() => expect(Object.keys(reserved())).not.toContain(sessionId), { timeout: 20_000, interval: 50 });
        }
        await route.fulfill({ response });
      });
      await visitor.page.fill("input[aria-label=name]", "Slow");
      await visitor.page.click("text=Join as player");
      await waitForPage(visitor.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready", 60_000);
      expect(delayed, "reservations asked for").toBe(2);
      expect(visitor.errors.filter((e) => !/seat reservation expired/i.test(e))).toEqual([]);
    } finally {
      await visitor.page.close();
    }
  });
});
