// A room's life on a busy machine: a creation slower than Colyseus' empty-room timer (bakes under load) must not
// leave a half-made room ticking on a freed world, a disposed room never ticks, and a tick that throws closes its
// room once instead of throwing 60 times a second, and so does the send after a tick (the server's own room is then
// made again).

import { matchMaker } from "@colyseus/core";
import { expect, it, vi } from "vitest";
import { PlaygroundRoom } from "../../server/room/playground-room";
import { ROOM_NAME } from "../../shared/net";
import { joinClient, serverRoom, ticksPass, useTestServer } from "./helpers";

const server = useTestServer();

/**
 * The playground with Colyseus' empty-room timer (armed before onCreate, from the seat reservation's timeout) far
 * shorter than its creation: what a slow bake on a loaded machine does to the real one.
 */
class QuickToCloseRoom extends PlaygroundRoom {
  static made: QuickToCloseRoom[] = [];
  override seatReservationTimeout = 0.001;
  constructor() {
    super();
    QuickToCloseRoom.made.push(this);
  }
}

it("a room whose creation outlasts the empty-room timer is made whole, then closes unused and never ticks again", async () => {
  matchMaker.defineRoomType("quick-to-close", QuickToCloseRoom);
  const { roomId } = await matchMaker.createRoom("quick-to-close", {});
  const room = QuickToCloseRoom.made.at(-1)!;
  expect(room.roomId).toBe(roomId);
  // Nobody takes a seat: it closes as an empty room does, and leaves the matchmaker.
  await vi.waitFor(() => expect(matchMaker.getLocalRoomById(roomId)).toBeUndefined(), { timeout: 20_000, interval: 20 });
  const tickAtClose = room.sceneWorld.tick;
  // A second of the server's own room later (its ticks, not the wall clock), the closed room has not ticked.
  await ticksPass(serverRoom(server.server.publicRoomId), 60);
  expect(room.sceneWorld.tick).toBe(tickAtClose);
  expect(server.logs.filter((line) => /null pointer|tick failed/.test(line))).toEqual([]);
});

/**
 * A room with one player, whose `inject` makes it fail: it closes once, telling the client with close code 4002, and
 * logs `what` failed once, with the fault's message.
 */
async function closesOnceWhen(what: string, inject: (room: PlaygroundRoom) => void, fault: RegExp): Promise<void> {
  const client = await joinClient(server, { create: true, options: { name: "Witness", role: "player" } });
  const roomId = client.room.roomId, room = serverRoom(roomId);
  let closeCode = 0;
  client.room.onLeave((code: number) => (closeCode = code));
  await ticksPass(room, 5);
  const failures = () => server.logs.filter((line) => line.includes(`room ${roomId}: ${what} failed`));
  inject(room);
  await vi.waitFor(() => {
    expect(closeCode).toBe(4002);
    expect(matchMaker.getLocalRoomById(roomId)).toBeUndefined();
  }, { timeout: 20_000, interval: 20 });
  await client.stop().catch(() => undefined);
  await ticksPass(serverRoom(server.server.publicRoomId), 60);
  expect(failures()).toHaveLength(1);
  expect(failures()[0]).toMatch(fault);
}

it("a tick that throws closes its room once: clients are told with close code 4002, and it is logged once", async () => {
  // A fault inside the tick, as a freed world or a solver bug would throw.
  await closesOnceWhen("a tick", (room) => vi.spyOn(room.sceneWorld, "step").mockImplementation(() => {
    throw new Error("injected fault in the world's step");
  }), /injected fault in the world's step/);
});

it("a snapshot's send that throws (after the tick) closes its room the same way, never the server", async () => {
  await closesOnceWhen("a send", (room) => vi.spyOn(room, "broadcastBytes").mockImplementation(() => {
    throw new Error("injected fault in a send");
  }), /injected fault in a send/);
});

it("the server's own room, failed, is made again and joinable by name", async () => {
  const publicRoom = serverRoom(server.server.publicRoomId);
  vi.spyOn(publicRoom.sceneWorld, "step").mockImplementation(() => {
    throw new Error("injected fault in the public room");
  });
  await vi.waitFor(async () => {
    expect(matchMaker.getLocalRoomById(server.server.publicRoomId)).toBeUndefined();
    const rooms = await matchMaker.query({ name: ROOM_NAME, private: false });
    expect(rooms.map((r) => r.roomId)).toHaveLength(1);
    expect(rooms[0].roomId).not.toBe(server.server.publicRoomId);
  }, { timeout: 30_000, interval: 50 });
  const visitor = await joinClient(server, { options: { name: "Later", role: "spectator" } });
  try {
    expect(visitor.room.roomId).not.toBe(server.server.publicRoomId);
    await ticksPass(serverRoom(visitor.room.roomId), 10);
  } finally {
    await visitor.stop();
  }
});
