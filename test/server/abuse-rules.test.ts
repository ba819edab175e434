// The abuse rules exactly as docs/protocol.md states them, tried with protocol-level messages: drops counted over a
// sliding 10 s window, a malformed frame dropped (not fatal), the join's admin token honoured, and spectators'
// grabs let go when the admin turns spectator grabs off.

import { Client } from "@colyseus/sdk";
import { describe, expect, it, vi } from "vitest";
import { KICK_CLOSE_CODE, LIMITS, type GrabHeldMessage, type GrabResultMessage } from "../../shared/net";
import { PARKED } from "../../shared/scene";
import { ADMIN_TOKEN, joinClient, pull, roundTrip, serverRoom, shownSurfacePoint, ticksPass, topSample, useTestServer, waitUntilShown } from "./helpers";

const server = useTestServer();
const INVALID = ["grab-move", { hand: "tail", target: [0, 1, 0], seq: 1 }] as const;

/** The server's record of a client's grab (its latest target), or undefined when none is held. */
function heldGrab(room: ReturnType<typeof serverRoom>, sessionId: string, hand: string): { target: Float64Array } | undefined {
  return room.roomGrabs.onBodies.get(`${sessionId}:${hand}`);
}

describe("abuse rules as documented", () => {
  it("counts dropped messages over a sliding window: two bursts straddling a 10 s boundary get the client kicked", async () => {
    const hostile = await joinClient(server, { create: true, options: { name: "Bursty", role: "player" } });
    const joined = Date.now();
    let closedWith = 0;
    hostile.room.onLeave((code: number) => (closedWith = code));
    const burst = Math.ceil(0.55 * LIMITS.kickAfterDropped);
    // The first burst late in what a fixed window would be its first 10 s, the second early in its next.
    await vi.waitFor(() => expect(Date.now() - joined).toBeGreaterThan(6_000), { timeout: 20_000, interval: 50 });
    for (let i = 0; i < burst; i++) hostile.sendRaw(...INVALID);
    await roundTrip(hostile);
    expect(closedWith).toBe(0);
    await vi.waitFor(() => expect(Date.now() - joined).toBeGreaterThan(11_000), { timeout: 20_000, interval: 50 });
    for (let i = 0; i < burst && closedWith === 0; i++) hostile.sendRaw(...INVALID);
    await vi.waitFor(() => expect(closedWith).toBe(KICK_CLOSE_CODE), { timeout: 20_000, interval: 20 });
    await hostile.stop();
  });

  it("drops a malformed frame (undecodable payload) with a notice, and the connection stays open", async () => {
    const client = await joinClient(server, { create: true, options: { name: "Garbled", role: "spectator" } });
    let closedWith = 0;
    client.room.onLeave((code: number) => (closedWith = code));
    // ROOM_DATA (13), the type "pose" as a msgpack fixstr, then a 2-element array cut after its first element.
    const frame = Uint8Array.from([13, 0xa4, ..."pose".split("").map((c) => c.charCodeAt(0)), 0x92, 0x01]);
    (client.room.connection as unknown as { send(data: Uint8Array): void }).send(frame);
    await vi.waitFor(() => expect(client.notices.some((n) => n.kind === "rejected" && /malformed/.test(n.message))).toBe(true), { timeout: 10_000, interval: 20 });
    await roundTrip(client);
    expect(closedWith).toBe(0);
    expect(serverRoom(client.room.roomId).state.players.has(client.sessionId)).toBe(true);
    await client.stop();
  });

  it("honours the join's admin token (no token in the message), and turning spectator grabs off lets go of theirs", async () => {
    const admin = await joinClient(server, { create: true, options: { name: "Operator", role: "spectator", adminToken: ADMIN_TOKEN } });
    const visitor = await joinClient(server, { roomId: admin.room.roomId, options: { name: "Visitor", role: "spectator" } });
    const room = serverRoom(admin.room.roomId);
    try {
      await waitUntilShown(visitor);
      admin.sendRaw("admin", { action: "spectator-grabs", allowed: true });
      await vi.waitFor(() => expect(room.state.spectatorGrabs).toBe(true), { timeout: 10_000, interval: 20 });
      const start = shownSurfacePoint(visitor, "spot", topSample(visitor, "spot"));
      expect((await visitor.grab("right", "spot", start)).ok).toBe(true);
      await vi.waitFor(() => expect(room.state.grabs.has(`${visitor.sessionId}:right`)).toBe(true), { timeout: 10_000, interval: 20 });
      // Its other hand's fingertip, refreshed as a page does, until after the admin's change.
      const fingertipPlaced = () => room.sceneWorld.pokes.some((poke) => poke.center[0] < PARKED);
      const refresh = setInterval(() => visitor.poke("left", [0, 1.6, 0], 0.015), 20);
      try {
        await vi.waitFor(() => expect(fingertipPlaced()).toBe(true), { timeout: 10_000, interval: 20 });
        admin.sendRaw("admin", { action: "spectator-grabs", allowed: false });
        await roundTrip(admin);
        // Ended by the change itself: refreshed until just before it, the fingertip would otherwise stay its hold.
        expect(fingertipPlaced(), "the spectator's fingertip ended with spectator grabs").toBe(false);
      } finally {
        clearInterval(refresh);
      }
      await vi.waitFor(() => {
        expect(room.state.spectatorGrabs).toBe(false);
        expect(room.state.grabs.size).toBe(0);
      }, { timeout: 10_000, interval: 20 });
      // The visitor was told, and its page let go too.
      await vi.waitFor(() => expect(visitor.heldBody("right")).toBeUndefined(), { timeout: 10_000, interval: 20 });
      // Someone who joined without the token still needs one.
      const stranger = await joinClient(server, { roomId: admin.room.roomId, options: { name: "Stranger", role: "spectator" } });
      stranger.sendRaw("admin", { action: "reset" });
      await vi.waitFor(() => expect(stranger.notices.some((n) => /need a token/.test(n.message))).toBe(true), { timeout: 10_000, interval: 20 });
      await stranger.stop();
    } finally {
      await Promise.all([admin.stop(), visitor.stop()]);
    }
  });

  it("logs a refused join or an oversized frame in one line, throttled, without a stack trace", async () => {
    const endpoint = server.endpoint, before = server.logs.length;
    for (let i = 0; i < 20; i++) {
      await expect(new Client(endpoint).join("playground", { role: "king" })).rejects.toThrow(/role must be/);
    }
    for (let i = 0; i < 5; i++) {
      const room = await new Client(endpoint).join("playground", { role: "spectator" });
      const closed = new Promise((resolve) => room.onLeave(resolve));
      (room.connection as unknown as { send(data: Uint8Array): void }).send(new Uint8Array(LIMITS.maxPayload + 1));
      await closed;
    }
    await vi.waitFor(() => expect(server.logs.slice(before).some((l) => /bad frame: Max payload/.test(l))).toBe(true), { timeout: 10_000, interval: 20 });
    const lines = server.logs.slice(before);
    expect(lines.filter((l) => /refused a join: role must be/.test(l)).length).toBeGreaterThanOrEqual(1);
    expect(lines.filter((l) => /refused a join/.test(l)).length).toBeLessThan(10);
    expect(lines.filter((l) => /bad frame/.test(l)).length).toBeLessThan(5);
    expect(lines.some((l) => l.includes("\n") || /^\s+at /m.test(l))).toBe(false);
  });

  it("limits grab starts to 10 a second per client, answering the extra ones with a refusal", async () => {
    const churner = await joinClient(server, { create: true, options: { name: "Churner", role: "player" } });
    const room = serverRoom(churner.room.roomId);
    try {
      await waitUntilShown(churner);
      const refusals: string[] = [];
      churner.room.onMessage("grab-result", (result: { ok: boolean; reason?: string }) => {
        if (!result.ok && result.reason) refusals.push(result.reason);
      });
      const point = shownSurfacePoint(churner, "spot", topSample(churner, "spot"));
      let seq = 1_000;
      for (let i = 0; i < 30; i++) {
        churner.sendRaw("grab-start", { hand: "left", body: "spot", point, seq: seq++ });
        churner.sendRaw("grab-end", { hand: "left", seq: seq++ });
      }
      await roundTrip(churner);
      await vi.waitFor(() => expect(refusals.filter((r) => /grab starts a second/.test(r)).length).toBeGreaterThanOrEqual(30 - LIMITS.grabStartsPerSecond - 2), { timeout: 10_000, interval: 20 });
      expect(room.state.players.has(churner.sessionId)).toBe(true);
    } finally {
      await churner.stop();
    }
  });

  it("tells the others of a grab in a small state patch; only the grabber is sent the samples it holds", async () => {
    const grabber = await joinClient(server, { create: true, options: { name: "Grabber", role: "player" } });
    const watcher = await joinClient(server, { roomId: grabber.room.roomId, options: { name: "Watcher", role: "spectator" } });
    const room = serverRoom(grabber.room.roomId);
    try {
      await Promise.all([waitUntilShown(grabber), waitUntilShown(watcher)]);
      // Count the state-patch bytes the watcher's socket receives (protocol code 15 in the frame's low 5 bits).
      let patchBytes = 0;
      const socket = (watcher.room.connection as unknown as { transport: { ws: { addEventListener(type: "message", f: (e: { data: ArrayBuffer | Uint8Array }) => void): void } } }).transport.ws;
      socket.addEventListener("message", (event) => {
        const bytes = event.data instanceof ArrayBuffer ? new Uint8Array(event.data) : event.data;
        if ((bytes[0] & 0x1f) === 15) patchBytes += bytes.byteLength;
      });
      const results: GrabResultMessage[] = [];
      grabber.room.onMessage("grab-result", (result: GrabResultMessage) => results.push(result));
      const point = shownSurfacePoint(grabber, "spot", topSample(grabber, "spot"));
      const cycles = 5;
      let seq = 1;
      for (let i = 0; i < cycles; i++) {
        grabber.sendRaw("grab-start", { hand: "left", body: "spot", point, seq: seq++ });
        await vi.waitFor(() => expect(watcher.room.state.grabs.size).toBe(1), { timeout: 10_000, interval: 10 });
        grabber.sendRaw("grab-end", { hand: "left", seq: seq++ });
        await vi.waitFor(() => expect(watcher.room.state.grabs.size).toBe(0), { timeout: 10_000, interval: 10 });
      }
      // A grab's entry (slot, body, owner, hand, start point) comes to about 60 bytes; its 12 samples and 36 offsets
      // would add over 200.
      console.info(`state patch per grab: ${(patchBytes / cycles).toFixed(0)} bytes`);
      expect(patchBytes / cycles, "state-patch bytes per grab start and end").toBeLessThan(150);
      await vi.waitFor(() => expect(results.filter((r) => r.ok)).toHaveLength(cycles), { timeout: 10_000, interval: 10 });
      const held = results[0];
      expect(held.point).toEqual(point);
      expect(held.samples!.length).toBeGreaterThan(0);
      expect(held.offsets).toHaveLength(3 * held.samples!.length);
      expect(room.state.players.has(grabber.sessionId)).toBe(true);
    } finally {
      await Promise.all([grabber.stop(), watcher.stop()]);
    }
  });

  it("tells the people holding the same body, and nobody else, the material each other's grabs hold", async () => {
    const a = await joinClient(server, { create: true, options: { name: "A", role: "player" } });
    const b = await joinClient(server, { roomId: a.room.roomId, options: { name: "B", role: "player" } });
    const watcher = await joinClient(server, { roomId: a.room.roomId, options: { name: "Watcher", role: "spectator" } });
    try {
      await Promise.all([waitUntilShown(a), waitUntilShown(b), waitUntilShown(watcher)]);
      const told = new Map<string, GrabHeldMessage[]>(), results = new Map<string, GrabResultMessage[]>();
      for (const [name, client] of [["a", a], ["b", b], ["watcher", watcher]] as const) {
        told.set(name, []);
        results.set(name, []);
        client.room.onMessage("grab-held", (message: GrabHeldMessage) => told.get(name)!.push(message));
        client.room.onMessage("grab-result", (message: GrabResultMessage) => results.get(name)!.push(message));
      }
      const top = shownSurfacePoint(a, "spot", topSample(a, "spot"));
      a.sendRaw("grab-start", { hand: "left", body: "spot", point: top, seq: 1 });
      await vi.waitFor(() => expect(results.get("a")!.filter((r) => r.ok)).toHaveLength(1), { timeout: 10_000, interval: 10 });
      // B takes hold of the same body elsewhere: B hears of A's grab, A of B's.
      const side = shownSurfacePoint(b, "spot", 0);
      b.sendRaw("grab-start", { hand: "right", body: "spot", point: side, seq: 1 });
      await vi.waitFor(() => {
        expect(results.get("b")!.filter((r) => r.ok)).toHaveLength(1);
        expect(told.get("a")).toHaveLength(1);
        expect(told.get("b")).toHaveLength(1);
      }, { timeout: 10_000, interval: 10 });
      const [aHeld] = results.get("a")!, [bHeld] = results.get("b")!;
      expect(told.get("b")![0]).toEqual({ key: `${a.room.sessionId}:left`, body: "spot", samples: aHeld.samples, offsets: aHeld.offsets });
      expect(told.get("a")![0]).toEqual({ key: `${b.room.sessionId}:right`, body: "spot", samples: bHeld.samples, offsets: bHeld.offsets });
      // A grab on another body concerns nobody else; the spectator, who holds nothing, never hears of any.
      a.sendRaw("grab-start", { hand: "right", body: "dough-ball", point: shownSurfacePoint(a, "dough-ball", topSample(a, "dough-ball")), seq: 2 });
      await vi.waitFor(() => expect(results.get("a")!.filter((r) => r.ok)).toHaveLength(2), { timeout: 10_000, interval: 10 });
      await ticksPass(serverRoom(a.room.roomId), 10);
      expect(told.get("b")).toHaveLength(1);
      expect(told.get("watcher")).toHaveLength(0);
    } finally {
      await Promise.all([a.stop(), b.stop(), watcher.stop()]);
    }
  });

  it("follows a client's frame numbers across the wrap from 2^31 - 1 to 0", async () => {
    const client = await joinClient(server, { create: true, options: { name: "Old timer", role: "player" } });
    const room = serverRoom(client.room.roomId);
    const held = () => heldGrab(room, client.sessionId, "left");
    try {
      await waitUntilShown(client);
      const point = shownSurfacePoint(client, "spot", topSample(client, "spot"));
      let seq = 2 ** 31 - 3;
      client.sendRaw("grab-start", { hand: "left", body: "spot", point, seq });
      await vi.waitFor(() => expect(held()).toBeDefined(), { timeout: 10_000, interval: 20 });
      // Moves at 2^31 - 2, 2^31 - 1, then 0, 1, ... rising 1 cm a frame.
      let target: number[] = point;
      for (let i = 1; i <= 8; i++) {
        seq = (seq + 1) % 2 ** 31;
        target = [point[0], point[1] + 0.01 * i, point[2]];
        client.sendRaw("grab-move", { hand: "left", target, seq });
      }
      expect(seq).toBe(5);
      await vi.waitFor(() => expect(Array.from(held()!.target)).toEqual(target), { timeout: 10_000, interval: 20 });
    } finally {
      await client.stop();
    }
  });

  it("lets the project's own client pull on across its frame numbers' wrap", async () => {
    const client = await joinClient(server, { create: true, options: { name: "Long haul", role: "player" } });
    const room = serverRoom(client.room.roomId);
    const held = () => heldGrab(room, client.sessionId, "left");
    try {
      await waitUntilShown(client);
      // 2^31 frames are 414 days at 60 Hz: start the count just short of the wrap instead of waiting.
      (client as unknown as { clock: { frame: number } }).clock.frame = 2 ** 31 - 30;
      const point = shownSurfacePoint(client, "spot", topSample(client, "spot"));
      expect((await client.grab("left", "spot", point)).ok).toBe(true);
      const target = [point[0], point[1] + 0.05, point[2]];
      await pull(client, "left", point, [0, 0.05, 0], 1);
      await vi.waitFor(() => expect(Array.from(held()!.target)).toEqual(target), { timeout: 10_000, interval: 20 });
      expect(client.frameNumber).toBeGreaterThan(2 ** 31);
      // The server still acknowledges its frames, and the prediction follows them.
      await vi.waitFor(() => expect(client.lastAcknowledgedFrame).toBeGreaterThan(2 ** 31), { timeout: 10_000, interval: 20 });
    } finally {
      await client.stop();
    }
  });
});
