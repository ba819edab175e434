// npm run bench:server [-- --json] [--seconds 30] [--players 8] [--spectators 50] [--rough] [--no-characters] [--solver-flesh] [--bots-nice 10]
// Load on a real server on loopback: bots (another process) with 8 players sending poses at 72 Hz and grabbing,
// and 50 spectators. Reports the room's tick time (p50/p99/max, overruns of the 16.7 ms budget), the soft bodies'
// steps (taken, put off, dropped) and how their solves went (iterations a step, shares unconverged and cut at the
// tick's deadline), bytes sent per client per second, the server's CPU and memory, and whether every body stayed
// finite and in the room; for each overrun (the first 20), what its time went to and the GC inside it
// (slow-ticks.ts). A long
// --seconds (600) is the soak: memory is compared between its first and last minute. --rough adds churn, a
// connection that drops and comes back, and a misbehaving client (server-bots.ts). --no-characters runs the
// playground without its fox (what the fox costs the room). The server's log is kept: the table counts its lines, its
// server errors and stack traces, and any uncaught exception or rejection in the server's process (a soak must have
// none), and prints the first few of those.
//
// The bots run at a lower priority (10 more than the server's nice; --bots-nice 0 for the same): on a 2-core machine
// a stand's 116 clients (16 + 100) want a core and more, and at the same priority the scheduler took the server's
// thread away for 8-12 ms at a time (steps of 8-13 ms wall that used 1-5 ms of CPU), which a server on its own
// machine never sees. The table counts the poses the room received a second from each player that sends them (under
// --rough two player seats are the dropping and the misbehaving client, which send none): the bots' pace is 72, and
// a figure well under it means they starved.

import { spawn } from "node:child_process";
import { getPriority, setPriority } from "node:os";
import path from "node:path";
import { constants as perfConstants, PerformanceObserver } from "node:perf_hooks";
import { matchMaker } from "@colyseus/core";
import { startServer } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import { integerFlag, parseFlags } from "../../server/cli/cli-support";
import { MAX_PLAYERS, MAX_SPECTATORS, MESSAGES, ROOM_NAME, TICK_RATE } from "../../shared/net";
import { ClientGuard } from "../../server/room/client-guard";
import { quantile } from "../../server/scenarios/run-scenario";
import { configurePlayground } from "../../server/room/playground-config";
import { PLAYGROUND } from "../../shared/scene";
import { ROUGH_PLAYER_SEATS } from "./bots-rough";
import { watchSlowTicks, type GcPause } from "./slow-ticks";

const ROOT = path.resolve(import.meta.dirname, "../..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const flags = parseFlags(process.argv.slice(2), {
  json: { type: "boolean", default: false }, seconds: { type: "string" }, players: { type: "string" }, spectators: { type: "string" },
  rough: { type: "boolean", default: false }, "no-characters": { type: "boolean", default: false }, "solver-flesh": { type: "boolean", default: false },
  "bots-nice": { type: "string" },
});
const seconds = integerFlag(flags, "seconds", 30, 5, 7200);
const players = integerFlag(flags, "players", 8, 0, MAX_PLAYERS);
const spectators = integerFlag(flags, "spectators", 50, 0, MAX_SPECTATORS);
const botsNice = integerFlag(flags, "bots-nice", 10, 0, 19);
const log = (line: string) => process.stderr.write(`${line}\n`);
/** The server's own log, and what in it (or thrown past it) is a fault rather than a client's misbehaviour. */
const serverLog: string[] = [], faults: string[] = [];
const isFault = (line: string) => line.startsWith("server error") || /\n\s+at /.test(line) || /a (tick|send) failed/.test(line);
process.on("uncaughtException", (error) => faults.push(`uncaught exception: ${error.stack ?? error.message}`));
process.on("unhandledRejection", (reason) => faults.push(`unhandled rejection: ${(reason as Error)?.stack ?? String(reason)}`));

if (flags["no-characters"]) configurePlayground({ layout: { ...PLAYGROUND, characters: [] } });
// The solver always moves the characters' flesh, instead of their networks while nothing touches them.
if (flags["solver-flesh"]) configurePlayground({ learnedFlesh: false });
const server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "bench", log: (line) => {
  serverLog.push(line);
  if (isFault(line)) faults.push(line);
}, matchmakeLimits: { requestsPerAddress: Number.POSITIVE_INFINITY } }); // every bot joins from this machine
const listing = await matchMaker.createRoom(ROOM_NAME, {});
const room = matchMaker.getLocalRoomById(listing.roomId) as PlaygroundRoom;
log(`room ${listing.roomId} on port ${server.port}; starting ${players} players and ${spectators} spectators...`);
const warmup = 10;
const bots = spawn(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "test/bench/server-bots.ts"),
  `ws://127.0.0.1:${server.port}`, listing.roomId, String(players), String(spectators), String(seconds + warmup + 5), flags.rough ? "1" : "0"], { stdio: ["ignore", "inherit", "inherit"] });
if (botsNice > 0 && bots.pid !== undefined) {
  try {
    setPriority(bots.pid, Math.min(19, getPriority() + botsNice));
  } catch (error) {
    log(`could not lower the bots' priority (${(error as Error).message}): they compete with the server`);
  }
}
// Poses the room takes in (each one the guard let through or refused), counted here rather than in the room.
let posesReceived = 0;
const handle = ClientGuard.prototype.handle;
ClientGuard.prototype.handle = function (this: ClientGuard, ...args: Parameters<typeof handle>) {
  if (args[1] === MESSAGES.pose) posesReceived++;
  return handle.apply(this, args);
} as typeof handle;
for (let i = 0; i < 600 && room.clients.length < players + spectators; i++) await sleep(100);
if (room.clients.length < players + spectators) throw new Error(`only ${room.clients.length} bots joined`);
log(`all joined; warming up ${warmup} s, then measuring ${seconds} s...`);
await sleep(warmup * 1000);

const stats = room.stats;
const ticksBefore = stats.ticks.count, overrunsBefore = stats.overruns, escapesBefore = room.sceneWorld.escapes;
const world = room.sceneWorld, stepsBefore = { taken: world.bodySteps, putOff: world.putOffSteps, dropped: world.droppedSteps, iterations: world.bodyIterations, unconverged: world.unconvergedSteps, cut: world.cutSteps };
const bytesBefore = server.clientBytes().total, posesBefore = posesReceived;
const cpuBefore = process.cpuUsage();
// The garbage collector's pauses in the server's process (a pause inside a tick is tick time).
const gcPauses: GcPause[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push({ startTime: entry.startTime, ms: entry.duration, major: (entry as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR });
});
// The overruns (ticks longer than the tick's period), with what took their time.
const slowTicks = watchSlowTicks(1000 / TICK_RATE);
gcObserver.observe({ entryTypes: ["gc"] });
const memory: { rss: number; heap: number }[] = [];
const started = performance.now();
const durations: number[] = [];
/** Ticks in each 1 s window. */
const ticksPerSecond: number[] = [];
const sendDurations: number[] = [];
let cursor = stats.ticks.cursor, sendCursor = stats.sends.cursor, windowStart = performance.now(), windowTicks = stats.ticks.count;
while (performance.now() - started < seconds * 1000) {
  await sleep(1000);
  const now = performance.now();
  ticksPerSecond.push(((stats.ticks.count - windowTicks) * 1000) / (now - windowStart));
  windowStart = now;
  windowTicks = stats.ticks.count;
  const m = process.memoryUsage();
  memory.push({ rss: m.rss, heap: m.heapUsed });
  cursor = stats.ticks.readSince(cursor, durations);
  sendCursor = stats.sends.readSince(sendCursor, sendDurations);
}
const elapsed = (performance.now() - started) / 1000;
gcObserver.disconnect();
slowTicks.attributeGc(gcPauses);
const gcMs = gcPauses.map((p) => p.ms).sort((a, b) => a - b);
durations.sort((a, b) => a - b);
sendDurations.sort((a, b) => a - b);
const cpu = process.cpuUsage(cpuBefore);
const bytesPerClientSecond = (server.clientBytes().total - bytesBefore) / (players + spectators) / elapsed;
const posingPlayers = players - (flags.rough ? Math.min(ROUGH_PLAYER_SEATS, players) : 0);
const posesPerPlayerSecond = posingPlayers > 0 ? (posesReceived - posesBefore) / posingPlayers / elapsed : 0;
const finite = room.sceneWorld.bodies.every((e) => e.body.q.every(Number.isFinite));
const minute = Math.min(60, Math.floor(memory.length / 2));
const meanHeap = (part: typeof memory) => part.reduce((a, b) => a + b.heap, 0) / Math.max(1, part.length);
const stepsTaken = Math.max(1, world.bodySteps - stepsBefore.taken);
const result = {
  players, spectators, seconds: elapsed,
  ticks: stats.ticks.count - ticksBefore, expectedTicks: Math.round(elapsed * TICK_RATE),
  tickMs: { p50: quantile(durations, 0.5), p99: quantile(durations, 0.99), max: durations[durations.length - 1] },
  overruns: stats.overruns - overrunsBefore,
  bodyStepsPerSecond: { taken: (world.bodySteps - stepsBefore.taken) / elapsed, putOff: (world.putOffSteps - stepsBefore.putOff) / elapsed, dropped: (world.droppedSteps - stepsBefore.dropped) / elapsed },
  /** The solver's iterations per step taken, the share of steps that ended unconverged, and the share cut at the tick's deadline (World's counts). */
  bodyStepSolves: {
    iterations: (world.bodyIterations - stepsBefore.iterations) / stepsTaken,
    unconvergedShare: (world.unconvergedSteps - stepsBefore.unconverged) / stepsTaken,
    cutShare: (world.cutSteps - stepsBefore.cut) / stepsTaken,
  },
  sendMs: { p50: quantile(sendDurations, 0.5), p99: quantile(sendDurations, 0.99), max: sendDurations[sendDurations.length - 1] },
  ticksPerSecond: { min: Math.min(...ticksPerSecond), windowsUnder55: ticksPerSecond.filter((t) => t < 55).length, windows: ticksPerSecond.length },
  bytesPerClientPerSecond: bytesPerClientSecond,
  /** Poses received a second from each player that sends them (the bots send 72). */
  posesPerPlayerPerSecond: posesPerPlayerSecond,
  botsNice,
  serverCpuPercentOfOneCore: (100 * (cpu.user + cpu.system)) / 1e6 / elapsed,
  rssMiB: memory[memory.length - 1].rss / 2 ** 20,
  heapMiB: { first: meanHeap(memory.slice(0, minute)) / 2 ** 20, last: meanHeap(memory.slice(-minute)) / 2 ** 20 },
  gc: { pauses: gcMs.length, major: gcPauses.filter((p) => p.major).length, totalMs: gcMs.reduce((a, b) => a + b, 0), maxMs: gcMs.length ? gcMs[gcMs.length - 1] : 0, over2Ms: gcMs.filter((ms) => ms > 2).length },
  /** The overruns' first 20: their parts (world step, its soft bodies' turns, the solver's steps, characters, snapshot) and the GC inside them, ms. */
  slowTicks: { first: slowTicks.slow.map((t) => ({ ms: t.ms, world: t.worldMs, bodies: t.bodiesMs, bodySteps: t.bodySteps, longestBody: t.longestBodyMs, longestBodyIterations: t.longestBodyIterations, characters: t.charactersMs, snapshot: t.snapshotMs, gc: t.gcMs, majorGc: t.majorGc })) },
  allFinite: finite,
  escapes: room.sceneWorld.escapes - escapesBefore,
  logLines: serverLog.length,
  faults: faults.length,
};
bots.kill("SIGTERM");
await server.close();
if (flags.json) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const f = (v: number, d = 2) => v.toFixed(d);
  process.stdout.write(`| players | spectators | seconds | ticks / expected | tick p50 ms | tick p99 ms | tick max ms | overruns | send p50 / p99 / max ms | body steps/s taken / put off / dropped | iterations a step / unconverged / cut by the budget | ticks/s min | 1 s windows < 55 ticks | bytes/client/s | poses/player/s | server CPU % | RSS MiB | heap MiB first/last | GC pauses (major) / total ms / max ms / over 2 ms | finite | escapes | log lines | faults |\n`);
  process.stdout.write(`|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n`);
  process.stdout.write(`| ${players} | ${spectators} | ${f(elapsed, 0)} | ${result.ticks} / ${result.expectedTicks} | ${f(result.tickMs.p50)} | ${f(result.tickMs.p99)} | ${f(result.tickMs.max)} | ${result.overruns} | ${f(result.sendMs.p50)} / ${f(result.sendMs.p99)} / ${f(result.sendMs.max)} | ${f(result.bodyStepsPerSecond.taken, 0)} / ${f(result.bodyStepsPerSecond.putOff, 1)} / ${f(result.bodyStepsPerSecond.dropped, 1)} | ${f(result.bodyStepSolves.iterations)} / ${f(100 * result.bodyStepSolves.unconvergedShare, 0)}% / ${f(100 * result.bodyStepSolves.cutShare, 0)}% | ${f(result.ticksPerSecond.min, 1)} | ${result.ticksPerSecond.windowsUnder55} / ${result.ticksPerSecond.windows} | ${f(bytesPerClientSecond, 0)} | ${f(posesPerPlayerSecond, 1)} | ${f(result.serverCpuPercentOfOneCore, 0)} | ${f(result.rssMiB, 0)} | ${f(result.heapMiB.first, 0)} / ${f(result.heapMiB.last, 0)} | ${result.gc.pauses} (${result.gc.major}) / ${f(result.gc.totalMs, 0)} / ${f(result.gc.maxMs)} / ${result.gc.over2Ms} | ${finite} | ${result.escapes} | ${result.logLines} | ${result.faults} |\n`);
  for (const t of result.slowTicks.first) {
    process.stdout.write(`slow tick: ${f(t.ms)} ms (world ${f(t.world)}, its soft bodies' turns ${f(t.bodies)}; ${t.bodySteps} solver steps, the longest ${f(t.longestBody)} in ${t.longestBodyIterations} iterations; characters ${f(t.characters)}, snapshot ${f(t.snapshot)}, GC inside ${f(t.gc)}${t.majorGc ? ", major" : ""})\n`);
  }
}
for (const fault of faults.slice(0, 5)) process.stderr.write(`fault: ${fault.slice(0, 2000)}\n`);
process.exit(0);
