// A headset that drops Wi-Fi for a moment, or freezes with its socket open: its grabs end at once so nobody is
// blocked, and a dropped client gets its seat, name, colour and slot back when it reconnects in time.

import { describe, expect, it, vi } from "vitest";
import { joinClient, pull, serverRoom, shownSurfacePoint, topSample, useTestServer, waitUntilShown } from "./helpers";
import { LIMITS, TICK_RATE, type GrabResultMessage } from "../../shared/net";
import { SILENT_LET_GO_REASON } from "../../server/room/playground-room";

const RECONNECT_SECONDS = 3;
const server = useTestServer({ reconnectSeconds: RECONNECT_SECONDS });

async function holdingSpot(name: string) {
  const a = await joinClient(server, { create: true, options: { name, role: "player", color: "#123456" } });
  const room = serverRoom(a.room.roomId);
  const entity = room.sceneWorld.bodies.find((e) => e.id === "spot")!;
  await waitUntilShown(a);
  const start = shownSurfacePoint(a, "spot", topSample(a, "spot"));
  expect((await a.grab("right", "spot", start)).ok).toBe(true);
  await pull(a, "right", start, [0, 0.1, 0], 0.3);
  expect(room.state.grabs.get(`${a.sessionId}:right`)?.body).toBe("spot");
  const grabs = () => Array.from({ length: 16 }, (_, id) => entity.body.isGrabbing(id)).filter(Boolean).length;
  expect(grabs()).toBe(1);
  return { a, room, grabs, start };
}

describe("dropped and silent clients", () => {
  it("a player whose connection drops mid-grab lets go at once, and gets its seat, name, colour and slot back on reconnecting", async () => {
    const { a, room, grabs } = await holdingSpot("Dropper");
    const before = room.state.players.get(a.sessionId)!.toJSON();
    // The SDK reconnects by itself only after the room has been up a while (PliantRoomClient sets how long).
    const joinedAt = Date.now();
    await vi.waitFor(() => expect(Date.now() - joinedAt).toBeGreaterThan(a.room.reconnection.minUptime), { timeout: 10_000 });
    // Drop the connection without a goodbye, as a headset that loses Wi-Fi would. The moment the server sees it
    // (the client is gone from the room's list), the grab is already let go: the next tick simulates without it.
    // A round trip asked as the connection goes is answered: by its pong if that still comes, or over the next connection.
    let answeredAcrossTheDrop = false;
    void a.roundTrip().then(() => (answeredAcrossTheDrop = true));
    a.room.connection.close(4010, "network lost");
    await vi.waitFor(() => expect(room.clients.some((c) => c.sessionId === a.sessionId)).toBe(false), { timeout: 20_000, interval: 1 });
    expect(grabs()).toBe(0);
    expect(room.state.grabs.size).toBe(0);
    // The seat waits, then the SDK reconnects into it: same session, name, colour and slot.
    expect(room.state.players.get(a.sessionId)?.toJSON()).toEqual(before);
    await vi.waitFor(() => expect(room.clients.some((c) => c.sessionId === a.sessionId)).toBe(true), { timeout: 20_000, interval: 20 });
    expect(room.state.players.get(a.sessionId)?.toJSON()).toEqual(before);
    await vi.waitFor(() => expect(answeredAcrossTheDrop).toBe(true), { timeout: 20_000, interval: 20 });
    // And it plays on: a new grab works.
    await vi.waitFor(async () => expect((await a.grab("right", "spot", shownSurfacePoint(a, "spot", topSample(a, "spot")))).ok).toBe(true), { timeout: 20_000, interval: 200 });
    await a.stop();
  });

  it("a seat not reclaimed within the reconnection window is given up", async () => {
    const { a, room, grabs } = await holdingSpot("Gone");
    a.room.reconnection.enabled = false; // this one never comes back
    a.room.connection.close(4010, "network lost");
    await vi.waitFor(() => expect(grabs()).toBe(0), { timeout: 20_000, interval: 5 });
    expect(room.state.players.has(a.sessionId)).toBe(true);
    const dropped = Date.now();
    await vi.waitFor(() => expect(room.state.players.has(a.sessionId)).toBe(false), { timeout: 20_000, interval: 20 });
    expect(Date.now() - dropped).toBeGreaterThan(0.5 * RECONNECT_SECONDS * 1000);
    await a.stop();
  });

  it("a client that goes silent with its socket open (a frozen page) lets go after its silent hold; one that keeps sending does not", async () => {
    const { a, room, grabs, start } = await holdingSpot("Frozen");
    const ended: GrabResultMessage[] = [];
    a.onGrabEnded = (result) => ended.push(result);
    // Held still for longer than the silent hold while its frame loop runs: the grab stays.
    const until = Date.now() + (LIMITS.silentHoldSeconds + 1) * 1000;
    await vi.waitFor(() => {
      a.moveGrab("right", [start[0], start[1] + 0.1, start[2]]);
      expect(grabs()).toBe(1);
      expect(Date.now()).toBeGreaterThan(until);
    }, { timeout: 10_000, interval: 50 });
    // The page freezes: no frames, no messages; the socket stays open.
    await a.stop({ keepConnection: true });
    const frozenAt = room.sceneWorld.tick;
    await vi.waitFor(() => expect(grabs()).toBe(0), { timeout: 20_000, interval: 5 });
    // At least most of the hold (the server heard the client last a tick or two before the test saw it stop).
    expect(room.sceneWorld.tick - frozenAt).toBeGreaterThan((LIMITS.silentHoldSeconds - 0.5) * TICK_RATE);
    expect(room.sceneWorld.tick - frozenAt).toBeLessThan((LIMITS.silentHoldSeconds + 1) * TICK_RATE);
    expect(room.state.players.has(a.sessionId)).toBe(true);
    // The page, once it wakes, is told why and lets go too (no hand holding a body the server dropped).
    await vi.waitFor(() => {
      a.update();
      expect(ended.some((r) => !r.ok && r.reason === SILENT_LET_GO_REASON)).toBe(true);
      expect(a.heldBody("right")).toBeUndefined();
    }, { timeout: 20_000, interval: 20 });
    await a.leave();
  });
});
