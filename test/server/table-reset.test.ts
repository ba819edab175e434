// The table never empties, through a real server and real clients: a body pulled off the table and dropped on
// the floor floats back by itself; a player may reset the table (not again within the cooldown, not as a
// spectator, not with a malformed message); an admin sets the idle reset, after which an untouched table resets.

import { expect, it, vi } from "vitest";
import { AWAY_SECONDS } from "../../shared/scene";
import { ADMIN_TOKEN, joinClient, pull, serverRoom, serverSurfacePoint, shownCentre, shownSurfacePoint, topSample, useTestServer, waitUntilShown } from "./helpers";
import type { PlaygroundRoom } from "../../server/room/playground-room";

const server = useTestServer();
const within = { timeout: 30_000, interval: 20 };

/** The body's centroid on the server, and its distance from where it started. */
function awayFromSpawn(room: PlaygroundRoom, id: string): { centre: Float64Array; distance: number } {
  const entity = room.sceneWorld.bodies.find((e) => e.id === id)!, centre = new Float64Array(3);
  entity.body.centroid(centre);
  const rest = entity.subspace.restCentroid;
  return { centre, distance: Math.hypot(centre[0] - entity.spawn[0] - rest[0], centre[1] - entity.spawn[1] - rest[1], centre[2] - entity.spawn[2] - rest[2]) };
}

/** A fresh room with a player and a spectator in it, both showing every body. */
async function playerAndViewer(name: string) {
  const player = await joinClient(server, { create: true, options: { name, role: "player" } });
  const viewer = await joinClient(server, { roomId: player.room.roomId, options: { role: "spectator" } });
  await Promise.all([waitUntilShown(player), waitUntilShown(viewer)]);
  return { player, viewer, room: serverRoom(player.room.roomId) };
}

/**
 * Grabs the body by its top as the client shows it and pulls it by `delta` over `seconds`, then lets go. It grabs
 * once the client shows the body where the server has it: the view trails the server by its interpolation, and
 * on a loaded machine a point shown on a body still settling after a reset was refused as off its surface.
 */
async function pullAndDrop(client: Awaited<ReturnType<typeof joinClient>>, room: PlaygroundRoom, id: string, delta: number[], seconds: number): Promise<void> {
  let from: [number, number, number] = [0, 0, 0], held: Float64Array = new Float64Array(3);
  await vi.waitFor(() => {
    const top = topSample(client, id);
    from = shownSurfacePoint(client, id, top);
    held = serverSurfacePoint(room, id, top);
    expect(Math.hypot(from[0] - held[0], from[1] - held[1], from[2] - held[2]), "shown where the server has it").toBeLessThan(0.02);
  }, within);
  const grab = await client.grab("right", id, from);
  expect(grab.ok, `${grab.reason}: shown at ${from.map((v) => v.toFixed(3))}, the server's at ${Array.from(held, (v) => v.toFixed(3))}`).toBe(true);
  await pull(client, "right", from, delta, seconds);
  client.release("right");
}

it("a body pulled off the table and dropped on the floor floats back to its spawn, and everyone sees it there", async () => {
  const { player, viewer, room } = await playerAndViewer("Flinger");
  try {
    // Off the table's front edge (z = -0.15), then let go 1 m above the floor.
    await pullAndDrop(player, room, "dough-ball", [0, 0.2, 1.2], 0.8);
    await vi.waitFor(() => expect(awayFromSpawn(room, "dough-ball").centre[1], "on the floor").toBeLessThan(0.3), within);
    const landedAt = room.sceneWorld.tick;
    await vi.waitFor(() => expect(awayFromSpawn(room, "dough-ball").distance, "back at its spawn").toBeLessThan(0.03), within);
    // It lay on the floor for AWAY_SECONDS first (the room's time, not the wall clock).
    expect((room.sceneWorld.tick - landedAt) / 60).toBeGreaterThan(AWAY_SECONDS);
    await vi.waitFor(() => {
      const shown = shownCentre(viewer, "dough-ball");
      expect(shown[1], "the spectator sees it on the table").toBeGreaterThan(0.75);
      expect(Math.abs(shown[2] + 0.7), "at its spawn").toBeLessThan(0.05);
    }, within);
  } finally {
    await Promise.all([player.stop(), viewer.stop()]);
  }
}, 60_000);

it("a player resets the table for everyone, once per cooldown; spectators and malformed messages cannot", async () => {
  const { player, viewer, room } = await playerAndViewer("Resetter");
  try {
    // The spot slid 30 cm along the table: still on it, so it stays there by itself.
    await pullAndDrop(player, room, "spot", [0.3, 0, 0], 0.5);
    await vi.waitFor(() => expect(awayFromSpawn(room, "spot").distance).toBeGreaterThan(0.15), within);

    viewer.sendRaw("reset-table", {});
    await vi.waitFor(() => expect(viewer.notices.some((n) => /spectators cannot reset/.test(n.message))).toBe(true), within);
    player.sendRaw("reset-table", { everything: true });
    await vi.waitFor(() => expect(player.notices.some((n) => /reset-table takes no fields/.test(n.message))).toBe(true), within);
    expect(awayFromSpawn(room, "spot").distance, "nothing was reset").toBeGreaterThan(0.15);

    player.sendRaw("reset-table", {});
    await vi.waitFor(() => {
      expect(viewer.notices.some((n) => n.kind === "reset" && /Resetter reset the table/.test(n.message)), "everyone is told").toBe(true);
      expect(awayFromSpawn(room, "spot").distance).toBeLessThan(0.03);
    }, within);
    // Within the cooldown (server/room/table-reset.ts) a second reset is refused, with the time left.
    await vi.waitFor(() => expect(Math.abs(shownCentre(player, "spot")[0]), "the player sees the spot back").toBeLessThan(0.05), within);
    await pullAndDrop(player, room, "spot", [0.3, 0, 0], 0.5);
    player.sendRaw("reset-table", {});
    await vi.waitFor(() => expect(player.notices.some((n) => n.kind === "rejected" && /try again in \d+ s/.test(n.message)), JSON.stringify(player.notices) + server.logs.slice(-8).join("\n")).toBe(true), within);
    expect(awayFromSpawn(room, "spot").distance, "not reset within the cooldown").toBeGreaterThan(0.15);
  } finally {
    await Promise.all([player.stop(), viewer.stop()]);
  }
}, 60_000);

it("an admin sets the idle reset: a table nobody touches for that long is reset", async () => {
  const admin = await joinClient(server, { create: true, options: { name: "Operator", role: "player", adminToken: ADMIN_TOKEN } });
  const room = serverRoom(admin.room.roomId);
  try {
    await waitUntilShown(admin);
    admin.sendRaw("admin", { action: "idle-reset", minutes: -1 });
    await vi.waitFor(() => expect(admin.notices.some((n) => /idle-reset needs minutes/.test(n.message))).toBe(true), within);
    admin.sendRaw("admin", { action: "idle-reset", minutes: 0.05 }); // 3 s
    await vi.waitFor(() => expect(room.state.idleResetMinutes).toBeCloseTo(0.05), within);
    await pullAndDrop(admin, room, "spot", [0.3, 0, 0], 0.5);
    await vi.waitFor(() => expect(awayFromSpawn(room, "spot").distance).toBeGreaterThan(0.15), within);
    const releasedAt = room.sceneWorld.tick;
    await vi.waitFor(() => expect(admin.notices.some((n) => n.kind === "reset" && /nobody has played/.test(n.message))).toBe(true), within);
    expect(room.sceneWorld.tick - releasedAt, "not before 3 s of the room's time").toBeGreaterThanOrEqual(3 * 60 - 60);
    expect(awayFromSpawn(room, "spot").distance).toBeLessThan(0.03);
  } finally {
    await admin.stop();
  }
}, 60_000);
