// What a visitor reads when things go wrong, in real Chromium against a real server: a grab move the room drops, a
// file that is no mesh, a file over the size limit, a body added by upload (held, shown on the kiosk, its material
// changed), a kick from the admin page and a server restart. Every text the player's page and the kiosk show meanwhile
// (their DOM's visible text at every change, and every text drawn on a canvas) is written for a visitor: no message
// types, ids, close codes, HTTP statuses or parser errors.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { matchMaker } from "@colyseus/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import { inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";
import { topSample } from "./page-probes";

const ADMIN = "wording-admin";
/** Developer wording: close codes, upload ids, parser errors, message types, JavaScript's empty values, HTTP statuses. */
const DEVELOPER = /\bcode \d{4}\b|\badded-[0-9a-f]{6,}|Unexpected token|\bgrab-(move|start|end)\b|\bundefined\b|\bnull\b|\bNaN\b|\w*Error:|\[object|\bHTTP \d{3}\b|Failed to fetch|\bJSON\b/;

/**
 * Records, from the page's first moment, every line of visible text the page shows (at each DOM change) and every
 * text drawn on a canvas (name tags, the placeholders' tags, the wrist menu).
 */
const RECORD_TEXTS = `(() => {
  const seen = (window.__texts = new Set());
  const drawn = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    seen.add("canvas: " + String(text));
    return drawn.call(this, text, ...rest);
  };
  const look = () => { for (const line of document.body.innerText.split("\\n")) if (line.trim()) seen.add(line.trim()); };
  const start = () => {
    new MutationObserver(look).observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
    look();
  };
  if (document.body) start();
  else addEventListener("DOMContentLoaded", start);
})()`;

let server: RunningServer;
let browser: Browser;
let origin: string;
let player: WatchedPage;
let kiosk: WatchedPage;

const publicRoom = () => matchMaker.getLocalRoomById(server.publicRoomId) as PlaygroundRoom;
const texts = async (page: WatchedPage) => inPage<string[]>(page.page, "[...window.__texts]");
/** Waits until the page has shown a line matching `pattern`. */
const shown = (page: WatchedPage, pattern: RegExp, timeoutMs = 60_000) =>
  waitForPage(page.page, `[...window.__texts].some((t) => ${pattern.toString()}.test(t))`, timeoutMs);

/** Nothing either page has shown so far is developer wording. */
async function expectVisitorWording(): Promise<void> {
  for (const [page, name] of [[player, "player"], [kiosk, "kiosk"]] as const) {
    const all = await texts(page);
    expect(all.length, `${name} page's texts recorded`).toBeGreaterThan(5);
    expect(all.filter((t) => DEVELOPER.test(t)), `developer wording on the ${name} page`).toEqual([]);
  }
}

/** Drops a file made in the page (`bytes`: an expression there) on it, as a visitor dragging it from their desktop would. */
async function dropFile(page: WatchedPage, name: string, bytes: string): Promise<void> {
  await inPage(page.page, `(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([${bytes}], ${JSON.stringify(name)}));
    window.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, cancelable: true }));
    window.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, cancelable: true }));
  })()`);
}

/** Bytes of a file of this test machine, as an expression for the page. */
const bytesOf = (data: Uint8Array) => `Uint8Array.from(atob(${JSON.stringify(Buffer.from(data).toString("base64"))}), (c) => c.charCodeAt(0))`;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: ADMIN, log: () => undefined, uploadRate: { perMinute: 600, burst: 100 } });
  origin = `http://127.0.0.1:${server.port}`;
  browser = await launchBrowser({ viewport: { width: 1280, height: 720 } });
  await browser.context.addInitScript(RECORD_TEXTS);
  [player, kiosk] = [await openPage(browser, origin, "/"), await openPage(browser, origin, "/?kiosk")];
  await Promise.all([waitForPage(player.page, "window.pliant && window.pliant.ready", 120_000), waitForPage(kiosk.page, "window.pliant && window.pliant.ready", 120_000)]);
  // Clicks wait for a steady page: at a frame every few seconds (a busy machine), that takes a while.
  await player.page.fill("input[aria-label=name]", "Tester", { timeout: 120_000 });
  await player.page.click("text=Join as player", { timeout: 120_000 });
  await waitForPage(player.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready", 120_000);
}, 480_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("what a visitor reads", () => {
  it("a dropped grab move, a file that is no mesh and one over the limit are told in a visitor's words, or not at all", async () => {
    // A move for a grab the room does not hold (as a page sends after the server let go): the room drops it and
    // says so, with the message's type, to this page.
    await inPage(player.page, "window.pliant.client.sendRaw('grab-move', { hand: 'pointer', seq: 7, target: [0, 1, 0] })");
    await waitForPage(player.page, "window.pliant.client.notices.some((n) => /no grab held/.test(n.message))", 30_000);
    // Notices are shown in the order they come: once the reset's is on screen, the dropped move's has had its turn.
    await player.page.click("[data-testid=reset-table]", { timeout: 120_000 });
    await shown(player, /Tester reset the table/);

    // A photo renamed .gltf: the server's glTF reader fails on its first byte.
    const photo = await readFile(path.resolve(import.meta.dirname, "../../server/assets/spot_texture.png"));
    await dropFile(player, "holiday.gltf", bytesOf(photo));
    await shown(player, /holiday\.gltf was not added/);
    // 21 MB: over the upload limit, refused before the server reads it.
    await dropFile(player, "huge.obj", "new Uint8Array(21 * 1024 * 1024).fill(32)");
    await shown(player, /huge\.obj was not added/, 120_000);
    const refusals = (await texts(player)).filter((t) => /was not added/.test(t));
    expect(refusals.join("\n")).toMatch(/holiday\.gltf was not added: the file could not be read as a 3D mesh/);
    expect(refusals.join("\n")).toMatch(/huge\.obj was not added: the file is larger than 20 MB/);
    await expectVisitorWording();
  }, 300_000);

  it("a body added by upload is called by its file's name: on the kiosk, in notices, when its material changes", async () => {
    const teapot = await readFile(path.resolve(import.meta.dirname, "../../server/assets/teapot.obj"));
    await dropFile(player, "beetle.obj", bytesOf(teapot));
    await waitForPage(player.page, "window.pliant.bodyNamed('beetle') !== null && window.pliant.ready", 240_000);
    const id = await inPage<string>(player.page, "window.pliant.bodyNamed('beetle')");
    expect(id).toMatch(/^added-/);
    // Held (as a hand would): the kiosk says who pulls what. A page that froze long enough on a busy machine joins
    // again, and its new client knows the upload only once it has loaded it: the point is found and the grab made
    // by whichever client the page has then, again until one holds it.
    await vi.waitFor(async () => {
      await waitForPage(player.page, `window.pliant.client.bodies.has(${JSON.stringify(id)}) && window.pliant.ready`, 120_000);
      const grab = await inPage<{ ok: boolean; reason?: string }>(player.page, `(() => {
        const i = ${topSample(id)};
        return window.pliant.client.grab("left", ${JSON.stringify(id)}, window.pliant.surfacePoint(${JSON.stringify(id)}, i));
      })()`);
      expect(grab.ok, grab.reason).toBe(true);
    }, { timeout: 240_000, interval: 1_000 });
    await shown(kiosk, /Tester is pulling/);
    await inPage(player.page, "window.pliant.client.release('left')");
    // A material change is told to everyone, naming the body.
    await inPage(player.page, `window.pliant.client.setMaterial(${JSON.stringify(id)}, "rubber")`);
    await shown(player, /Tester made .* rubber/);
    expect((await texts(kiosk)).filter((t) => /is pulling/.test(t)).join("\n")).toMatch(/Tester is pulling the beetle/);
    expect((await texts(player)).filter((t) => /rubber/.test(t)).join("\n")).toMatch(/Tester made the beetle rubber/);
    await expectVisitorWording();
  }, 300_000);

  it("a kick from the admin page and a server restart say what happened, without close codes", async () => {
    const sessionId = await inPage<string>(player.page, "window.pliant.client.sessionId");
    // The operator's page: the token, then Kick on the player's row.
    const admin = await openPage(browser, origin, "/admin");
    try {
      await admin.page.fill("input[aria-label='admin token']", ADMIN, { timeout: 120_000 });
      await admin.page.click("text=Open", { timeout: 120_000 });
      await admin.page.click("tr[data-player=Tester] >> text=Kick", { timeout: 120_000 });
      await vi.waitFor(() => expect(publicRoom().state.players.has(sessionId)).toBe(false), { timeout: 20_000, interval: 50 });
      await shown(player, /removed you|kicked/i);
      await waitForPage(player.page, `window.pliant.connection.snapshot.status === "connected" && window.pliant.client?.sessionId !== ${JSON.stringify(sessionId)}`, 120_000);
      await shown(admin, /removed .* from the room|kicked/i);
      expect((await texts(admin)).filter((t) => DEVELOPER.test(t)), "developer wording on the admin page").toEqual([]);
    } finally {
      await admin.page.close();
    }
    // The server restarts (Colyseus closes every room's sockets with its shutdown code); the pages come back by themselves.
    const sessions = [await inPage<string>(player.page, "window.pliant.client.sessionId"), await inPage<string>(kiosk.page, "window.pliant.client.sessionId")];
    const port = server.port;
    await server.close();
    server = await startServer({ port, host: "127.0.0.1", adminToken: ADMIN, log: () => undefined });
    for (const [k, page] of [player, kiosk].entries()) {
      await waitForPage(page.page, `window.pliant.connection.snapshot.status === "connected" && window.pliant.client?.sessionId !== ${JSON.stringify(sessions[k])} && window.pliant.ready`, 120_000);
    }
    await expectVisitorWording();
  }, 300_000);
});
