// The fox in real Chromium: a desktop spectator sees it walk its loop around the table (drawn, moving along the
// path), and an emulated headset's bare fingertip, held beside its path ahead of it, dents its flesh as it
// passes; pressed into the fox stopped by an admin, the dent lasts and the spectator's page shows it (the skin near
// the fingertip pushed away from it). Untouched, its flesh
// comes from its secondary-motion network, which the page runs itself in onnxruntime-web. The screenshot is kept
// in out/browser/ (docs/ holds the curated one).

import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { matchMaker } from "@colyseus/core";
import { Client } from "@colyseus/sdk";
import { startServer, type RunningServer } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import { MESSAGES } from "../../shared/net";
import { PLAYGROUND } from "../../shared/scene";
import { ARTIFACTS, inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";
import { placeInput } from "./emulated-inputs";
import { flankSample, ticksPass } from "../server/helpers";

type Vec = [number, number, number];
interface ShownCharacter { drawn: boolean; frame: Vec; yaw: number; softRms: number; surface: number[]; rigSurface: number[]; flesh: string; learnedWeight: number; learnedSteps: number; learnedRuntime: { provider: string; runs: number; ms: number } | null }
const FOX = PLAYGROUND.characters![0];
const MODELS = path.resolve(import.meta.dirname, "../../models");

let server: RunningServer;
// One browser per page: two pages of one Chromium share its GPU process (SwiftShader).
let browsers: Browser[] = [];
let spectator: WatchedPage;
let headset: WatchedPage;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "browser-test", log: () => undefined });
  const origin = `http://127.0.0.1:${server.port}`;
  browsers = [await launchBrowser({ viewport: { width: 960, height: 600 } }), await launchBrowser()];
  spectator = await openPage(browsers[0], origin, "/");
  headset = await openPage(browsers[1], origin, "/?emulate=quest3");
  await waitForPage(spectator.page, "window.pliant && window.pliant.ready");
  await waitForPage(headset.page, "window.pliant && window.pliant.ready");
  await headset.page.fill("input[aria-label=name]", "Fox tester");
  await headset.page.click("text=Join as player");
  await waitForPage(headset.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready");
  await headset.page.click("text=Enter VR");
  await waitForPage(headset.page, "window.pliant.store.getState().session != null");
  await inPage(headset.page, "window.pliant.device.primaryInputMode = 'hand'");
  mkdirSync(ARTIFACTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  for (const browser of browsers) await browser.close();
  await server?.close();
});

const shown = (page: WatchedPage) => inPage<ShownCharacter | null>(page.page, "window.pliant.character('fox')");

it("the spectator sees the fox drawn, walking its loop around the table", async () => {
  await waitForPage(spectator.page, "window.pliant.character('fox')?.drawn === true", 30_000);
  const seen: Vec[] = [];
  await vi.waitFor(async () => {
    const fox = (await shown(spectator))!;
    seen.push(fox.frame);
    const first = seen[0], last = seen[seen.length - 1];
    expect(Math.hypot(last[0] - first[0], last[2] - first[2]), "distance walked, m").toBeGreaterThan(0.5);
  }, { timeout: 30_000, interval: 200 });
  // Every position it was seen at is on its loop (the frame's origin sits within its body of the path).
  for (const frame of seen) {
    const onLoop = Math.hypot((frame[0] - FOX.path.centre[0]) / FOX.path.radii[0], (frame[2] - FOX.path.centre[1]) / FOX.path.radii[1]);
    expect(onLoop).toBeGreaterThan(0.7);
    expect(onLoop).toBeLessThan(1.3);
  }
  // A view from inside the loop, over the fox a little ahead of where it is (it walks on while the frame renders).
  const fox = (await shown(spectator))!, [cx, cz] = FOX.path.centre;
  const ahead: Vec = [fox.frame[0] + 0.3 * Math.sin(fox.yaw), 0.2, fox.frame[2] + 0.3 * Math.cos(fox.yaw)];
  await inPage(spectator.page, `window.pliant.aimCamera([${cx + 0.3 * (ahead[0] - cx)}, 0.9, ${cz + 0.3 * (ahead[2] - cz)}], [${ahead.join(", ")}])`);
  const before = await inPage<number>(spectator.page, "window.pliant.frameStats.count");
  await waitForPage(spectator.page, `window.pliant.frameStats.count >= ${before + 3}`, 30_000);
  await spectator.page.screenshot({ path: path.join(ARTIFACTS, "fox.png") });
  // The page credits it, as its CC-BY licence asks.
  const credits = await spectator.page.textContent("[data-testid=character-credits]");
  expect(credits).toContain("@tomkranis, CC-BY 4.0");
  expect(spectator.errors).toEqual([]);
  expect(spectator.offsite).toEqual([]);
}, 180_000);

/**
 * Waits until the page shows the fox's flesh from its own run of the network on `provider`, `steps` steps answered
 * and moving; returns its largest RMS seen (m).
 */
async function ownNetworkMovesFlesh(page: WatchedPage, provider: string, steps: number): Promise<number> {
  await vi.waitFor(async () => {
    const fox = (await shown(page))!;
    expect(fox.flesh).toBe("rnn");
    expect(fox.learnedWeight).toBe(1);
    expect(fox.learnedSteps).toBeGreaterThan(steps);
    expect(fox.learnedRuntime?.provider).toBe(provider);
    expect(fox.learnedRuntime!.runs).toBeGreaterThan(0);
  }, { timeout: 60_000, interval: 200 });
  // The flesh it shows is the page's network's: it moves (the server sends none of it now).
  let largest = 0;
  await vi.waitFor(async () => {
    largest = Math.max(largest, (await shown(page))!.softRms);
    expect(largest).toBeGreaterThan(2e-4);
  }, { timeout: 30_000, interval: 100 });
  return largest;
}

it("untouched, the spectator's page moves the fox's flesh with its own run of the network (onnxruntime-web, wasm without a WebGPU adapter)", async () => {
  const largest = await ownNetworkMovesFlesh(spectator, "wasm", 60);
  console.info(`the spectator's own network (wasm) moved the fox's flesh by up to ${(1000 * largest).toFixed(2)} mm RMS`);
  expect(spectator.errors).toEqual([]);
}, 120_000);


/** How near the room's fox's skin, where its rig puts it, comes to a point (m). */
function roomSkinDistance(room: PlaygroundRoom, tip: Vec): number {
  const motion = room.roomCharacters[0].character.motion, posed = motion.posedSurface, world = new Float64Array(3);
  let nearest = Infinity;
  for (let i = 0; i < posed.length / 3; i++) {
    motion.toWorld(posed[3 * i], posed[3 * i + 1], posed[3 * i + 2], world);
    nearest = Math.min(nearest, Math.hypot(world[0] - tip[0], world[1] - tip[1], world[2] - tip[2]));
  }
  return nearest;
}

/**
 * How far the room's fox's skin within 4 cm of `tip` is pushed away from it beyond where its rig alone puts it (m),
 * read from the room itself (the server runs in this process).
 */
function roomDent(room: PlaygroundRoom, tip: Vec): number {
  const character = room.roomCharacters[0].character, world = new Float64Array(3), soft = new Float64Array(3);
  const posed = character.motion.posedSurface, rows = character.subspace.surfaceRows, q = character.body.q, m = character.body.m;
  const c = Math.cos(character.motion.frameYaw), sn = Math.sin(character.motion.frameYaw);
  let deepest = 0;
  for (let i = 0; i < posed.length / 3; i++) {
    character.motion.toWorld(posed[3 * i], posed[3 * i + 1], posed[3 * i + 2], world);
    const rx = world[0] - tip[0], ry = world[1] - tip[1], rz = world[2] - tip[2], d = Math.hypot(rx, ry, rz);
    if (d > 0.04 || d === 0) continue;
    soft.fill(0);
    for (let k = 0; k < m; k++) { const r = rows[i * m + k]; soft[0] += r * q[k]; soft[1] += r * q[m + k]; soft[2] += r * q[2 * m + k]; }
    const wx = c * soft[0] + sn * soft[2], wz = -sn * soft[0] + c * soft[2];
    deepest = Math.max(deepest, (wx * rx + soft[1] * ry + wz * rz) / d);
  }
  return deepest;
}

it("a fingertip held where the walking fox goes dents its flesh as it passes; pressed into the stopped fox, the spectator sees the dent", async () => {
  // A fingertip on the fox's path a metre and a half ahead of it, at the height of the middle of its body, set off to
  // its right side by its half width less 15 mm: the flank it walks past presses through the fingertip (with 5 mm, a
  // fox whose gait swayed the other way only grazed it).
  const fox = (await shown(headset))!;
  const [a, b] = FOX.path.radii, [cx, cz] = FOX.path.centre, height = 0.25 * FOX.size;
  const right: Vec = [Math.cos(fox.yaw), 0, -Math.sin(fox.yaw)], forward: Vec = [Math.sin(fox.yaw), 0, Math.cos(fox.yaw)];
  let halfWidth = 0;
  for (let i = 0; i < fox.rigSurface.length; i += 3) {
    const dx = fox.rigSurface[i] - fox.frame[0], dz = fox.rigSurface[i + 2] - fox.frame[2];
    if (Math.abs(fox.rigSurface[i + 1] - height) > 0.03 || Math.abs(dx * forward[0] + dz * forward[2]) > 0.1) continue;
    halfWidth = Math.max(halfWidth, Math.abs(dx * right[0] + dz * right[2]));
  }
  expect(halfWidth).toBeGreaterThan(0.02);
  const angle = Math.atan2((fox.frame[2] - cz) / b, (fox.frame[0] - cx) / a) + 1.5 / ((a + b) / 2);
  // The side of the loop there: the heading's right turned with the path (the loop is walked with its centre on the left).
  const heading: Vec = [-a * Math.sin(angle), 0, b * Math.cos(angle)], length = Math.hypot(heading[0], heading[2]);
  const side: Vec = [heading[2] / length, 0, -heading[0] / length];
  const tip: Vec = [cx + a * Math.cos(angle) + (halfWidth - 0.015) * side[0], height, cz + b * Math.sin(angle) + (halfWidth - 0.015) * side[2]];
  await placeInput(headset.page, "hands", "right", tip, "indexTip");
  // While it walks by, the room's own fox, sampled every few milliseconds: a passing flank lasts a fraction of a
  // second, less than a software-rendered page's frame (or one question to it) takes under load, so its passing is
  // measured in the room (in one full run the page's samples missed two passes and saw it no nearer than 91 mm).
  const room = matchMaker.getLocalRoomById((await inPage<string>(spectator.page, "window.pliant.client.roomId"))) as PlaygroundRoom;
  // The room must hold the fingertip when the flank passes: the emulated headset under load takes seconds to place
  // and send it (in one full run under load the fox passed before it was there, and nothing was dented).
  const roomHoldsTip = () => room.sceneWorld.pokes.some((p) => Math.hypot(p.center[0] - tip[0], p.center[1] - tip[1], p.center[2] - tip[2]) < 0.01);
  let passingDent = 0, closest = Infinity, reachedAt = Infinity;
  const sampler = setInterval(() => {
    if (!roomHoldsTip()) return;
    closest = Math.min(closest, roomSkinDistance(room, tip));
    passingDent = Math.max(passingDent, roomDent(room, tip));
    // The flank has reached the fingertip: watch it go by for two seconds more.
    if (closest < 0.015 && reachedAt === Infinity) reachedAt = Date.now();
  }, 5);
  try {
    // Placing the hand takes the emulated headset a few of its slow frames; if the fox passed meanwhile, it comes round
    // again within a lap (about 25 s). How hard the flank presses depends on its gait's phase as it passes (the
    // largest dent of a pass was 2.6 to 19.2 mm over six full runs here), so a pass that only grazes the fingertip is
    // followed by the next lap's. A fox that never comes near leaves the waiting to the assertions below, which say
    // how near it came and how far it was pushed.
    await vi.waitFor(() => {
      expect(Date.now() - reachedAt, "ms watched since the flank reached the fingertip").toBeGreaterThanOrEqual(2000);
      expect(passingDent, "the largest dent yet, m").toBeGreaterThan(0.003);
    }, { timeout: 90_000, interval: 50 }).catch(() => undefined);
  } finally {
    clearInterval(sampler);
  }
  console.info(`fingertip: the walking fox's skin came within ${(1000 * closest).toFixed(1)} mm of it and was pushed away by up to ${(1000 * passingDent).toFixed(1)} mm in the room`);
  expect(closest).toBeLessThan(0.03);
  expect(passingDent).toBeGreaterThan(0.003);

  // Stopped where it stands (an admin's command, as the admin page sends it), pressed by the same fingertip 1 cm into
  // its flank and held there: the dent lasts, and the spectator's page must show it, the server's solver flesh
  // taking over from the page's own network.
  const admin = await new Client(`ws://127.0.0.1:${server.port}`).joinById(room.roomId, { role: "spectator", name: "Admin", adminToken: "browser-test" });
  try {
    admin.onMessage("*", () => undefined);
    admin.send(MESSAGES.admin, { action: "character", character: "fox", mode: "stop" });
    await vi.waitFor(() => expect(room.state.characters.get("fox")!.mode).toBe("stop"), { timeout: 20_000, interval: 20 });
    await ticksPass(room, 30);
    // The page shows what it had a moment ago: wait until it shows the fox where the room stopped it.
    const stoppedAt = Array.from(room.roomCharacters[0].character.motion.framePosition);
    await vi.waitFor(async () => {
      const still = (await shown(spectator))!;
      expect(Math.hypot(still.frame[0] - stoppedAt[0], still.frame[2] - stoppedAt[2]), "the shown fox from where it stopped, m").toBeLessThan(0.002);
    }, { timeout: 20_000, interval: 100 });
    // The flank: the rest shape's sample furthest to the side near mid-height and mid-length (as the server's test
    // picks it), where the room's fox has it now; pressed towards its centre line.
    const character = room.roomCharacters[0].character, motion = character.motion, flank = flankSample(character);
    const skinAt = new Float64Array(3), centreLine = new Float64Array(3), posed = motion.posedSurface;
    motion.toWorld(posed[3 * flank], posed[3 * flank + 1], posed[3 * flank + 2], skinAt);
    motion.toWorld(0, posed[3 * flank + 1], 0, centreLine);
    const outX = skinAt[0] - centreLine[0], outZ = skinAt[2] - centreLine[2], outLength = Math.hypot(outX, outZ);
    const stillRight: Vec = [outX / outLength, 0, outZ / outLength];
    const skin: Vec = [skinAt[0], skinAt[1], skinAt[2]];
    // Out of its way first, then the fingertip's centre 5 mm outside the skin, its 15 mm sphere reaching 1 cm in.
    const press: Vec = [skin[0] + 0.005 * stillRight[0], skin[1], skin[2] + 0.005 * stillRight[2]];
    await placeInput(headset.page, "hands", "right", [skin[0] + 0.1 * stillRight[0], skin[1], skin[2] + 0.1 * stillRight[2]], "indexTip");
    await inPage(spectator.page, `window.pliant.watchDent("fox", [${press.join(", ")}])`);
    await placeInput(headset.page, "hands", "right", press, "indexTip");
    let held = 0, seen = 0;
    await vi.waitFor(async () => {
      held = roomDent(room, press);
      seen = await inPage<number>(spectator.page, "window.pliant.dentSeen");
      expect(held, "the room's dent, m").toBeGreaterThan(0.003);
      expect(seen, `the spectator's dent, m (the room's ${held.toFixed(4)})`).toBeGreaterThan(0.5 * held);
    }, { timeout: 30_000, interval: 100 });
    console.info(`fingertip on the stopped fox: pushed away by ${(1000 * held).toFixed(1)} mm in the room, ${(1000 * seen).toFixed(1)} mm as the spectator saw it`);
    await inPage(spectator.page, "window.pliant.stopWatchingDent()");
    await placeInput(headset.page, "hands", "right", [skin[0] + 0.1 * stillRight[0], skin[1], skin[2] + 0.1 * stillRight[2]], "indexTip");
  } finally {
    admin.send(MESSAGES.admin, { action: "character", character: "fox", mode: "auto" });
    await admin.leave();
  }
  expect(headset.errors).toEqual([]);
  expect(spectator.errors).toEqual([]);
}, 240_000);

it("a page with a WebGPU adapter opens the fox's network on WebGPU, and sessions opened at once all run there and answer as torch does", async () => {
  // Its own browser: SwiftShader's software adapter, offered to a page from 127.0.0.1 with --enable-unsafe-webgpu.
  // Software WebGPU runs the network far slower than wasm (43 steps answered in a minute in one run here, 1 in
  // another), so the test checks what it ran on and its answers, not how the flesh looks.
  const browser = await launchBrowser({ webGpu: true });
  try {
    const page = await openPage(browser, `http://127.0.0.1:${server.port}`, "/");
    await waitForPage(page.page, "window.pliant && window.pliant.ready", 120_000);
    await waitForPage(page.page, "window.pliant.character('fox')?.learnedRuntime != null", 120_000);
    expect((await shown(page))!.learnedRuntime!.provider).toBe("webgpu");
    // Fresh sessions opened as the fox's was, two at once beside the fox's own runs (as a page whose characters
    // join together opens them), each on the parity record the training wrote: torch's answers.
    const parity = JSON.parse(await readFile(path.join(MODELS, "secondary-fox-parity.json"), "utf8")) as { steps: number; features: number[]; q: number[] };
    const network = await inPage<string>(page.page, "window.pliant.client.room.state.characters.get('fox').network");
    const started = Date.now();
    const open = `window.pliant.runSecondaryNetwork(${JSON.stringify(network)}, ${JSON.stringify(parity.features)}, ${parity.steps})`;
    const runs = await inPage<{ provider: string; declined: string[]; q: number[] }[]>(page.page, `Promise.all([${open}, ${open}])`);
    console.info(`the fox's network on WebGPU (software): 2 sessions of ${parity.steps} steps in ${Date.now() - started} ms, sessions included`);
    const scale = Math.max(...parity.q.map(Math.abs));
    for (const run of runs) {
      expect(run.provider, `declined: ${run.declined.join("; ")}`).toBe("webgpu");
      expect(run.q.length).toBe(parity.q.length);
      expect(Math.max(...run.q.map((v, i) => Math.abs(v - parity.q[i]))) / scale).toBeLessThan(1e-4);
    }
    expect(page.errors).toEqual([]);
  } finally {
    await browser.close();
  }
}, 600_000);
