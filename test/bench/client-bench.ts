// npm run bench:client [-- --json]: the browser client's CPU time per frame and its join time, in headless
// Chromium (software GL) on this machine, with 4 soft bodies of the Stanford bunny (34,834 render vertices each).
// Per frame: simulation (room client: prediction, replays, interpolation), scene update (GPU skinning uniforms,
// props, avatars, cameras, input) and render submission (gl.render's CPU side; the GPU work itself cannot be
// measured here). Phases: a spectator watching a still room, a spectator while a bot pulls the bodies, and a
// player dragging a body with the mouse (local prediction on).

import path from "node:path";
import { startServer } from "../../server/app";
import { configurePlayground } from "../../server/room/playground-config";
import { PliantRoomClient } from "../../shared/net";
import { PLAYGROUND, type SceneLayout } from "../../shared/scene";
import { inPage, launchBrowser, openPage, waitForPage } from "../browser/browser";
import { frameCount, framesSince, quantiles } from "./page-frames";

const BUNNY = path.resolve(import.meta.dirname, "../../../shared/assets/meshes/stanford-bunny.obj");
const PHASE_MS = 20_000;
const TABLE_TOP = 0.75;
const LAYOUT: SceneLayout = {
  ...PLAYGROUND,
  bodies: [-0.5, -0.17, 0.17, 0.5].map((x, k) => ({ id: `bunny-${k + 1}`, mesh: `file:${BUNNY}`, size: 0.2, material: (["jelly", "rubber", "dough", "jelly"] as const)[k], position: [x, TABLE_TOP + 0.002, -0.6] as [number, number, number] })),
};

interface FrameRow { phase: string; frames: number; fps: number; simulation: number[]; simulationPerStep: number[]; scene: number[]; render: number[]; total: number[]; atHeadsetRate: number[] }
interface JoinRow { load: string; joinToVisibleMs: number; roomJoinMs: number; workerMs: number; cached: boolean; bakeBytes: number; vertices: number }

configurePlayground({ layout: LAYOUT });
process.stderr.write("baking 4 bunnies (cached by content hash after the first run)...\n");
const server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "bench", log: () => undefined });
const origin = `http://127.0.0.1:${server.port}`;
const browser = await launchBrowser({ niced: false, viewport: { width: 960, height: 540 } });
const joins: JoinRow[] = [];
const frames: FrameRow[] = [];
try {
  // Full quality (shadows, antialiasing), as a headset draws, although this browser draws with software GL.
  const watched = await openPage(browser, origin, "/?camera=auto&quality=high");
  const page = watched.page;
  const measureJoin = async (load: string) => {
    await page.waitForFunction("window.pliant && window.pliant.ready", undefined, { timeout: 120_000, polling: 10 });
    const visibleAt = await inPage<number>(page, "performance.now()");
    const bakes = await inPage<{ ms: number; cached: boolean; bytes: number; vertices: number }[]>(page, "window.pliant.bakes");
    const roomJoinMs = await inPage<number>(page, "window.pliant.connection.snapshot.joinMs");
    joins.push({ load, joinToVisibleMs: visibleAt, roomJoinMs, workerMs: Math.max(...bakes.map((b) => b.ms)), cached: bakes.every((b) => b.cached), bakeBytes: bakes[0]?.bytes ?? 0, vertices: bakes[0]?.vertices ?? 0 });
  };
  await measureJoin("first visit (bakes downloaded)");
  await page.reload();
  await measureJoin("second visit (bakes from IndexedDB)");

  const record = async (phase: string, during: () => Promise<void>) => {
    const start = await frameCount(page);
    await during();
    const { frames: n, simulation, steps, scene, render, interval } = await framesSince(page, start);
    const total = simulation.map((v, k) => v + scene[k] + render[k]);
    // Software GL draws a frame a second here, so each frame catches up many 60 Hz steps; a headset at 72-90 Hz
    // runs at most one per frame: its CPU time is one step's share plus the scene update and the draw submission.
    const perStep = simulation.map((v, k) => v / Math.max(1, steps[k]));
    const atHeadsetRate = perStep.map((v, k) => v + scene[k] + render[k]);
    const meanInterval = interval.reduce((a, b) => a + b, 0) / Math.max(1, interval.length);
    frames.push({ phase, frames: n, fps: 1000 / meanInterval, simulation: quantiles(simulation), simulationPerStep: quantiles(perStep), scene: quantiles(scene), render: quantiles(render), total: quantiles(total), atHeadsetRate: quantiles(atHeadsetRate) });
    process.stderr.write(`${phase}: ${n} frames\n`);
  };

  await record("spectator, room at rest", () => new Promise((resolve) => setTimeout(resolve, PHASE_MS)));

  const bot = await PliantRoomClient.join({ endpoint: `ws://127.0.0.1:${server.port}`, options: { role: "player", name: "bot" } });
  const botTimer = setInterval(() => bot.update(), 1000 / 60);
  await record("spectator, a bot pulling the bodies", async () => {
    const started = Date.now();
    for (let k = 0; Date.now() - started < PHASE_MS; k++) {
      const id = `bunny-${(k % 4) + 1}`;
      const body = bot.bodies.get(id)!;
      const p = new Float64Array(3);
      body.body.positionAt(body.displayQ, body.body.subspace.surfaceRows, body.body.subspace.surfaceRest, 0, p, 0);
      if (!(await bot.grab("right", id, [p[0], p[1], p[2]])).ok) continue;
      for (let t = 0; t < 40; t++) {
        bot.moveGrab("right", [p[0] + 0.05 * Math.sin(t / 6), p[1] + 0.1 * Math.min(1, t / 10), p[2]]);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      bot.release("right");
    }
  });
  clearInterval(botTimer);
  await bot.leave();

  await page.fill("input[aria-label=name]", "bench", { timeout: 180_000 }); // at a frame a second, its checks take long
  await page.locator("text=Join as player").dispatchEvent("click"); // a click would wait for navigations, which a page drawing a frame a second can make take 30 s
  // A player's join builds the four bunnies again: at a frame a second that can take over a minute here.
  await waitForPage(page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready", 180_000);
  await page.locator("text=Orbit camera").dispatchEvent("click");
  await record("player dragging a body (prediction on)", async () => {
    const top = await inPage<[number, number, number]>(page, "window.pliant.surfacePoint('bunny-2', 0)");
    const [x, y] = await inPage<[number, number]>(page, `window.pliant.project(${top.join(", ")})`);
    await page.mouse.move(x, y);
    await page.mouse.down();
    const started = Date.now();
    for (let t = 0; Date.now() - started < PHASE_MS; t++) {
      await page.mouse.move(x + 40 * Math.sin(t / 5), y - 30 - 20 * Math.cos(t / 5));
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await page.mouse.up();
  });
  if (watched.errors.length) process.stderr.write(`page errors: ${watched.errors.join(" | ")}\n`);
} finally {
  await browser.close();
  await server.close();
}

if (process.argv.includes("--json")) {
  process.stdout.write(`${JSON.stringify({ joins, frames })}\n`);
} else {
  const f = (v: number) => v.toFixed(2);
  process.stdout.write("Client join: 4 bunny bodies (one bake), headless Chromium, loopback\n");
  process.stdout.write("| load | join to bodies visible ms | room join + bodies ms | bake worker ms | bake bytes | render vertices per body |\n|---|---|---|---|---|---|\n");
  for (const j of joins) process.stdout.write(`| ${j.load} | ${j.joinToVisibleMs.toFixed(0)} | ${j.roomJoinMs.toFixed(0)} | ${j.workerMs.toFixed(0)} | ${j.bakeBytes} | ${j.vertices} |\n`);
  process.stdout.write("\nClient CPU per frame, ms (p50 / p95 / max), 4 x 34,834-vertex bodies, 960x540, software GL\n");
  process.stdout.write("(simulation per step: the room client's time divided by the 60 Hz steps it ran that frame; at headset rate: one step + scene + submit)\n");
  process.stdout.write("| phase | frames | fps | simulation | simulation per step | scene update | render submit | total | at headset rate |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const r of frames) process.stdout.write(`| ${r.phase} | ${r.frames} | ${r.fps.toFixed(1)} | ${r.simulation.map(f).join(" / ")} | ${r.simulationPerStep.map(f).join(" / ")} | ${r.scene.map(f).join(" / ")} | ${r.render.map(f).join(" / ")} | ${r.total.map(f).join(" / ")} | ${r.atHeadsetRate.map(f).join(" / ")} |\n`);
}
process.exit(0);
