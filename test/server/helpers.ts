// A real Pliant server on a loopback port for tests, and helpers to drive PliantRoomClients.

import { matchMaker } from "@colyseus/core";
import { afterAll, beforeAll, expect, vi } from "vitest";
import { startServer, type RunningServer, type ServerSettings } from "../../server/app";
import type { PlaygroundRoom } from "../../server/room/playground-room";
import type { CharacterBody } from "../../shared/rig";
import { PARKED } from "../../shared/scene";
import { PliantRoomClient, ROOM_NAME, type JoinSettings } from "../../shared/net";

export const ADMIN_TOKEN = "test-admin-token";

export interface TestServer {
  server: RunningServer;
  endpoint: string;
  logs: string[];
}

/**
 * A server as `npm start` makes it, except that one address may make any number of join requests: every test
 * client comes from 127.0.0.1 (open-network.test.ts checks the limit with the defaults).
 */
export async function startTestServer(settings: Partial<ServerSettings> = {}): Promise<TestServer> {
  const logs: string[] = [];
  const server = await startServer({
    port: 0, host: "127.0.0.1", adminToken: ADMIN_TOKEN, log: (line) => logs.push(line),
    matchmakeLimits: { requestsPerAddress: Number.POSITIVE_INFINITY }, ...settings,
  });
  return { server, endpoint: `ws://127.0.0.1:${server.port}`, logs };
}

/** A server for the calling test file: started before its tests, closed after them. */
export function useTestServer(settings: Partial<ServerSettings> = {}): TestServer {
  const holder = { logs: [] as string[] } as unknown as TestServer;
  beforeAll(async () => {
    Object.assign(holder, await startTestServer(settings));
  });
  afterAll(async () => {
    await holder.server?.close();
  });
  return holder;
}

/** The server-side room instance (same process). */
export function serverRoom(roomId: string): PlaygroundRoom {
  const room = matchMaker.getLocalRoomById(roomId) as PlaygroundRoom | undefined;
  if (!room) throw new Error(`no local room ${roomId}`);
  return room;
}

/**
 * Joins and keeps the client's frame loop running (as a browser's render loop would). `create` gives the test a
 * fresh room of its own, made in this process as the server makes its public room (clients cannot make rooms).
 */
export async function joinClient(server: TestServer, settings: Partial<JoinSettings> = {}): Promise<PliantRoomClient & { stop(options?: { keepConnection?: boolean }): Promise<void> }> {
  if (settings.create) {
    const roomId = (await matchMaker.createRoom(ROOM_NAME, {})).roomId;
    // An empty room closes after 1 s; under simulated time a loaded machine can let that pass before the join's
    // requests get through, so the test's own room waits longer for its first client.
    (matchMaker.getLocalRoomById(roomId) as unknown as { resetAutoDisposeTimeout(seconds: number): void } | undefined)?.resetAutoDisposeTimeout(30);
    settings = { ...settings, create: false, roomId };
  }
  const client = await PliantRoomClient.join({ endpoint: server.endpoint, ...settings });
  const timer = setInterval(() => client.update(), 8);
  return Object.assign(client, {
    /** Stops the frame loop and leaves; keepConnection: stops only the frames (a frozen page with its socket open). */
    stop: async (options: { keepConnection?: boolean } = {}) => {
      clearInterval(timer);
      if (!options.keepConnection) await client.leave();
    },
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the client shows every body: its first snapshot (the full one a joiner gets) has arrived and the
 * frame loop has put it on screen. What a joiner waits for before it looks at or grabs anything.
 */
export async function waitUntilShown(client: PliantRoomClient, timeoutMs = 20_000): Promise<void> {
  await vi.waitFor(() => {
    expect(client.bodies.size).toBeGreaterThan(0);
    for (const body of client.bodies.values()) {
      expect(body.snapshots.length, `snapshots of ${body.id}`).toBeGreaterThan(0);
      expect(body.displayQ.some((v) => v !== 0), `${body.id} shown`).toBe(true);
    }
  }, { timeout: timeoutMs, interval: 20 });
}

/** Resolves when the server has answered a ping: everything it sent the client before has arrived. */
export async function roundTrip(client: PliantRoomClient, timeoutMs = 20_000): Promise<void> {
  let answered = false, failure: unknown;
  client.roundTrip().then(() => (answered = true), (error) => (failure = error));
  await vi.waitFor(() => {
    if (failure !== undefined) throw failure;
    expect(answered, "an answer to a ping").toBe(true);
  }, { timeout: timeoutMs, interval: 5 });
}

/** Waits until the client shows the latest server state it has of a body (interpolation has caught up with it). */
export async function waitUntilShowsLatest(client: PliantRoomClient, bodyId: string, timeoutMs = 20_000): Promise<void> {
  await vi.waitFor(() => {
    const body = client.bodies.get(bodyId)!, latest = client.serverQ(bodyId);
    expect(latest, `a snapshot of ${bodyId}`).toBeDefined();
    expect(body.displayQ.every((v, k) => v === latest![k]), `${bodyId} shows its latest snapshot`).toBe(true);
  }, { timeout: timeoutMs, interval: 20 });
}

/**
 * Waits until the room's simulation has run `ticks` more ticks: simulated time, which a loaded machine runs late
 * but does not skip.
 */
export async function ticksPass(room: PlaygroundRoom, ticks: number, timeoutMs = 30_000): Promise<void> {
  const until = room.sceneWorld.tick + ticks;
  await vi.waitFor(() => expect(room.sceneWorld.tick).toBeGreaterThanOrEqual(until), { timeout: timeoutMs, interval: 10 });
}

/** Waits until every soft body of the room is asleep and every prop at rest (a new room's bodies drop and settle first). */
export async function waitUntilAtRest(room: PlaygroundRoom, timeoutMs = 30_000): Promise<void> {
  await vi.waitFor(() => {
    const world = room.sceneWorld;
    world.bodies.forEach((entity, b) => expect(world.isAsleep(b), `${entity.id} asleep`).toBe(true));
    world.props.forEach((prop, p) => expect(prop.body.isSleeping(), `prop ${p} at rest`).toBe(true));
  }, { timeout: timeoutMs, interval: 50 });
}

/** World position of surface sample i of a body as the client shows it now. */
export function shownSurfacePoint(client: PliantRoomClient, bodyId: string, i: number): [number, number, number] {
  const body = client.bodies.get(bodyId)!;
  const s = body.body.subspace, out = new Float64Array(3);
  body.body.positionAt(body.displayQ, s.surfaceRows, s.surfaceRest, i, out, 0);
  return [out[0], out[1], out[2]];
}

/** World position of surface sample i of a body as the server has it now. */
export function serverSurfacePoint(room: PlaygroundRoom, bodyId: string, i: number): Float64Array {
  const entity = room.sceneWorld.bodies.find((e) => e.id === bodyId)!, out = new Float64Array(3);
  entity.body.pointPosition(entity.subspace.surfaceRows, entity.subspace.surfaceRest, i, out, 0);
  return out;
}

/** The surface sample highest up as the client shows it. */
export function topSample(client: PliantRoomClient, bodyId: string): number {
  const s = client.bodies.get(bodyId)!.body.subspace;
  let best = 0, bestY = -Infinity;
  for (let i = 0; i < s.surfaceCount; i++) {
    const y = shownSurfacePoint(client, bodyId, i)[1];
    if (y > bestY) { bestY = y; best = i; }
  }
  return best;
}

/** Shown centroid of the body's surface samples. */
export function shownCentre(client: PliantRoomClient, bodyId: string): [number, number, number] {
  const s = client.bodies.get(bodyId)!.body.subspace;
  const c: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < s.surfaceCount; i++) {
    const p = shownSurfacePoint(client, bodyId, i);
    c[0] += p[0] / s.surfaceCount; c[1] += p[1] / s.surfaceCount; c[2] += p[2] / s.surfaceCount;
  }
  return c;
}

/** Pulls a held grab from `from` by `delta` over `seconds`, sending moves at 60 Hz. */
export async function pull(client: PliantRoomClient, hand: "left" | "right" | "pointer", from: number[], delta: number[], seconds: number): Promise<void> {
  const frames = Math.round(seconds * 60);
  for (let f = 1; f <= frames; f++) {
    const t = f / frames;
    client.moveGrab(hand, [from[0] + t * delta[0], from[1] + t * delta[1], from[2] + t * delta[2]]);
    await sleep(1000 / 60);
  }
}

/** A surface sample on the fox's side, halfway up its body and along it: where a finger pokes a flank. */
export function flankSample(character: { subspace: { surfaceRest: Float64Array } }): number {
  const rest = character.subspace.surfaceRest;
  let best = 0, bestScore = -Infinity;
  for (let i = 0; i < rest.length / 3; i++) {
    // Far to the side (x), near mid-height and mid-length of the body.
    const score = Math.abs(rest[3 * i]) - Math.abs(rest[3 * i + 1]) - Math.abs(rest[3 * i + 2]);
    if (score > bestScore) { bestScore = score; best = i; }
  }
  return best;
}

/**
 * A fingertip (a 1.5 cm sphere, as a hand-tracked index finger pokes) pressed 1 cm into a character's flank, following
 * it, `presses` times two ticks apart (`press` sends the poke). The press lags its motion by a tick or two (the
 * message's way in): each press's dent is the skin near the fingertip where the room has it, pushed away from it
 * beyond where the rig puts it (m). The fingertip is lifted after.
 */
export async function pressIntoFlank(room: PlaygroundRoom, character: CharacterBody, press: (centre: [number, number, number], radius: number) => void, presses = 30): Promise<number[]> {
  const motion = character.motion, n = character.body.n, m = n / 3, rows = character.subspace.surfaceRows;
  const sample = flankSample(character), world = new Float64Array(3), o = new Float64Array(3);
  const dents: number[] = [];
  for (let k = 0; k < presses; k++) {
    const p = motion.posedSurface;
    motion.toWorld(p[3 * sample], p[3 * sample + 1], p[3 * sample + 2], world);
    // Into the body: towards its centre line (the frame's origin, at the same height).
    motion.toWorld(0, p[3 * sample + 1], 0, o);
    const inward = [o[0] - world[0], 0, o[2] - world[2]], length = Math.hypot(inward[0], inward[2]);
    // The fingertip's centre 5 mm outside the skin: its 1.5 cm sphere reaches 1 cm in.
    press([world[0] - (0.005 * inward[0]) / length, world[1], world[2] - (0.005 * inward[2]) / length], 0.015);
    await ticksPass(room, 2);
    const tip = room.sceneWorld.pokes.find((poke) => poke.center[0] < PARKED);
    if (!tip) continue;
    const q = character.body.q, c = Math.cos(motion.frameYaw), s = Math.sin(motion.frameYaw);
    let deepest = 0;
    for (let i = 0; i < p.length / 3; i++) {
      motion.toWorld(p[3 * i], p[3 * i + 1], p[3 * i + 2], world);
      const rx = world[0] - tip.center[0], ry = world[1] - tip.center[1], rz = world[2] - tip.center[2], d = Math.hypot(rx, ry, rz);
      if (d > 0.03 || d === 0) continue;
      let ux = 0, uy = 0, uz = 0;
      for (let j = 0; j < m; j++) { const r = rows[i * m + j]; ux += r * q[j]; uy += r * q[m + j]; uz += r * q[2 * m + j]; }
      deepest = Math.max(deepest, ((c * ux + s * uz) * rx + uy * ry + (-s * ux + c * uz) * rz) / d);
    }
    dents.push(deepest);
  }
  press([0, 0, 0], 0);
  return dents;
}
