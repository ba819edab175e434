// npm run bench:throws [-- --json]: a real server on loopback and one player client that throws and flings the
// room's bodies (the dough ball and spot, released at 1 and at 6 m/s), whips each across 2.8 m every other frame,
// and churns grabs (a new grab every 3 frames, each moved 3.6 cm). The client reads the tick numbers of the snapshots it receives:
// for each phase, the fewest ticks the room advanced in any 1 s window (60 is real time), and the server's tick
// time (p99, max) and soft-body steps put off by the tick's solver budget.

import { Client, type Room } from "@colyseus/sdk";
import { matchMaker } from "@colyseus/core";
import { startServer } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import { decodeSnapshot, ROOM_NAME } from "../../shared/net";
import { quantile } from "../../server/scenarios/run-scenario";

/** One frame of the client (it sends a grab target or a pose each frame, as a headset does). */
const frame = () => new Promise((resolve) => setTimeout(resolve, 1000 / 60));
const json = process.argv.includes("--json");
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Row { phase: string; seconds: number; minTicksPerSecond: number; tickMsP99: number; tickMsMax: number; deferredTicks: number; escapes: number }

const server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "bench", log: () => {}, matchmakeLimits: { requestsPerAddress: Number.POSITIVE_INFINITY } }); // every bot joins from this machine
const listing = await matchMaker.createRoom(ROOM_NAME, {});
const room = matchMaker.getLocalRoomById(listing.roomId) as PlaygroundRoom;
const client = new Client(`ws://127.0.0.1:${server.port}`);
const player: Room = await client.joinById(listing.roomId, { name: "thrower", role: "player" });
player.onMessage("*", () => {});

/** (arrival ms, tick) of every snapshot. */
const seen: [number, number][] = [];
player.onMessage("snapshot", (bytes: Uint8Array) => seen.push([performance.now(), decodeSnapshot(bytes).tick]));
// A spectator keeps snapshots flowing while nothing moves (a still room sends none).
const watcher: Room = await client.joinById(listing.roomId, { name: "watcher", role: "spectator" });
watcher.onMessage("*", () => {});

const world = room.sceneWorld;
let seq = 0;

/** Frames until `condition` holds (at most `timeoutMs`): the phases end when the room has come to rest. */
async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!condition() && performance.now() < end) await frame();
}
const allAsleep = () => world.bodies.every((_, b) => world.isAsleep(b));
// Poses every frame, as a headset sends them (they also keep snapshots flowing while the bodies rest).
const poses = setInterval(() => {
  const t = performance.now() / 1000;
  player.send("pose", { head: [0, 1.6 + 0.01 * Math.sin(t), 0.4, 0, 0, 0, 1], left: [-0.2, 1.2, 0.1, 0, 0, 0, 1], right: [0.2, 1.2, 0.1, 0, 0, 0, 1] });
}, 1000 / 72);

/** The surface sample at the top of a body, world metres. */
function topOf(index: number): [number, number, number] {
  const entity = world.bodies[index], s = entity.subspace, p = new Float64Array(3);
  let best: [number, number, number] = [0, -Infinity, 0];
  for (let i = 0; i < s.surfaceCount; i++) {
    entity.body.pointPosition(s.surfaceRows, s.surfaceRest, i, p, 0);
    if (p[1] > best[1]) best = [p[0], p[1], p[2]];
  }
  return best;
}

function bodyIndex(id: string): number {
  const index = world.bodies.findIndex((b) => b.id === id);
  if (index < 0) throw new Error(`no body ${id}`);
  return index;
}

/** Grab the top, lift 15 cm over 0.25 s, swing towards the room's centre at `speed` for 0.1 s, let go. */
async function throwBody(id: string, speed: number): Promise<void> {
  const start = topOf(bodyIndex(id));
  player.send("grab-start", { hand: "right", body: id, point: start, seq: ++seq });
  const target = [...start];
  for (let f = 1; f <= 15; f++) {
    target[1] = start[1] + 0.15 * (f / 15);
    player.send("grab-move", { hand: "right", target, seq: ++seq });
    await frame();
  }
  for (let f = 0; f < 6; f++) {
    target[2] += speed / 60;
    target[1] += (0.5 * speed) / 60;
    player.send("grab-move", { hand: "right", target, seq: ++seq });
    await frame();
  }
  player.send("grab-end", { hand: "right", seq: ++seq });
  await until(allAsleep, 6000);
}

async function whip(id: string, seconds: number): Promise<void> {
  const start = topOf(bodyIndex(id));
  player.send("grab-start", { hand: "left", body: id, point: start, seq: ++seq });
  for (let f = 0; f < seconds * 60; f++) {
    const side = Math.floor(f / 2) % 2 === 0 ? 1 : -1;
    player.send("grab-move", { hand: "left", target: [start[0] + 1.4 * side, start[1] + 0.3, start[2]], seq: ++seq });
    await frame();
  }
  player.send("grab-end", { hand: "left", seq: ++seq });
  await until(allAsleep, 6000);
}

async function churn(seconds: number): Promise<void> {
  const ids = world.bodies.map((b) => b.id);
  for (let f = 0; f < seconds * 20; f++) {
    const id = ids[f % ids.length], hand = f % 2 === 0 ? "left" : "right";
    const start = topOf(bodyIndex(id));
    player.send("grab-start", { hand, body: id, point: start, seq: ++seq });
    player.send("grab-move", { hand, target: [start[0], start[1] + 0.03, start[2] + 0.02], seq: ++seq });
    await frame();
    await frame();
    player.send("grab-end", { hand, seq: ++seq });
    await frame();
  }
  await until(allAsleep, 6000);
}

/** Fewest ticks in any 1 s window of snapshots received between two times. */
function minTicksPerSecond(from: number, to: number): number {
  const window = seen.filter(([t]) => t >= from && t <= to);
  let fewest = Infinity;
  for (let i = 0, j = 0; i < window.length; i++) {
    while (window[i][0] - window[j][0] > 1000) j++;
    // Snapshot i and the earliest one within a second before it: extend to a full second by the rate between them.
    if (window[i][0] - from < 1000) continue;
    const spanMs = window[i][0] - window[j][0];
    if (spanMs < 500) continue;
    fewest = Math.min(fewest, ((window[i][1] - window[j][1]) * 1000) / spanMs);
  }
  return Number.isFinite(fewest) ? fewest : NaN;
}

async function phase(name: string, run: () => Promise<void>): Promise<Row> {
  const stats = room.stats, cursor0 = stats.ticks.cursor, deferred0 = world.deferredTicks, escapes0 = world.escapes;
  const from = performance.now();
  await run();
  const to = performance.now();
  const durations: number[] = [];
  stats.ticks.readSince(cursor0, durations);
  durations.sort((a, b) => a - b);
  const row = {
    phase: name, seconds: (to - from) / 1000, minTicksPerSecond: minTicksPerSecond(from, to),
    tickMsP99: quantile(durations, 0.99), tickMsMax: durations[durations.length - 1] ?? NaN,
    deferredTicks: world.deferredTicks - deferred0, escapes: world.escapes - escapes0,
  };
  log(`${name}: ${row.minTicksPerSecond.toFixed(1)} ticks/s at worst, tick p99 ${row.tickMsP99.toFixed(2)} ms, max ${row.tickMsMax.toFixed(2)} ms`);
  return row;
}

if (process.env.DEBUG_ESCAPES) {
  const step = world.step.bind(world);
  world.step = () => { step(); world.respawned.forEach((r, b) => { if (r) log(`escape: ${world.bodies[b].id} at tick ${world.tick}`); }); };
}
await until(allAsleep, 10_000); // bodies settle on the table
const rows: Row[] = [];
for (const id of ["dough-ball", "spot"]) {
  for (const speed of [1, 6]) rows.push(await phase(`throw ${id} at ${speed} m/s`, () => throwBody(id, speed)));
}
rows.push(await phase("whip dough-ball +-1.4 m every other frame, 4 s", () => whip("dough-ball", 4)));
rows.push(await phase("whip spot +-1.4 m every other frame, 4 s", () => whip("spot", 4)));
rows.push(await phase("grab churn: a new grab every 3 frames, 6 s", () => churn(6)));
clearInterval(poses);
await player.leave();
await watcher.leave();
await server.close();
if (json) process.stdout.write(`${JSON.stringify(rows)}\n`);
else {
  process.stdout.write("| phase | seconds | fewest ticks in 1 s (snapshots) | tick p99 ms | tick max ms | ticks that put steps off | escapes |\n|---|---|---|---|---|---|---|\n");
  for (const r of rows) process.stdout.write(`| ${r.phase} | ${r.seconds.toFixed(1)} | ${r.minTicksPerSecond.toFixed(1)} | ${r.tickMsP99.toFixed(2)} | ${r.tickMsMax.toFixed(2)} | ${r.deferredTicks} | ${r.escapes} |\n`);
}
process.exit(0);
