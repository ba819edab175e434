// A player turns a body into another material (the wrist menu's button): everyone sees the new material and hears
// who did it; a spectator may not, a bad material or body is refused with the reason, and nothing else changes; a
// body changes material at most once a second, and a table reset gives it its own back.

import { expect, it, vi } from "vitest";
import { joinClient, serverRoom, ticksPass, useTestServer } from "./helpers";

const server = useTestServer();
const within = { timeout: 20_000, interval: 20 };

it("a player's set-material changes the body for everyone; spectators and bad input change nothing", async () => {
  const player = await joinClient(server, { create: true, options: { name: "Mia", role: "player" } });
  const viewer = await joinClient(server, { roomId: player.room.roomId, options: { name: "Viewer", role: "spectator" } });
  const room = serverRoom(player.room.roomId);
  const entity = room.sceneWorld.bodies.find((e) => e.id === "spot")!;
  try {
    expect(room.state.bodies.get("spot")!.material).toBe("jelly");
    // Refused: a spectator, a material that does not exist, a body that does not exist. (A client hears of its
    // refused messages once a second at most, so each is sent until its reason comes back.)
    const refused = (client: typeof player, message: unknown, reason: RegExp) => vi.waitFor(() => {
      client.sendRaw("set-material", message);
      expect(client.notices.some((n) => n.kind === "rejected" && reason.test(n.message))).toBe(true);
    }, { timeout: 20_000, interval: 300 });
    await refused(viewer, { body: "spot", material: "rubber" }, /spectators cannot change materials/);
    await refused(player, { body: "spot", material: "steel" }, /material must be jelly, rubber or dough/);
    await refused(player, { body: "nope", material: "rubber" }, /unknown body "nope"/);
    expect(room.state.bodies.get("spot")!.material).toBe("jelly");
    expect(entity.body.material.youngsModulus).toBe(1.5e5);

    player.setMaterial("spot", "rubber");
    await vi.waitFor(() => {
      expect(room.state.bodies.get("spot")!.material).toBe("rubber");
      // The viewer's copy follows the room state, and it is told who did it.
      expect(viewer.materialOf("spot")).toBe("rubber");
      expect(viewer.notices.some((n) => n.kind === "material" && n.message === "Mia made the spot rubber")).toBe(true);
    }, within);
    // The server simulates it as rubber now.
    expect(entity.body.material.youngsModulus).toBe(6e5);

    // Once a second at most per body: an immediate second change is refused (the state stays), a later one is not.
    player.setMaterial("spot", "dough");
    await ticksPass(room, 6);
    expect(room.state.bodies.get("spot")!.material).toBe("rubber");
    await vi.waitFor(() => {
      player.setMaterial("spot", "dough");
      expect(room.state.bodies.get("spot")!.material).toBe("dough");
    }, { timeout: 20_000, interval: 200 });
    // A table reset gives every body its own material back.
    player.resetTable();
    await vi.waitFor(() => expect(room.state.bodies.get("spot")!.material).toBe("jelly"), within);
    expect(entity.body.material.youngsModulus).toBe(1.5e5);
  } finally {
    await Promise.all([player.stop(), viewer.stop()]);
  }
});
