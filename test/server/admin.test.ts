// Admin actions with the token, and what a quiet room costs on the wire.

import { expect, it } from "vitest";
import { decodeSnapshot } from "../../shared/net";
import { ADMIN_TOKEN, joinClient, serverRoom, shownSurfacePoint, sleep, useTestServer } from "./helpers";

const server = useTestServer();

it("admin actions need the token and do what they say", async () => {
  const admin = await joinClient(server, { create: true, options: { name: "Admin", role: "spectator", adminToken: ADMIN_TOKEN } });
  const viewer = await joinClient(server, { roomId: admin.room.roomId, options: { name: "Viewer", role: "spectator" } });
  const room = serverRoom(admin.room.roomId);
  try {
    await sleep(300);
    // Without the token: refused, nothing changes.
    viewer.sendRaw("admin", { token: "wrong", action: "spectator-grabs", allowed: true });
    await sleep(200);
    expect(room.state.spectatorGrabs).toBe(false);
    expect(viewer.notices.some((n) => /wrong admin token/.test(n.message))).toBe(true);

    admin.sendRaw("admin", { token: "", action: "spectator-grabs", allowed: true }); // joined with the token
    await sleep(200);
    expect(room.state.spectatorGrabs).toBe(true);
    const grab = await viewer.grab("right", "spot", shownSurfacePoint(viewer, "spot", 0));
    expect(grab.ok).toBe(true);
    viewer.release("right");

    admin.sendRaw("admin", { token: ADMIN_TOKEN, action: "material", body: "spot", material: "rubber" });
    await sleep(200);
    expect(room.state.bodies.get("spot")!.material).toBe("rubber");

    // Reset: a body moved away comes back to its spawn.
    const entity = room.sceneWorld.bodies.find((e) => e.id === "spot")!;
    entity.body.setState(entity.body.q.map((v, i) => (i === 3 ? v + 0.3 : v)), new Float64Array(entity.body.n));
    admin.sendRaw("admin", { token: ADMIN_TOKEN, action: "reset" });
    await sleep(200);
    const c = new Float64Array(3);
    entity.body.centroid(c);
    expect(Math.abs(c[0] - entity.spawn[0])).toBeLessThan(0.05);

    let leftWith = 0;
    viewer.room.onLeave((code: number) => (leftWith = code));
    admin.sendRaw("admin", { token: ADMIN_TOKEN, action: "kick", sessionId: viewer.sessionId });
    for (let i = 0; i < 50 && leftWith === 0; i++) await sleep(20);
    expect(leftWith).toBe(4001);
    expect(room.state.players.has(viewer.sessionId)).toBe(false);
  } finally {
    await Promise.all([admin.stop(), viewer.stop()]);
  }
});

it("a room at rest sends no body data", async () => {
  const a = await joinClient(server, { create: true, options: { role: "spectator" } });
  try {
    await sleep(4500); // bodies settle (and fall asleep) after the room opens
    let bodyBytes = 0, snapshots = 0;
    a.room.onMessage("snapshot", (bytes: Uint8Array) => {
      snapshots++;
      for (const b of decodeSnapshot(bytes).bodies) bodyBytes += 7 + 2 * b.q.length;
    });
    await sleep(2000);
    // Nothing moves, so nothing is sent (a snapshot with no content is not sent at all).
    expect(bodyBytes).toBe(0);
    expect(snapshots).toBeLessThanOrEqual(2);
  } finally {
    await a.stop();
  }
});
