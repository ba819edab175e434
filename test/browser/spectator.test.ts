// A desktop spectator in real Chromium: the room renders with its soft bodies (checked by pixels, the screenshot
// kept in out/browser/), nothing is requested from anywhere but our server, the console stays clean, and when an
// admin allows it the spectator can drag a body with the mouse.

import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { matchMaker } from "@colyseus/core";
import { startServer, type RunningServer } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import { MESSAGES, PliantRoomClient } from "../../shared/net";
import { PLAYGROUND } from "../../shared/scene";
import { ARTIFACTS, inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";
import { samplePoint, topSample } from "./page-probes";

const ADMIN = "browser-admin";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Vec = [number, number, number];

let server: RunningServer;
let browser: Browser;
let origin: string;
let viewer: WatchedPage;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: ADMIN, log: () => undefined });
  origin = `http://127.0.0.1:${server.port}`;
  browser = await launchBrowser();
  viewer = await openPage(browser, origin, "/");
  await waitForPage(viewer.page, "window.pliant && window.pliant.ready");
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Pixels of a PNG, decoded by the page itself (no image library needed in Node). */
async function pixels(png: Buffer): Promise<{ width: number; height: number; data: number[] }> {
  return inPage(viewer.page, `(async () => {
    const image = await createImageBitmap(await (await fetch("data:image/png;base64,${png.toString("base64")}")).blob());
    const canvas = new OffscreenCanvas(image.width, image.height);
    const g = canvas.getContext("2d");
    g.drawImage(image, 0, 0);
    return { width: image.width, height: image.height, data: Array.from(g.getImageData(0, 0, image.width, image.height).data) };
  })()`);
}

async function renderedFrames(frames: number): Promise<void> {
  const start = await inPage<number>(viewer.page, "window.pliant.frameStats.count");
  await waitForPage(viewer.page, `window.pliant.frameStats.count >= ${start + frames}`, 30_000);
}

describe("desktop spectator in Chromium", () => {
  it("renders the room with its soft bodies, asks nothing of the internet and logs no errors", async () => {
    // Spot's texture arrives after its body (the body shows untextured until then).
    await waitForPage(viewer.page, "(window.pliant.bodyLook('spot')?.textureWidth ?? 0) > 0", 20_000);
    await renderedFrames(3);
    const withBodies = await viewer.page.screenshot({ path: path.join(ARTIFACTS, "spectator.png") });
    await inPage(viewer.page, "window.pliant.setBodiesVisible(false)");
    await renderedFrames(2);
    const without = await viewer.page.screenshot();
    await inPage(viewer.page, "window.pliant.setBodiesVisible(true)");
    const a = await pixels(withBodies), b = await pixels(without);
    let changed = 0, red = 0;
    for (let i = 0; i < a.data.length; i += 4) {
      const diff = Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2]);
      if (diff < 60) continue;
      changed++;
      // The rubber block is red: red well above green and blue where it is drawn.
      if (a.data[i] > a.data[i + 1] + 80 && a.data[i] > a.data[i + 2] + 80) red++;
    }
    const share = changed / (a.width * a.height);
    console.info(`spectator: bodies cover ${(100 * share).toFixed(2)}% of the view, ${red} rubber-red pixels`);
    expect(share).toBeGreaterThan(0.005);
    expect(red).toBeGreaterThan(300);
    // Spot wears its texture (the shipped 1024 x 1024 spot_texture.png), split along its seams.
    const look = await inPage<{ textureWidth: number; uvVertices: number }>(viewer.page, "window.pliant.bodyLook('spot')");
    expect(look.textureWidth).toBe(1024);
    expect(look.uvVertices).toBeGreaterThan(2930);
    expect(viewer.errors).toEqual([]);
    expect(viewer.offsite).toEqual([]);
    // Every body's bake and the fox's reached the page with its render weights. These meshes are small, so their
    // weights travel as they are (smaller than the eigen fields' grid: clientBakedBody); model-weights.test.ts covers
    // weights computed in the page's worker from a description.
    const bakes = await inPage<{ weightsComputed: boolean; vertices: number }[]>(viewer.page, "window.pliant.bakes");
    expect(bakes.length).toBe(PLAYGROUND.bodies.length + PLAYGROUND.characters!.length);
    expect(bakes.every((b) => b.vertices > 0)).toBe(true);
    // The HUD says where we are.
    expect(await viewer.page.textContent("[data-testid=connection-status]")).toBe("connected");
  });

  it("drags a body with the mouse once an admin lets spectators touch", async () => {
    const admin = await PliantRoomClient.join({ endpoint: `ws://127.0.0.1:${server.port}`, options: { role: "spectator", adminToken: ADMIN } });
    try {
      const body = "dough-ball";
      const grabAt = await inPage<Vec>(viewer.page, samplePoint(body, await inPage<number>(viewer.page, topSample(body))));
      const [x, y] = await inPage<[number, number]>(viewer.page, `window.pliant.project(${grabAt.join(", ")})`);
      const held = `window.pliant.client.heldBody('pointer')`;
      // Not allowed yet: the press grabs nothing, in the frames the app renders after it (a grab would hold the
      // body from the next frame on).
      await viewer.page.mouse.move(x, y);
      await viewer.page.mouse.down();
      await renderedFrames(3);
      expect(await inPage<string | undefined>(viewer.page, held)).toBeUndefined();
      await viewer.page.mouse.up();
      admin.sendRaw(MESSAGES.admin, { token: ADMIN, action: "spectator-grabs", allowed: true });
      await waitForPage(viewer.page, "window.pliant.client.room.state.spectatorGrabs === true", 10_000);
      // The page takes the permission up when it next renders: press until a press grabs.
      await vi.waitFor(async () => {
        await viewer.page.mouse.move(x, y);
        await viewer.page.mouse.down();
        await renderedFrames(2);
        const holding = await inPage<string | undefined>(viewer.page, held);
        if (holding !== body) await viewer.page.mouse.up();
        expect(holding).toBe(body);
      }, { timeout: 30_000, interval: 100 });
      for (let step = 1; step <= 6; step++) {
        await viewer.page.mouse.move(x, y - 12 * step);
        await sleep(120);
      }
      // The server pulls the body up and the page shows it.
      let rise = 0;
      await vi.waitFor(async () => {
        const lifted = await inPage<Vec>(viewer.page, `window.pliant.surfacePoint(${JSON.stringify(body)}, ${await inPage<number>(viewer.page, topSample(body))})`);
        rise = lifted[1] - grabAt[1];
        expect(rise, "rise of the dough ball's top, m").toBeGreaterThan(0.05);
      }, { timeout: 20_000, interval: 100 });
      await viewer.page.mouse.up();
      console.info(`drag: the dough ball's top rose ${rise.toFixed(3)} m`);
      expect(viewer.errors).toEqual([]);
    } finally {
      await admin.leave();
    }
  });

  it("gets its seat back by itself after its connection drops, showing 'reconnecting' meanwhile", async () => {
    const status = "[data-testid=connection-status]";
    // Every status the HUD shows from now on, however briefly.
    await inPage(viewer.page, `(() => {
      const el = document.querySelector(${JSON.stringify(status)});
      window.statuses = [el.textContent];
      new MutationObserver(() => window.statuses.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
    })()`);
    const sessionId = await inPage<string>(viewer.page, "window.pliant.client.sessionId");
    const room = matchMaker.getLocalRoomById(server.publicRoomId) as PlaygroundRoom;
    const before = room.state.players.get(sessionId)!.toJSON();
    // The Wi-Fi goes: the server's end of the socket dies without a closing handshake.
    const seat = room.clients.find((c) => c.sessionId === sessionId)!;
    (seat.ref as unknown as { terminate(): void }).terminate();
    await vi.waitFor(async () => {
      expect(await inPage<string[]>(viewer.page, "window.statuses")).toContain("reconnecting");
      expect(await viewer.page.textContent(status)).toBe("connected");
      expect(room.clients.some((c) => c.sessionId === sessionId)).toBe(true);
    }, { timeout: 30_000, interval: 100 });
    // The same seat: session, name, colour, slot and role.
    expect(await inPage<string>(viewer.page, "window.pliant.client.sessionId")).toBe(sessionId);
    expect(room.state.players.get(sessionId)!.toJSON()).toEqual(before);
    expect(viewer.errors).toEqual([]);
  });

  it("after a server restart, a player's page joins the new server by itself, still a player and not told it was removed", async () => {
    await viewer.page.click("text=Join as player");
    await waitForPage(viewer.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.connection.snapshot.status === 'connected'");
    // Every status and error the connection reports from now on.
    await inPage(viewer.page, `(() => {
      window.reports = [];
      window.pliant.connection.subscribe(() => { const s = window.pliant.connection.snapshot; window.reports.push([s.status, s.error]); });
    })()`);
    const oldSession = await inPage<string>(viewer.page, "window.pliant.client.sessionId");
    const port = server.port;
    await server.close();
    server = await startServer({ port, host: "127.0.0.1", adminToken: ADMIN, log: () => undefined });
    const room = () => matchMaker.getLocalRoomById(server.publicRoomId) as PlaygroundRoom;
    await vi.waitFor(async () => {
      const sessionId = await inPage<string | null>(viewer.page, "window.pliant.client?.sessionId ?? null");
      expect(sessionId).not.toBeNull();
      expect(sessionId).not.toBe(oldSession);
      expect(room().state.players.get(sessionId!)?.role).toBe("player");
      expect(await inPage<string>(viewer.page, "window.pliant.connection.snapshot.status")).toBe("connected");
    }, { timeout: 60_000, interval: 200 });
    const reports = await inPage<[string, string | null][]>(viewer.page, "window.reports");
    expect(reports.some(([status]) => status === "reconnecting"), "shown as reconnecting meanwhile").toBe(true);
    expect(reports.filter(([, error]) => error && /removed/.test(error))).toEqual([]);
    expect(await inPage<string>(viewer.page, "window.pliant.connection.snapshot.role")).toBe("player");
    await waitForPage(viewer.page, "window.pliant.ready");
    expect(viewer.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e))).toEqual([]);
  });
});
