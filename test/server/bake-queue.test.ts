// Uploads behind other uploads, from outside (POST /meshes of a real server, the room state a raw SDK client sees):
// the 202 never waits for the bakes queued before it, a waiting upload's placeholder shows its place in line and an
// estimate, every upload lands however long the machine takes (no bake fails on time; only work stops one), and the
// same file again lands at once, even while other bakes run.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { matchMaker } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { afterEach, expect, it, vi } from "vitest";
import { ROOM_NAME } from "../../shared/net";
import { Baker } from "../../server/uploads/baker";
import { ADMIN_TOKEN, serverRoom, useTestServer, type TestServer } from "./helpers";
import { upload } from "./upload-helpers";

const MESHES = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
// Bakes take seconds each, many more on a loaded machine; the rest is waiting for conditions.
const BAKED = { timeout: 240_000, interval: 50 };

const server = useTestServer({ uploadRate: { perMinute: 600, burst: 100 } });

type SeenUpload = { stage: string; progress: number; ahead: number; secondsLeft: number };
type SpectatorState = { bodies: Map<string, unknown>; uploads: Map<string, SeenUpload> };

/** A room with a raw SDK spectator in it (a room with nobody in it closes) that records everything it is shown. */
async function watchedRoom(s: TestServer) {
  const roomId = (await matchMaker.createRoom(ROOM_NAME, {})).roomId;
  const spectator: Room = await new Client(s.endpoint).joinById(roomId, { role: "spectator", name: "Watcher" });
  const seen = new Map<string, SeenUpload[]>(), notices: string[] = [];
  spectator.onStateChange((state: SpectatorState) => {
    for (const [id, u] of state.uploads?.entries() ?? []) {
      const list = seen.get(id) ?? [];
      list.push({ stage: u.stage, progress: u.progress, ahead: u.ahead, secondsLeft: u.secondsLeft });
      seen.set(id, list);
    }
  });
  spectator.onMessage("notice", (message: { message: string }) => notices.push(message.message));
  return { roomId, spectator, seen, notices };
}

/**
 * A shared mesh with one vertex moved a little: a file no run has baked before, so its bake really runs. (Parsers
 * keep single precision: a move of a millionth would find an earlier run's bake.)
 */
async function freshMesh(name: string): Promise<string> {
  const text = await readFile(path.join(MESHES, name), "utf8");
  const jitter = () => 1e-4 * (1 + 9 * Math.random());
  return text.replace(/^v (\S+) (\S+)/m, (_, x: string, y: string) => `v ${Number(x) + jitter()} ${Number(y) + jitter()}`);
}

/** A 12-triangle box of a size no run has used before. */
function freshBox(): string {
  const [x, y, z] = [1, 0.6 + 0.2 * Math.random(), 0.4 + 0.2 * Math.random()];
  const corners = [[0, 0, 0], [x, 0, 0], [x, y, 0], [0, y, 0], [0, 0, z], [x, 0, z], [x, y, z], [0, y, z]];
  const faces = [[1, 3, 2], [1, 4, 3], [5, 6, 7], [5, 7, 8], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 4, 8], [3, 8, 7], [4, 1, 5], [4, 5, 8]];
  return [...corners.map((c) => `v ${c.join(" ")}`), ...faces.map((f) => `f ${f.join(" ")}`)].join("\n") + "\n";
}

function post(roomId: string, file: string | Uint8Array, name: string) {
  return upload(server, `token=${ADMIN_TOKEN}&room=${roomId}&name=${name}`, file, { "Content-Type": "model/obj" });
}

afterEach(() => {
  vi.useRealTimers();
});

it("queued uploads: each 202 comes before the bakes ahead of it finish, placeholders show their place in line and an estimate, and all land", async () => {
  const { roomId, spectator, seen, notices } = await watchedRoom(server);
  try {
    // A mesh of some size first (its bake runs for seconds), then two small boxes (read in a moment) behind it.
    const files = [await freshMesh("cow.obj"), freshBox(), freshBox()];
    const room = serverRoom(roomId);
    const ids: string[] = [];
    for (const [i, file] of files.entries()) {
      const answer = await post(roomId, file, `queued-${i}`);
      expect(answer.status, answer.body.error).toBe(202);
      ids.push(answer.body.id!);
      // The answer did not wait for the first upload's bake: it is still baking (or about to), not in the room.
      expect(room.state.bodies.has(ids[0])).toBe(false);
      expect(["queued", "sampling", "fields", "evaluating", "cubature"]).toContain(room.state.uploads.get(ids[0])?.stage);
    }
    // Every one lands; none fails.
    await vi.waitFor(() => {
      for (const id of ids) expect(room.state.bodies.has(id)).toBe(true);
    }, BAKED);
    expect(notices.filter((n) => n.includes("could not be added"))).toEqual([]);
    // The third waited with two bakes ahead of it, then one; the second with one. Once the first bake was timed,
    // the waiting one was told an estimate.
    const aheadOf = (id: string) => new Set(seen.get(id)?.map((u) => u.ahead));
    expect(aheadOf(ids[1]).has(1)).toBe(true);
    expect(aheadOf(ids[2]).has(2)).toBe(true);
    expect(aheadOf(ids[2]).has(1)).toBe(true);
    expect(seen.get(ids[2])!.some((u) => u.stage === "queued" && u.ahead >= 1 && u.secondsLeft > 0)).toBe(true);
    // A waiting upload is "queued"; once its own bake runs it has nobody ahead.
    for (const id of ids) {
      for (const u of seen.get(id) ?? []) if (u.ahead > 0) expect(u.stage).toBe("queued");
    }
  } finally {
    await spectator.leave();
  }
}, 600_000);

it("a bake on a machine so busy that minutes pass still lands: no bake fails for the time it takes", async () => {
  const { roomId, spectator, notices } = await watchedRoom(server);
  try {
    const room = serverRoom(roomId);
    const answer = await post(roomId, await freshMesh("spot.obj"), "slow");
    expect(answer.status, answer.body.error).toBe(202);
    const id = answer.body.id!;
    // While it bakes, the server's clock says ten minutes have passed (what a starved bake thread sees). The room's
    // own clock was read when the room was made, so only what reads the time from now on sees the jump.
    await vi.waitFor(() => expect(room.state.uploads.get(id)?.stage).toMatch(/sampling|fields|evaluating|cubature/), BAKED);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 10 * 60_000);
    await vi.waitFor(() => expect(room.state.bodies.has(id) || notices.some((n) => n.includes("could not be added"))).toBe(true), BAKED);
    expect(notices.filter((n) => n.includes("could not be added"))).toEqual([]);
    expect(room.state.bodies.has(id)).toBe(true);
  } finally {
    vi.useRealTimers();
    await spectator.leave();
  }
}, 600_000);

it("the same file again lands from the cache at once, even while another upload is baking", async () => {
  const { roomId, spectator, seen, notices } = await watchedRoom(server);
  try {
    const room = serverRoom(roomId);
    const first = await freshMesh("cow.obj");
    const original = await post(roomId, first, "original");
    expect(original.status, original.body.error).toBe(202);
    await vi.waitFor(() => expect(room.state.bodies.has(original.body.id!)).toBe(true), BAKED);

    const other = await post(roomId, await freshMesh("suzanne.obj"), "other");
    expect(other.status, other.body.error).toBe(202);
    const again = await post(roomId, first, "again");
    expect(again.status, again.body.error).toBe(202);
    expect(again.body.hash).toBe(original.body.hash);
    // It lands while the other upload, posted before it, is still baking: it never queued behind that bake.
    await vi.waitFor(() => {
      expect(room.state.bodies.has(again.body.id!)).toBe(true);
    }, BAKED);
    expect(room.state.bodies.has(other.body.id!)).toBe(false);
    expect(room.state.uploads.has(other.body.id!)).toBe(true);
    // It was never baked: no bake stage ever showed, and the server says where it came from.
    for (const u of seen.get(again.body.id!) ?? []) expect(u.stage).toBe("queued");
    await vi.waitFor(() => expect(server.logs.some((line) => line.startsWith(`upload ${again.body.id} `) && line.includes("(from the cache)"))).toBe(true), BAKED);
    await vi.waitFor(() => expect(room.state.bodies.has(other.body.id!)).toBe(true), BAKED);
    expect(notices.filter((n) => n.includes("could not be added"))).toEqual([]);
  } finally {
    await spectator.leave();
  }
}, 600_000);

it("only work stops a bake: one that uses more CPU time than its limit is stopped, saying so", async () => {
  const baker = new Baker({ weights: "eigen", providerKey: "eigen-cpu-limit-test", fitCubature: true, cpuLimitSeconds: 0.5 });
  try {
    const ticket = baker.bake(new TextEncoder().encode(await freshMesh("spot.obj")), "obj", 0.25, () => undefined);
    await expect(ticket.parsed).resolves.toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{32}$/) });
    await expect(ticket.baked).rejects.toThrow(/computing time \(the limit is 0\.5 s\)/);
  } finally {
    await baker.close();
  }
}, 300_000);
