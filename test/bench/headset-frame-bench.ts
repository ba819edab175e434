// npm run bench:headset-frame [-- --json] [--seconds 30] [--quality high|low]: the page's CPU time per frame for a
// player dragging and throwing bodies, in a room at stand load: the default room (spot, the rubber block, the dough
// ball, the walking fox) and four uploaded bodies (the teapot, suzanne, the cow and woody), in headless Chromium
// (software GL, 640 x 360). This machine's software rasteriser draws such a room about once a second, so the play
// runs twice: first with the page's draws off (window.pliant.frames.drawing), its frames then coming at the
// display's rate as a headset's do, for the simulation (the room client: prediction, replays, interpolation) and
// the scene update of each frame; then with draws, for the render submission (gl.render's CPU side; the GPU work
// itself cannot be measured here). "At headset rate" is the first's update + scene plus the submission, quantile by
// quantile (an upper bound); with the prediction's own account (its most milliseconds in one update, replays spread)
// and its error against the server's state at each reconciliation.

import path from "node:path";
import { readFile } from "node:fs/promises";
import { integerFlag, parseFlags } from "../../server/cli/cli-support";
import { startServer } from "../../server/app";
import { inPage, launchBrowser, openPage, waitForPage } from "../browser/browser";
import { frameCount, framesPass, framesSince, quantiles } from "./page-frames";

const flags = parseFlags(process.argv.slice(2), { json: { type: "boolean", default: false }, seconds: { type: "string" }, quality: { type: "string", default: "high" } });
const seconds = integerFlag(flags, "seconds", 30, 5, 600);
const quality = flags.quality === "low" ? "low" : "high";
const MESHES = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
const UPLOADS = ["teapot.obj", "suzanne.obj", "cow.obj", "woody.obj"];
const log = (line: string) => process.stderr.write(`${line}\n`);
/** Page frames a drag lasts and a thrown body is left to land (at 60 Hz: 2 s and 0.5 s), and drawn frames timed. */
const DRAG_FRAMES = 120;
const LANDING_FRAMES = 30;
const DRAWN_FRAMES = 40;

interface Prediction { steps: number; replayed: number; cutSteps: number; coasted: number; replays: number; shifts: number; spread: number; deferred: number; mostStepsInUpdate: number; mostMsInUpdate: number }

const server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "bench", log: () => undefined, uploadRate: { perMinute: 600, burst: 100 } });
const origin = `http://127.0.0.1:${server.port}`;
const browser = await launchBrowser({ niced: false, viewport: { width: 640, height: 360 } });
let result: {
  frames: number; fps: number; drawnFrames: number; simulation: number[]; simulationPerStep: number[]; steps: number[]; scene: number[]; render: number[]; updateAndScene: number[]; atHeadsetRate: number[];
  prediction: Prediction; throws: number; drags: number;
  /** The prediction's error at each reconciliation (the server's state against the predicted one of the same frame), mm. */
  reconcileErrorMm: number[];
};
try {
  const { page, errors } = await openPage(browser, origin, `/?quality=${quality}`);
  await waitForPage(page, "window.pliant && window.pliant.ready", 180_000);
  const roomId = await inPage<string>(page, "window.pliant.client.roomId");
  const uploaded: string[] = [];
  for (const file of UPLOADS) {
    const response = await fetch(`${origin}/meshes?token=bench&room=${roomId}&name=${file}`, { method: "POST", headers: { "Content-Type": "model/obj" }, body: new Uint8Array(await readFile(path.join(MESHES, file))) });
    const answer = (await response.json()) as { id: string; error?: string };
    if (response.status !== 202) throw new Error(`${file}: ${response.status} ${answer.error}`);
    uploaded.push(answer.id);
  }
  log(`uploaded ${uploaded.join(", ")}; waiting for the page to show them...`);
  await waitForPage(page, `${JSON.stringify(uploaded)}.every((id) => window.pliant.client.bodies.has(id)) && window.pliant.ready`, 180_000);
  // A small page shows the compact overlay: "Join as player" alone (the remembered name).
  const name = page.locator("input[aria-label=name]");
  if (await name.count()) await name.fill("bench");
  await page.click("text=Join as player");
  await waitForPage(page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready", 180_000);
  // The orbit camera (the default) above the table's front, looking at the bodies.
  await inPage(page, "window.pliant.aimCamera([0, 1.3, 0.1], [0, 0.75, -0.55])");
  const targets = ["spot", ...uploaded];
  let throws = 0, drags = 0;
  /** Drags and throws the bodies in turn for `frames` of the page's frames, paced by them. */
  const play = async (frames: number) => {
    const end = (await frameCount(page)) + frames;
    for (let k = 0; (await frameCount(page)) < end; k++) {
      const id = targets[k % targets.length];
      const top = await inPage<[number, number, number]>(page, `window.pliant.surfacePoint(${JSON.stringify(id)}, 0)`);
      const [x, y] = await inPage<[number, number]>(page, `window.pliant.project(${top.join(", ")})`);
      if (!(x > 0 && x < 640 && y > 0 && y < 360)) continue;
      await page.mouse.move(x, y);
      await page.mouse.down();
      if (k % 2 === 0) {
        // A drag: 2 s of slow circles above the table (120 frames at 60 Hz), a mouse move every other frame.
        const began = await frameCount(page);
        for (let t = 0, now = began; now < Math.min(began + DRAG_FRAMES, end); t++, now = await frameCount(page)) {
          await page.mouse.move(x + 30 * Math.sin(t / 5), y - 25 - 15 * Math.cos(t / 5));
          await framesPass(page, now, 2);
        }
        drags++;
      } else {
        // A throw: lifted, then flung sideways and let go.
        await page.mouse.move(x, y - 30, { steps: 5 });
        await page.mouse.move(x + (k % 4 === 1 ? 120 : -120), y - 60, { steps: 3 });
        throws++;
      }
      await page.mouse.up();
      // The thrown body flies and lands.
      const released = await frameCount(page);
      await framesPass(page, released, Math.min(LANDING_FRAMES, Math.max(1, end - released)));
    }
  };
  /** The page's frames and the prediction's account while `frames` of play run. */
  const record = async (frames: number) => {
    const start = await frameCount(page);
    const before = await inPage<Prediction>(page, "({ ...window.pliant.client.predictionStats })");
    await inPage(page, "window.reconcileErrors = []; window.pliant.client.onReconcile = (event) => window.reconcileErrors.push(event.error)");
    await play(frames);
    const reconcileErrors = await inPage<number[]>(page, "window.reconcileErrors.filter(Number.isFinite)");
    const series = await framesSince(page, start);
    const after = await inPage<Prediction>(page, "({ ...window.pliant.client.predictionStats })");
    const prediction = Object.fromEntries(Object.entries(after).map(([key, value]) => [key, key.startsWith("most") ? value : value - before[key as keyof Prediction]])) as unknown as Prediction;
    return { ...series, n: series.frames, prediction, reconcileErrors };
  };
  // Without draws: the frames come at the display's rate, as a headset's do; then with draws, for their submission.
  await inPage(page, "window.pliant.frames.drawing = false");
  const fast = await record(seconds * 60);
  await inPage(page, "window.pliant.frames.drawing = true");
  const drawn = await record(DRAWN_FRAMES);
  const perStep = fast.simulation.map((v, k) => v / Math.max(1, fast.steps[k]));
  const frameCpu = fast.simulation.map((v, k) => v + fast.scene[k]);
  const render = quantiles(drawn.render);
  result = {
    frames: fast.n, fps: 1000 / (fast.interval.reduce((a, b) => a + b, 0) / Math.max(1, fast.n)), drawnFrames: drawn.n,
    simulation: quantiles(fast.simulation), simulationPerStep: quantiles(perStep), steps: quantiles(fast.steps), scene: quantiles(fast.scene), render,
    updateAndScene: quantiles(frameCpu), atHeadsetRate: quantiles(frameCpu).map((v, k) => v + render[k]), prediction: fast.prediction, throws, drags,
    reconcileErrorMm: quantiles(fast.reconcileErrors.map((e) => 1000 * e)),
  };
  if (errors.length) log(`page errors: ${errors.join(" | ")}`);
} finally {
  await browser.close();
  await server.close();
}

if (flags.json) process.stdout.write(`${JSON.stringify({ quality, seconds, ...result })}\n`);
else {
  const f = (v: number[]) => v.map((x) => x.toFixed(2)).join(" / ");
  const p = result.prediction;
  process.stdout.write(`Player dragging and throwing (${result.drags} drags, ${result.throws} throws), the fox and 4 uploaded bodies, 640x360, quality ${quality}\n`);
  process.stdout.write(`Without draws: ${result.frames} frames at ${result.fps.toFixed(1)} fps; the draws' submission from ${result.drawnFrames} drawn frames (software GL)\n`);
  process.stdout.write("| ms a frame (p50 / p95 / max) | simulation | 60 Hz steps a frame | simulation per step | scene update | update + scene | render submit | at headset rate |\n|---|---|---|---|---|---|---|---|\n");
  process.stdout.write(`| | ${f(result.simulation)} | ${f(result.steps)} | ${f(result.simulationPerStep)} | ${f(result.scene)} | ${f(result.updateAndScene)} | ${f(result.render)} | ${f(result.atHeadsetRate)} |\n`);
  process.stdout.write(`\nPrediction (without draws): ${p.steps} steps (${p.replayed} replayed, ${p.cutSteps} held ones cut at their deadline), ${p.coasted} frames coasted, ${p.replays} replays (${p.spread} spread over updates), ${p.shifts} shifted, ${p.deferred} server states passed over; most in one update ${p.mostMsInUpdate?.toFixed(2) ?? "?"} ms, ${p.mostStepsInUpdate} steps; its error at a reconciliation ${f(result.reconcileErrorMm)} mm (p50 / p95 / max)\n`);
}
process.exit(0);
