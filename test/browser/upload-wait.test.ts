// Waiting for an upload in real Chromium, as a visitor at a busy stand does: files dropped one after the other say
// where they stand in the server's line and about how long they will take, every one lands however long the
// machine takes, and the same file dropped again lands from the server's cache while another bake still runs.
// (The upload list names a file as a visitor reads it: "queue-cow.obj" is "queue cow".)

import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";

const MESHES = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
// Bakes take seconds each, minutes on a loaded machine; everything else is waiting for conditions.
const BAKED_MS = 400_000;

let server: RunningServer;
let browser: Browser;
let player: WatchedPage;
/** A second player: one player may have two uploads baking at once (UPLOAD_LIMITS.bodiesPerPlayer). */
let neighbour: WatchedPage;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "upload-wait", log: () => undefined, uploadRate: { perMinute: 600, burst: 100 } });
  const origin = `http://127.0.0.1:${server.port}`;
  browser = await launchBrowser();
  [player, neighbour] = await Promise.all([openPage(browser, origin, "/"), openPage(browser, origin, "/")]);
  for (const page of [player.page, neighbour.page]) {
    await waitForPage(page, "window.pliant && window.pliant.ready");
    await page.click("text=Join as player", { timeout: 120_000 });
    await waitForPage(page, "window.pliant.connection.snapshot.role === 'player'", 60_000);
  }
  // Every line each page's upload list ever shows, in order (the list changes faster than a test could poll it);
  // a page lists only its own uploads.
  for (const page of [player.page, neighbour.page]) await inPage(page, `(() => {
    window.seenUploadLines = [];
    const record = () => {
      for (const line of document.querySelectorAll("[data-testid=upload-progress]")) {
        const text = line.textContent ?? "";
        if (window.seenUploadLines.at(-1) !== text) window.seenUploadLines.push(text);
      }
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A shared mesh with one vertex moved a little: a file no run has baked before, so its bake really runs. */
async function freshMesh(name: string): Promise<Uint8Array> {
  const text = await readFile(path.join(MESHES, name), "utf8");
  const jitter = () => 1e-4 * (1 + 9 * Math.random());
  return new TextEncoder().encode(text.replace(/^v (\S+) (\S+)/m, (_, x: string, y: string) => `v ${Number(x) + jitter()} ${Number(y) + jitter()}`));
}

/** Drops a file on a page as a visitor dragging it from their desktop would. */
async function dropFile(name: string, bytes: Uint8Array, on: WatchedPage = player): Promise<void> {
  await inPage(on.page, `(() => {
    const text = atob(${JSON.stringify(Buffer.from(bytes).toString("base64"))});
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], ${JSON.stringify(name)}));
    window.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, cancelable: true }));
    window.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, cancelable: true }));
  })()`);
}

const seenLines = (on: WatchedPage = player) => inPage<string[]>(on.page, "window.seenUploadLines");

/** Waits for a condition in a page; on a timeout, says what its upload list showed meanwhile. */
async function waitShowingUploads(expression: string, on: WatchedPage = player): Promise<void> {
  await waitForPage(on.page, expression, BAKED_MS).catch(async (error: Error) => {
    throw new Error(`${error.message}; the upload list showed: ${JSON.stringify(await seenLines(on))}; the page says: ${await inPage<string>(on.page, "document.body.innerText")}`);
  });
}

const landed = (name: string) => waitShowingUploads(`window.pliant.bodyNamed(${JSON.stringify(name)}) !== null`);

it("files dropped one after the other show their place in line and an estimate, and all land", async () => {
  await dropFile("queue-cow.obj", await freshMesh("cow.obj"));
  await dropFile("queue-suzanne.obj", await freshMesh("suzanne.obj"));
  // Whichever of the two reaches the server second (the smaller file may, on a busy machine) waits behind the other.
  await waitShowingUploads("window.seenUploadLines.some((line) => /queue (cow|suzanne).*\\b2nd in line\\b/.test(line))");
  await dropFile("queue-teapot.obj", await freshMesh("teapot.obj"), neighbour);
  // The third waits behind the others; once a bake has finished, the page has a measured time to offer.
  await waitShowingUploads("window.seenUploadLines.some((line) => /queue teapot.*in line, about \\d+ s/.test(line))", neighbour);
  for (const name of ["queue-cow", "queue-suzanne", "queue-teapot"]) await landed(name);
  const lines = [...await seenLines(), ...await seenLines(neighbour)];
  expect(lines.filter((line) => /not added|took longer|failed/i.test(line))).toEqual([]);
  expect(await inPage<string>(player.page, "document.body.innerText")).not.toMatch(/not added|took longer/i);
  expect([...player.errors, ...neighbour.errors]).toEqual([]);
}, 2 * BAKED_MS);

it("the same file dropped again lands from the cache while a bigger upload, dropped before it, still bakes", async () => {
  const suzanne = await freshMesh("suzanne.obj");
  await dropFile("first-suzanne.obj", suzanne);
  await landed("first-suzanne");
  await dropFile("big-bunny.obj", await freshMesh("stanford-bunny.obj"));
  await waitShowingUploads("window.seenUploadLines.some((line) => line.startsWith('big bunny'))");
  await dropFile("again-suzanne.obj", suzanne);
  await landed("again-suzanne");
  // The bunny was dropped first and is still being baked: the second suzanne never waited behind it.
  expect(await inPage<string | null>(player.page, "window.pliant.bodyNamed('big-bunny')")).toBeNull();
  const bunnyLines = (await seenLines()).filter((line) => line.startsWith("big bunny"));
  expect(bunnyLines.length).toBeGreaterThan(0);
  expect(player.errors).toEqual([]);
}, 2 * BAKED_MS);
