// Bring your own object in real Chromium: a player drops a rigged, animated fox on the page, and a spectator's page
// shows it as a character walking in place on the stage, its flesh jiggling; Suzanne from the gallery and a dropped
// teapot become soft bodies. A dropped file that is not a mesh is refused with the server's reason, shown on the page.

import { readFile } from "node:fs/promises";
import { Document, WebIO } from "@gltf-transform/core";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { ARTIFACTS, inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";

let server: RunningServer;
let browser: Browser;
let origin: string;
let player: WatchedPage;
let spectator: WatchedPage;

beforeAll(async () => {
  // Every page here uploads from 127.0.0.1: the per-address rate has its own test (upload-rate.test.ts).
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "uploads", log: () => undefined, uploadRate: { perMinute: 600, burst: 100 } });
  origin = `http://127.0.0.1:${server.port}`;
  browser = await launchBrowser();
  [player, spectator] = await Promise.all([openPage(browser, origin, "/"), openPage(browser, origin, "/")]);
  await Promise.all([waitForPage(player.page, "window.pliant && window.pliant.ready"), waitForPage(spectator.page, "window.pliant && window.pliant.ready")]);
  await player.page.click("text=Join as player");
  await waitForPage(player.page, "window.pliant.connection.snapshot.role === 'player'", 60_000);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Drops a file on the page as a visitor dragging it from their desktop would. */
async function dropFile(page: WatchedPage, name: string, bytes: Uint8Array): Promise<void> {
  await inPage(page.page, `(() => {
    const text = atob(${JSON.stringify(Buffer.from(bytes).toString("base64"))});
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], ${JSON.stringify(name)}));
    window.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, cancelable: true }));
    window.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, cancelable: true }));
  })()`);
}

it("a rigged, animated fox dropped on the page joins the room as a character: a spectator sees it walk in place on the stage and jiggle by its page's springs", async () => {
  const fox = await readFile(path.resolve(import.meta.dirname, "../../server/assets/fox.glb"));
  // Its own name: the room's fox is "fox".
  await dropFile(player, "little-fox.glb", fox);
  await waitForPage(spectator.page, "window.pliant.characterNamed('little-fox') !== null", 120_000);
  const id = await inPage<string>(spectator.page, "window.pliant.characterNamed('little-fox')");
  const shown = `window.pliant.character(${JSON.stringify(id)})`;
  await waitForPage(spectator.page, `${shown}?.drawn === true`, 60_000);
  // It wears the file's own base-colour image.
  expect(await inPage<string>(spectator.page, `window.pliant.connection.snapshot.client.room.state.characters.get(${JSON.stringify(id)}).texture`)).toMatch(/^\/uploaded-textures\/[0-9a-f]{32}\.png$/);
  // Over a few seconds of its walk: its frame stays on the stage, its rig's skin moves, and its flesh jiggles.
  interface Shown { frame: [number, number, number]; softRms: number; rigSurface: number[] }
  const first = await inPage<Shown>(spectator.page, shown);
  let frameMoved = 0, rigMoved = 0, jiggle = 0;
  await waitForPage(spectator.page, `(() => {
    const now = ${shown};
    window.__fox = window.__fox ?? { frame: 0, rig: 0, soft: 0 };
    const first = ${JSON.stringify({ frame: first.frame, rig: first.rigSurface })};
    const f = window.__fox;
    f.frame = Math.max(f.frame, Math.hypot(now.frame[0] - first.frame[0], now.frame[1] - first.frame[1], now.frame[2] - first.frame[2]));
    for (let i = 0; i < first.rig.length; i++) f.rig = Math.max(f.rig, Math.abs(now.rigSurface[i] - first.rig[i]));
    f.soft = Math.max(f.soft, now.softRms);
    return f.rig > 0.01 && f.soft > 1e-4;
  })()`, 60_000);
  ({ frame: frameMoved, rig: rigMoved, soft: jiggle } = await inPage<{ frame: number; rig: number; soft: number }>(spectator.page, "window.__fox"));
  console.info(`the dropped fox: frame moved ${(frameMoved * 1000).toFixed(2)} mm, its skin by the rig up to ${(rigMoved * 100).toFixed(1)} cm, its flesh up to ${(jiggle * 1000).toFixed(2)} mm RMS`);
  expect(frameMoved).toBeLessThan(1e-3);
  // Nothing touches it, no network learned it, and the room moves only its own fox's flesh (SERVER_FLESH_CHARACTERS):
  // the page is told to move it itself, and does, with its springs (snapshots leave its flesh out).
  await waitForPage(spectator.page, `${shown}.flesh === "springs" && ${shown}.springs?.steps > 60 && ${shown}.learnedWeight === 1`, 30_000);
  const springs = (await inPage<{ springs: { steps: number; ms: number } }>(spectator.page, shown)).springs;
  console.info(`the page's springs: ${springs.steps} steps, ${(springs.ms / springs.steps).toFixed(3)} ms each`);
  await spectator.page.screenshot({ path: path.join(ARTIFACTS, "uploaded-fox.png") });
  expect(spectator.errors).toEqual([]);
}, 240_000);

it("a mesh from the gallery lands on the table in every page", async () => {
  await player.page.click("[data-testid=add-mesh]");
  await player.page.click("[data-testid='gallery-suzanne.obj']");
  await waitForPage(spectator.page, "window.pliant.bodyNamed('Suzanne') !== null", 120_000);
  const id = await inPage<string>(spectator.page, "window.pliant.bodyNamed('Suzanne')");
  await waitForPage(spectator.page, `window.pliant.bodyLook(${JSON.stringify(id)}) !== null && window.pliant.ready`, 60_000);
  expect(spectator.errors).toEqual([]);
}, 240_000);

it("a teapot dropped on the page becomes a body; a dropped file that is no mesh is refused with a reason", async () => {
  const teapot = await readFile(path.resolve(import.meta.dirname, "../../server/assets/teapot.obj"));
  await dropFile(player, "teapot.obj", teapot);
  await waitForPage(spectator.page, "window.pliant.bodyNamed('teapot') !== null", 120_000);
  const id = await inPage<string>(spectator.page, "window.pliant.bodyNamed('teapot')");
  await waitForPage(spectator.page, `window.pliant.bodyLook(${JSON.stringify(id)}) !== null && window.pliant.ready`, 60_000);

  await dropFile(player, "notes.obj", new TextEncoder().encode("these are my shopping notes, not a mesh\n"));
  await waitForPage(player.page, "document.body.innerText.includes('notes.obj was not added')", 60_000);
  expect(await inPage<string>(player.page, "document.body.innerText")).toMatch(/notes\.obj was not added: .+/);
}, 240_000);

it("a glTF's vertex colours are drawn on its body", async () => {
  // A box whose every vertex is green, as a modelling tool exports a painted mesh (COLOR_0, normalised bytes).
  const document = new Document();
  const buffer = document.createBuffer();
  const corners = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]].flat().map((v) => 0.2 * v);
  const faces = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7];
  const green = new Uint8Array(8 * 4);
  for (let i = 0; i < 8; i++) green.set([20, 230, 40, 255], 4 * i);
  const primitive = document.createPrimitive()
    .setAttribute("POSITION", document.createAccessor().setType("VEC3").setArray(new Float32Array(corners)).setBuffer(buffer))
    .setAttribute("COLOR_0", document.createAccessor().setType("VEC4").setArray(green).setNormalized(true).setBuffer(buffer))
    .setIndices(document.createAccessor().setType("SCALAR").setArray(new Uint16Array(faces)).setBuffer(buffer));
  document.createScene().addChild(document.createNode().setMesh(document.createMesh().addPrimitive(primitive)));
  await dropFile(player, "green-box.glb", await new WebIO().writeBinary(document));
  await waitForPage(spectator.page, "window.pliant.bodyNamed('green-box') !== null", 120_000)
    .catch(async (error: Error) => { throw new Error(`${error.message}; the player's page says: ${await inPage<string>(player.page, "document.body.innerText")}`); });
  const id = await inPage<string>(spectator.page, "window.pliant.bodyNamed('green-box')");
  await waitForPage(spectator.page, `window.pliant.bodyLook(${JSON.stringify(id)}) !== null`, 60_000);
  const look = await inPage<{ colourVertices: number; vertexColours: boolean; meanColour: [number, number, number] }>(spectator.page, `window.pliant.bodyLook(${JSON.stringify(id)})`);
  expect(look.vertexColours).toBe(true);
  expect(look.colourVertices).toBeGreaterThan(0);
  expect(look.meanColour[0]).toBeCloseTo(20 / 255, 3);
  expect(look.meanColour[1]).toBeCloseTo(230 / 255, 3);
  expect(look.meanColour[2]).toBeCloseTo(40 / 255, 3);
}, 240_000);
