// A desktop player pulls the fox with the mouse, in real Chromium: stopped by an admin, grabbed on its back and
// drawn up, its flesh follows the hand a few centimetres and the page draws it within the flesh's limits (no
// sample of its skin further from where the rig puts it than the flesh's reach, no neighbouring samples pulled
// apart or together by more than its stretch), and draws it where those samples are (its GPU skinning against the
// CPU's pose of the skin: drawnWhereItsSkinIs); drawn on, the room lets go once the hand is 10 cm from the grabbed
// point, and the page says the fox slipped out of the hand. The screenshot of the pull goes to out/browser/ (docs/
// keeps a copy for the README).

import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { matchMaker } from "@colyseus/core";
import { Client } from "@colyseus/sdk";
import { startServer, type RunningServer } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import { MESSAGES } from "../../shared/net";
import { CHARACTER_GRAB_SLIP, FLESH_LIMIT } from "../../shared/rig/character-defaults";
import { PLAYGROUND } from "../../shared/scene";
import { ARTIFACTS, inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";
import { keepShot, silhouette } from "./screen-pixels";

type Vec = [number, number, number];
interface ShownCharacter { drawn: boolean; frame: Vec; yaw: number; surface: number[]; rigSurface: number[] }
const FOX = PLAYGROUND.characters![0];
/** Where the pull is drawn from (above the grabbed point, m) for the screenshot; the grip slips past 10 cm. */
const SHOWN_PULL = 0.08;
const VIEWPORT = { width: 960, height: 600 };

let server: RunningServer;
let browser: Browser;
let player: WatchedPage;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "browser-test", log: () => undefined });
  browser = await launchBrowser({ viewport: VIEWPORT });
  player = await openPage(browser, `http://127.0.0.1:${server.port}`, "/");
  await waitForPage(player.page, "window.pliant && window.pliant.ready");
  await player.page.fill("input[aria-label=name]", "Fox puller");
  await player.page.click("text=Join as player");
  await waitForPage(player.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready");
  mkdirSync(ARTIFACTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const shown = () => inPage<ShownCharacter | null>(player.page, "window.pliant.character('fox')");

/** Waits until the page has rendered a few more frames (what it shows has caught up with what it was told). */
async function frames(count: number): Promise<void> {
  const before = await inPage<number>(player.page, "window.pliant.frameStats.count");
  await waitForPage(player.page, `window.pliant.frameStats.count >= ${before + count}`, 30_000);
}

/**
 * The page skins the fox on the GPU: what it draws (the pixels that change when the fox is taken out of the view,
 * its shadow left in) covers its skin's samples as the page poses them on the CPU (rig and flesh), spans no more than
 * they do, and rises where the hand pulls its flesh up (the rig alone would draw the back lower there).
 */
async function drawnWhereItsSkinIs(): Promise<void> {
  const fox = (await shown())!, page = player.page;
  await keepShot(page, "fox", await page.screenshot());
  await inPage(page, "window.pliant.setObjectShadowOnly('character-fox', true)");
  await frames(3);
  await keepShot(page, "no-fox", await page.screenshot());
  await inPage(page, "window.pliant.setObjectShadowOnly('character-fox', false)");
  const project = (p: number[]) => inPage<[number, number][]>(page, `(() => { const p = ${JSON.stringify(p)}, out = []; for (let i = 0; i < p.length; i += 3) out.push(window.pliant.project(p[i], p[i + 1], p[i + 2])); return out; })()`);
  const skin = await project(fox.surface), rig = await project(fox.rigSurface);
  let pulled = 0;
  for (let i = 0; i < skin.length; i++) if (rig[i][1] - skin[i][1] > rig[pulled][1] - skin[pulled][1]) pulled = i;
  const inView = skin.filter(([x, y]) => x >= 0 && x < VIEWPORT.width && y >= 0 && y < VIEWPORT.height);
  const drawn = await silhouette(page, "fox", "no-fox", 30, inView, 2, [skin[pulled][0]]);
  console.info(`the drawn fox covers ${(100 * drawn.covered).toFixed(1)}% of its ${inView.length} skin samples in view; its back drawn up to row ${drawn.tops[0]} where the pulled sample is at ${skin[pulled][1].toFixed(1)} (the rig's at ${rig[pulled][1].toFixed(1)})`);
  expect(inView.length, "skin samples in view").toBeGreaterThan(0.5 * skin.length);
  expect(drawn.covered, "share of the skin's samples on the drawn fox").toBeGreaterThan(0.95);
  const [x0, y0, x1, y1] = drawn.pointBox, margin = 0.08 * Math.max(x1 - x0, y1 - y0);
  expect(drawn.box[0]).toBeGreaterThan(x0 - margin);
  expect(drawn.box[1]).toBeGreaterThan(y0 - margin);
  expect(drawn.box[2]).toBeLessThan(x1 + margin);
  expect(drawn.box[3]).toBeLessThan(y1 + margin);
  expect(rig[pulled][1] - skin[pulled][1], "the pulled sample above the rig's, px").toBeGreaterThan(6);
  expect(drawn.tops[0], "the drawn back's top where it is pulled, px").toBeLessThan(skin[pulled][1] + 3);
}

/** The flesh the page draws: its samples' largest displacement from the rig's (m) and largest neighbour strain. */
function drawnFlesh(fox: ShownCharacter, room: PlaygroundRoom): { reach: number; strain: number } {
  const limit = room.roomCharacters[0].character.limit, s = fox.surface, r = fox.rigSurface;
  const u = (i: number, a: number) => s[3 * i + a] - r[3 * i + a];
  let reach = 0, strain = 0;
  for (let i = 0; i < s.length / 3; i++) reach = Math.max(reach, Math.hypot(u(i, 0), u(i, 1), u(i, 2)));
  for (let e = 0; e < limit.from.length; e++) {
    const a = limit.from[e], b = limit.to[e];
    strain = Math.max(strain, Math.hypot(u(a, 0) - u(b, 0), u(a, 1) - u(b, 1), u(a, 2) - u(b, 2)) / limit.length[e]);
  }
  return { reach, strain };
}

it("a mouse drags the stopped fox's back up: its flesh follows a few centimetres, drawn as flesh, and the grip slips at 10 cm", async () => {
  const room = matchMaker.getLocalRoomById(await inPage<string>(player.page, "window.pliant.client.roomId")) as PlaygroundRoom;
  const fox = room.roomCharacters[0];
  const admin = await new Client(`ws://127.0.0.1:${server.port}`).joinById(room.roomId, { role: "spectator", name: "Admin", adminToken: "browser-test" });
  admin.onMessage("*", () => undefined);
  try {
    admin.send(MESSAGES.admin, { action: "character", character: "fox", mode: "stop" });
    await vi.waitFor(() => expect(room.state.characters.get("fox")!.mode).toBe("stop"), { timeout: 20_000, interval: 20 });
    // The page shows the fox where the room stopped it (it shows what it had a moment ago).
    await vi.waitFor(async () => {
      const stoppedAt = fox.character.motion.framePosition, still = (await shown())!;
      expect(still.drawn).toBe(true);
      expect(Math.hypot(still.frame[0] - stoppedAt[0], still.frame[2] - stoppedAt[2]), "the shown fox from where it stopped, m").toBeLessThan(0.002);
    }, { timeout: 30_000, interval: 100 });

    // A camera 75 cm off its right flank, a little above its back, looking at the middle of it: the back's outline
    // against the floor shows the pull.
    const still = (await shown())!, right: Vec = [Math.cos(still.yaw), 0, -Math.sin(still.yaw)];
    const rest = fox.character.subspace.surfaceRest;
    let top = -1;
    for (let i = 0; i < rest.length / 3; i++) if (Math.abs(rest[3 * i + 2]) < 0.2 * FOX.size && (top < 0 || still.surface[3 * i + 1] > still.surface[3 * top + 1])) top = i;
    const back: Vec = [still.surface[3 * top], still.surface[3 * top + 1], still.surface[3 * top + 2]];
    const eye: Vec = [back[0] + 0.75 * right[0], back[1] + 0.05, back[2] + 0.75 * right[2]];
    await inPage(player.page, `window.pliant.aimCamera([${eye.join(", ")}], [${back[0]}, ${back[1] - 0.05}, ${back[2]}])`);
    await frames(3);

    // Press on its back and draw the mouse up, 1 cm of the grabbed point's height a step.
    const screenAt = (p: Vec) => inPage<[number, number]>(player.page, `window.pliant.project(${p.join(", ")})`);
    const [x0, y0] = await screenAt(back);
    await player.page.mouse.move(x0, y0);
    await player.page.mouse.down();
    await vi.waitFor(() => expect(fox.character.body.activeGrabs(), "the room holds the fox").toBe(1), { timeout: 20_000, interval: 20 });
    const key = [...room.roomGrabs.onCharacters.keys()][0];
    const drawnUp = async (d: number) => {
      const [x, y] = await screenAt([back[0], back[1] + d, back[2]]);
      await player.page.mouse.move(x, y);
      await frames(2);
    };
    for (let d = 0.01; d <= SHOWN_PULL + 1e-9; d += 0.01) await drawnUp(d);
    // The room's flesh at the grabbed point follows the hand; the page shows it, within the flesh's limits.
    let seen = { reach: 0, strain: 0 };
    await vi.waitFor(async () => {
      seen = drawnFlesh((await shown())!, room);
      expect(fox.stretch(key), "the hand from the grabbed point in the room, m").toBeGreaterThan(0.05);
      expect(seen.reach, "the page's largest flesh displacement, m").toBeGreaterThan(0.01);
    }, { timeout: 30_000, interval: 100 });
    await frames(3);
    await player.page.screenshot({ path: path.join(ARTIFACTS, "pulled-fox.png") });
    console.info(`pulled ${(100 * fox.stretch(key)).toFixed(1)} cm from the grabbed point: the page drew its flesh up to ${(1000 * seen.reach).toFixed(1)} mm from the rig, neighbour strain ${seen.strain.toFixed(2)}`);
    expect(seen.reach).toBeLessThan(1.05 * FLESH_LIMIT.reach * FOX.size);
    expect(seen.strain).toBeLessThan(1.05 * FLESH_LIMIT.stretch);
    await drawnWhereItsSkinIs();

    // Drawn on: the room lets go once the hand is past the slip, and the page says so.
    let furthestHeld = 0;
    for (let d = SHOWN_PULL + 0.01; d <= 0.3 && fox.character.body.activeGrabs() > 0; d += 0.01) {
      furthestHeld = Math.max(furthestHeld, fox.stretch(key));
      await drawnUp(d);
    }
    await vi.waitFor(() => expect(fox.character.body.activeGrabs(), "the room let go").toBe(0), { timeout: 20_000, interval: 20 });
    expect(furthestHeld, "the hand from the grabbed point while held, m").toBeLessThan(CHARACTER_GRAB_SLIP + 0.02);
    await waitForPage(player.page, "document.body.innerText.includes('The fox slipped out of your hand.')", 20_000);
    await player.page.mouse.up();
  } finally {
    admin.send(MESSAGES.admin, { action: "character", character: "fox", mode: "auto" });
    await admin.leave();
  }
  expect(player.errors).toEqual([]);
  expect(player.offsite).toEqual([]);
}, 240_000);
