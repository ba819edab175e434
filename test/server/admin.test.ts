// Admin actions with the token, and what a quiet room costs on the wire.

import { expect, it, vi } from "vitest";
import { decodeSnapshot, KICK_CLOSE_CODE } from "../../shared/net";
import { configurePlayground, playgroundConfig } from "../../server/room/playground-config";
import { ADMIN_TOKEN, joinClient, serverRoom, shownSurfacePoint, ticksPass, useTestServer, waitUntilAtRest, waitUntilShown } from "./helpers";

const server = useTestServer();
const within = { timeout: 20_000, interval: 20 };

it("admin actions need the token and do what they say", async () => {
  const admin = await joinClient(server, { create: true, options: { name: "Admin", role: "spectator", adminToken: ADMIN_TOKEN } });
  const viewer = await joinClient(server, { roomId: admin.room.roomId, options: { name: "Viewer", role: "spectator" } });
  const room = serverRoom(admin.room.roomId);
  try {
    await waitUntilShown(viewer);
    // Without the token: refused (the server says so), nothing changes.
    viewer.sendRaw("admin", { token: "wrong", action: "spectator-grabs", allowed: true });
    await vi.waitFor(() => expect(viewer.notices.some((n) => /wrong admin token/.test(n.message))).toBe(true), within);
    expect(room.state.spectatorGrabs).toBe(false);

    admin.sendRaw("admin", { token: "", action: "spectator-grabs", allowed: true }); // joined with the token
    await vi.waitFor(() => expect(room.state.spectatorGrabs).toBe(true), within);
    const grab = await viewer.grab("right", "spot", shownSurfacePoint(viewer, "spot", 0));
    expect(grab.ok).toBe(true);
    viewer.release("right");

    admin.sendRaw("admin", { token: ADMIN_TOKEN, action: "material", body: "spot", material: "rubber" });
    await vi.waitFor(() => expect(room.state.bodies.get("spot")!.material).toBe("rubber"), within);

    // Reset: a body moved away comes back to its spawn.
    const entity = room.sceneWorld.bodies.find((e) => e.id === "spot")!;
    entity.body.setState(entity.body.q.map((v, i) => (i === 3 ? v + 0.3 : v)), new Float64Array(entity.body.n));
    const c = new Float64Array(3);
    entity.body.centroid(c);
    expect(Math.abs(c[0] - entity.spawn[0])).toBeGreaterThan(0.2);
    admin.sendRaw("admin", { token: ADMIN_TOKEN, action: "reset" });
    await vi.waitFor(() => {
      entity.body.centroid(c);
      expect(Math.abs(c[0] - entity.spawn[0])).toBeLessThan(0.05);
    }, within);

    let leftWith = 0;
    viewer.room.onLeave((code: number) => (leftWith = code));
    admin.sendRaw("admin", { token: ADMIN_TOKEN, action: "kick", sessionId: viewer.sessionId });
    await vi.waitFor(() => {
      expect(leftWith).toBe(KICK_CLOSE_CODE);
      expect(room.state.players.has(viewer.sessionId)).toBe(false);
    }, within);
  } finally {
    await Promise.all([admin.stop(), viewer.stop()]);
  }
});

it("a room at rest sends no body data", async () => {
  // A room whose bodies can all come to rest: the playground without its fox, which walks for ever.
  const layout = playgroundConfig().layout;
  configurePlayground({ layout: { ...layout, characters: [] } });
  const a = await joinClient(server, { create: true, options: { role: "spectator" } }).finally(() => configurePlayground({ layout }));
  try {
    const room = serverRoom(a.room.roomId);
    // Count what is sent from the moment the room is at rest (snapshots carry their tick; one sent just before
    // may still be on its way).
    let restTick = Infinity, bodyBytes = 0, snapshots = 0;
    a.room.onMessage("snapshot", (bytes: Uint8Array) => {
      const snapshot = decodeSnapshot(bytes);
      if (snapshot.tick <= restTick) return;
      snapshots++;
      for (const b of snapshot.bodies) bodyBytes += 7 + 2 * b.q.length;
    });
    // Bodies drop, settle and fall asleep after the room opens, props come to rest.
    await waitUntilAtRest(room);
    restTick = room.sceneWorld.tick;
    await ticksPass(room, 120); // listen for 2 s of the room's time
    // Nothing moves, so nothing is sent (a snapshot with no content is not sent at all).
    expect(bodyBytes).toBe(0);
    expect(snapshots).toBeLessThanOrEqual(2);
  } finally {
    await a.stop();
  }
});

it("the admin figures carry each connection's round-trip time, measured with WebSocket pings", async () => {
  const client = await joinClient(server, { create: true, options: { name: "Measured", role: "player" } });
  try {
    const url = `http://127.0.0.1:${server.server.port}/admin/stats`;
    type Figures = { rooms: { roomId: string; players: { sessionId: string; rttMs: number | null }[] }[] };
    await vi.waitFor(async () => {
      const figures = (await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.json())) as Figures;
      const seat = figures.rooms.find((r) => r.roomId === client.room.roomId)?.players.find((p) => p.sessionId === client.sessionId);
      expect(seat, "the connection is listed").toBeDefined();
      // On loopback: measured (not null), and not seconds.
      expect(seat!.rttMs).not.toBeNull();
      expect(seat!.rttMs!).toBeGreaterThanOrEqual(0);
      expect(seat!.rttMs!).toBeLessThan(1000);
    }, { timeout: 20_000, interval: 250 });
  } finally {
    await client.stop();
  }
});

it("the admin figures need the token, and an address that keeps guessing is told to wait", async () => {
  const url = `http://127.0.0.1:${server.server.port}/admin/stats`;
  const right = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(right.status).toBe(200);
  const figures = (await right.json()) as { rooms: { roomId: string; tickMsP99: number }[] };
  expect(figures.rooms.length).toBeGreaterThan(0);
  expect(await fetch(url).then((r) => r.status), "no token").toBe(401);
  for (let i = 1; i < 10; i++) expect(await fetch(url, { headers: { authorization: "Bearer guess" } }).then((r) => r.status)).toBe(401);
  const blocked = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(blocked.status, "after 10 wrong tokens in a minute").toBe(429);
  expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
});
