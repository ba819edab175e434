// Frames an outsider can write from docs/protocol.md and Colyseus' wire format, which the project's own client never
// sends: request frames, byte frames, inputs, truncated msgpack, and a flood past Colyseus' own message cap. Every
// frame counts against the sender's budget, none is answered or logged more than once a second, and a flooder is
// kicked: its seat and reconnection token end at once.

import { Client } from "@colyseus/sdk";
import { Protocol } from "@colyseus/shared-types";
import { pack } from "msgpackr";
import { expect, it, vi } from "vitest";
import { KICK_CLOSE_CODE } from "../../shared/net";
import { joinClient, serverRoom, ticksPass, useTestServer } from "./helpers";

const server = useTestServer();

/** A frame: its kind, then (for room messages and requests) a request id, a fixstr type and a msgpack payload. */
function frame(kind: number, type: string, payload: Uint8Array, requestId?: number): Uint8Array {
  const name = new TextEncoder().encode(type);
  const head = requestId === undefined ? [kind] : [kind, requestId & 0x7f];
  return Uint8Array.from([...head, 0xa0 | name.length, ...name, ...payload]);
}

/** What the server logged about one client, and whether any of it was a stack trace or a server error. */
function linesAbout(sessionId: string): string[] {
  return server.logs.filter((line) => line.includes(sessionId));
}
const serverErrors = () => server.logs.filter((line) => line.startsWith("server error") || /\n\s+at /.test(line));

it("a flood of request frames counts against the budget: never answered, ends in a kick, a few log lines and no stack trace", async () => {
  const witness = await joinClient(server, { create: true, options: { name: "Witness", role: "player" } });
  const hostile = await joinClient(server, { roomId: witness.room.roomId, options: { name: "Requester", role: "player" } });
  const room = serverRoom(witness.room.roomId);
  const errorsBefore = serverErrors().length;
  let closeCode = 0, answered = 0;
  hostile.room.onLeave((code: number) => (closeCode = code));
  try {
    // 3,000 unknown requests at once, as the SDK's room.request() sends them: over the budget's burst, so most are
    // dropped, and the drops end in a kick.
    const started = Date.now();
    for (let i = 0; i < 3000; i++) {
      hostile.room.request("no-such-request", { i }, { timeout: 60_000 }).then(() => answered++, (error: Error) => {
        if (/handler|no_handler/.test(error.message ?? String(error))) answered++;
      });
    }
    await vi.waitFor(() => {
      expect(closeCode).toBe(KICK_CLOSE_CODE);
      expect(room.state.players.has(hostile.sessionId)).toBe(false);
    }, { timeout: 20_000, interval: 20 });
    expect(answered, "requests answered").toBe(0);
    // One throttled line a second at most while it flooded, and the kick.
    expect(linesAbout(hostile.sessionId).length).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 2);
    expect(serverErrors().length).toBe(errorsBefore);
    // The room went on for the others.
    await ticksPass(room, 30);
    expect(room.state.players.has(witness.sessionId)).toBe(true);
  } finally {
    await hostile.stop().catch(() => undefined);
    await witness.stop();
  }
});

it("truncated msgpack in request and data frames, byte frames and inputs are dropped with a throttled line, never a stack trace", async () => {
  const hostile = await joinClient(server, { create: true, options: { name: "Garbler", role: "player" } });
  const room = serverRoom(hostile.room.roomId);
  const errorsBefore = serverErrors().length;
  const truncated = pack({ head: [0, 1.6, 0, 0, 0, 0, 1] }).subarray(0, 5);
  const frames = [
    frame(Protocol.ROOM_REQUEST, "pose", truncated, 1),
    frame(Protocol.ROOM_REQUEST, "no-such-request", Uint8Array.of(0xc1), 2),
    frame(Protocol.ROOM_DATA, "pose", truncated),
    frame(Protocol.ROOM_DATA_BYTES, "pose", Uint8Array.of(1, 2, 3)),
    Uint8Array.of(Protocol.ROOM_INPUT_RELIABLE, 0xff, 0xff),
    Uint8Array.of(Protocol.ROOM_INPUT_UNRELIABLE, 0x92),
    Uint8Array.of(Protocol.ROOM_REQUEST),
    Uint8Array.of(99, 1, 2, 3),
  ];
  try {
    // 320 frames at once: within the budget's burst of 400, so every one is read, and every one is refused.
    for (let i = 0; i < 320; i++) hostile.room.connection.send(frames[i % frames.length]);
    await vi.waitFor(() => expect(hostile.notices.some((n) => n.kind === "rejected")).toBe(true), { timeout: 20_000, interval: 20 });
    await ticksPass(room, 30);
    expect(serverErrors().length, serverErrors().slice(errorsBefore).join("\n").slice(0, 2000)).toBe(errorsBefore);
    expect(linesAbout(hostile.sessionId).length).toBeLessThanOrEqual(6);
    // Still seated: bad frames within the budget are dropped, not punished by a disconnection.
    expect(room.state.players.has(hostile.sessionId)).toBe(true);
  } finally {
    await hostile.stop().catch(() => undefined);
  }
});

it("a flood past Colyseus' own 2,000-message cap is a kick: the seat leaves the state at once and its token cannot reconnect", async () => {
  const witness = await joinClient(server, { create: true, options: { name: "Witness", role: "spectator" } });
  const flooder = await joinClient(server, { roomId: witness.room.roomId, options: { name: "Flooder", role: "player" } });
  const room = serverRoom(witness.room.roomId);
  const token = flooder.room.reconnectionToken;
  let closeCode = 0, seatedAtClose = true;
  flooder.room.onLeave((code: number) => {
    closeCode = code;
    seatedAtClose = room.state.players.has(flooder.sessionId);
  });
  try {
    const pose = frame(Protocol.ROOM_DATA, "pose", pack({ head: [0, 1.6, 0, 0, 0, 0, 1] }));
    // 3,000 frames at once: over Colyseus' cap of 2,000 in a second.
    for (let i = 0; i < 3000; i++) flooder.room.connection.send(pose);
    await vi.waitFor(() => expect(closeCode).not.toBe(0), { timeout: 20_000, interval: 20 });
    expect(closeCode).toBe(KICK_CLOSE_CODE);
    expect(seatedAtClose, "still in the state when its socket closed").toBe(false);
    await expect(new Client(server.endpoint).reconnect(token)).rejects.toThrow();
    expect(room.state.players.has(flooder.sessionId)).toBe(false);
  } finally {
    await flooder.stop().catch(() => undefined);
    await witness.stop();
  }
});
