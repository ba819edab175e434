// Join-and-drop churn at a stand (phones that lose Wi-Fi, headsets taken off): every dropped player keeps its seat
// for a reconnection, but those waiting seats must not fill the room. A full room gives the oldest waiting seat to
// whoever joins now; the seats that still wait can be reconnected into.

import { Client, type Room } from "@colyseus/sdk";
import { matchMaker } from "@colyseus/core";
import { expect, it, vi } from "vitest";
import { MAX_PLAYERS, ROOM_NAME } from "../../shared/net";
import { ADMIN_TOKEN, serverRoom, useTestServer } from "./helpers";

// Seats wait a minute here, so that none expires while a loaded machine runs the test.
const server = useTestServer({ reconnectSeconds: 60 });

/** A player as the SDK joins one, without a frame loop: enough to hold a seat. */
async function joinPlayer(roomId: string, name: string): Promise<Room> {
  const room = await new Client(server.endpoint).joinById(roomId, { role: "player", name });
  // It reads nothing: the room's snapshots and notices are not for it.
  room.onMessage("*", () => undefined);
  return room;
}

/** The connection drops without a goodbye (a close code the SDK does not reconnect after). */
function drop(room: Room): void {
  room.connection.close(4011, "network lost");
}

it("dropped players' waiting seats give way to new players, oldest first, and the others can still come back", async () => {
  const roomId = (await matchMaker.createRoom(ROOM_NAME, {})).roomId;
  const room = serverRoom(roomId);
  /** Connections still open, to close at the end. */
  const seated: Room[] = [];
  try {
    const dropped: Room[] = [];
    for (let i = 0; i < MAX_PLAYERS; i++) dropped.push(await joinPlayer(roomId, `P${i}`));
    const tokens = dropped.map((r) => r.reconnectionToken), ids = dropped.map((r) => r.sessionId);
    // One after the other, each seen by the room before the next: the first dropped has waited longest.
    for (const [i, r] of dropped.entries()) {
      drop(r);
      await vi.waitFor(() => expect(room.clients.length).toBe(MAX_PLAYERS - 1 - i), { timeout: 20_000, interval: 5 });
    }
    // All 16 still hold their seats, waiting.
    expect([...room.state.players.values()].filter((p) => p.role === "player")).toHaveLength(MAX_PLAYERS);

    // A new player takes the seat that has waited longest.
    const newcomer = await joinPlayer(roomId, "Newcomer");
    seated.push(newcomer);
    expect(room.state.players.has(ids[0])).toBe(false);
    expect(room.state.players.has(newcomer.sessionId)).toBe(true);

    await expect(new Client(server.endpoint).reconnect(tokens[0])).rejects.toThrow();
    // The newest waiting seat still takes its player back.
    const back = await new Client(server.endpoint).reconnect(tokens[MAX_PLAYERS - 1]);
    seated.push(back);
    expect(back.sessionId).toBe(ids[MAX_PLAYERS - 1]);

    // Churn: 40 more joins that each drop at once, in a full room: none is refused.
    for (let i = 0; i < 40; i++) {
      const passer = await joinPlayer(roomId, `Passer ${i}`);
      drop(passer);
    }
    // Full, and every seat someone's: the two connected players and the newest of those waiting.
    await vi.waitFor(() => expect(room.clients.length).toBe(2), { timeout: 20_000, interval: 5 });
    expect([...room.state.players.values()].filter((p) => p.role === "player")).toHaveLength(MAX_PLAYERS);
  } finally {
    for (const r of seated) await r.leave().catch(() => undefined);
  }
});

it("an admin's kick of a seat waiting for its connection ends it: its token cannot come back", async () => {
  const roomId = (await matchMaker.createRoom(ROOM_NAME, {})).roomId;
  const room = serverRoom(roomId);
  const admin = await new Client(server.endpoint).joinById(roomId, { role: "spectator", name: "Operator", adminToken: ADMIN_TOKEN });
  admin.onMessage("*", () => undefined);
  try {
    const player = await joinPlayer(roomId, "Dropper");
    const token = player.reconnectionToken, id = player.sessionId;
    drop(player);
    await vi.waitFor(() => expect(room.clients.length).toBe(1), { timeout: 20_000, interval: 5 });
    expect(room.state.players.has(id)).toBe(true);
    admin.send("admin", { action: "kick", sessionId: id });
    await vi.waitFor(() => expect(room.state.players.has(id)).toBe(false), { timeout: 20_000, interval: 5 });
    await expect(new Client(server.endpoint).reconnect(token)).rejects.toThrow();
    expect(room.state.players.has(id)).toBe(false);
  } finally {
    await admin.leave().catch(() => undefined);
  }
});
