// A hostile client against a real room: malformed, out-of-range and unauthorised messages and a flood. The room
// must keep ticking, other people must see nothing odd, the hostile client gets told why and is finally kicked.

import { expect, it, vi } from "vitest";
import { KICK_CLOSE_CODE } from "../../shared/net";
import { ADMIN_TOKEN, joinClient, roundTrip, serverRoom, shownSurfacePoint, sleep, useTestServer, waitUntilAtRest, waitUntilShown, waitUntilShowsLatest } from "./helpers";

const server = useTestServer();

it("garbage, forbidden actions and a 1,000 message/s flood change nothing for others and end in a kick", async () => {
  const good = await joinClient(server, { create: true, options: { name: "Good", role: "player" } });
  const viewer = await joinClient(server, { roomId: good.room.roomId, options: { role: "spectator" } });
  const hostile = await joinClient(server, { roomId: good.room.roomId, options: { name: "Mallory", role: "player" } });
  const spectator = await joinClient(server, { roomId: good.room.roomId, options: { role: "spectator" } });
  const room = serverRoom(good.room.roomId);
  try {
    // Bodies settle on the table (and fall asleep) after the room opens; the viewer shows where they came to rest.
    await waitUntilAtRest(room);
    await Promise.all([good, viewer, hostile, spectator].map((client) => waitUntilShown(client)));
    await roundTrip(viewer);
    await waitUntilShowsLatest(viewer, "spot");
    const watched = [0, 100, 200, 300].map((i) => shownSurfacePoint(viewer, "spot", i));
    let kickedCode = 0;
    hostile.room.onLeave((code: number) => (kickedCode = code));

    const garbage: [string, unknown][] = [
      ["pose", { head: [0, Number.NaN, 0, 0, 0, 0, 1] }],
      ["pose", { head: [1e30, 0, 0, 0, 0, 0, 1] }],
      ["pose", { head: [0, 1, 0, 0, 0, 0, 5] }],
      ["pose", "not an object"],
      ["grab-start", { hand: "right", body: "spot", point: "here", seq: 1 }],
      ["grab-start", { hand: "tail", body: "spot", point: [0, 1, 0], seq: 1 }],
      ["grab-start", { hand: "right", body: "no-such-body", point: [0, 1, 0], seq: 1 }],
      ["grab-start", { hand: "right", body: "spot", point: [0, 1e30, 0], seq: 1 }],
      ["grab-start", { hand: "right", body: "spot", point: [0, 1, 0], seq: -3 }],
      ["grab-move", { hand: "right", target: [Number.POSITIVE_INFINITY, 0, 0], seq: 2 }],
      ["grab-move", { hand: "right", target: [0, 1, 0], seq: 2 }],
      ["poke", { hand: "left", center: [0, 0.8, -0.6], radius: 5 }],
      ["admin", { token: "guess", action: "reset" }],
      ["admin", { token: ADMIN_TOKEN, action: "explode" }],
      ["no-such-message", { x: 1 }],
    ];
    for (const [type, payload] of garbage) hostile.sendRaw(type, payload);
    // Far from the body: a grab that would teleport it is refused.
    hostile.sendRaw("grab-start", { hand: "left", body: "spot", point: [3, 3, 3], seq: 3 });
    const refused = await spectator.grab("right", "spot", shownSurfacePoint(spectator, "spot", 0));
    expect(refused.ok).toBe(false);
    expect(refused.reason).toMatch(/spectators/);

    const ticksBefore = room.sceneWorld.tick;
    const started = Date.now();
    // The flood: 1,000 poses a second for 4 s (over the 200/s budget: most are dropped, then the client is kicked).
    for (let burst = 0; burst < 80 && kickedCode === 0; burst++) {
      for (let i = 0; i < 50; i++) hostile.sendRaw("pose", { head: [0, 1.6, 0, 0, 0, 0, 1] });
      await sleep(50);
    }
    await vi.waitFor(() => {
      expect(kickedCode).toBe(KICK_CLOSE_CODE);
      expect(room.state.players.has(hostile.sessionId)).toBe(false);
      expect(hostile.notices.some((n) => n.kind === "rejected")).toBe(true);
      expect(hostile.notices.some((n) => n.kind === "kicked")).toBe(true);
      // Logged with the reason (at most a line a second per client, so a flood cannot flood the log).
      expect(server.logs.some((line) => line.includes(hostile.sessionId) && /finite numbers/.test(line))).toBe(true);
      expect(server.logs.some((line) => line.includes(hostile.sessionId) && /kicked/.test(line))).toBe(true);
    }, { timeout: 20_000, interval: 20 });
    const elapsed = (Date.now() - started) / 1000;
    expect(server.logs.filter((line) => line.includes(hostile.sessionId)).length).toBeLessThan(20);
    // The room kept stepping all along (fixed 60 Hz; a generous floor for a loaded test machine).
    expect(room.sceneWorld.tick - ticksBefore).toBeGreaterThan(0.5 * 60 * elapsed);
    // Nobody else noticed: no notices, no grabs, the body where it was.
    expect(good.notices).toHaveLength(0);
    expect(viewer.notices).toHaveLength(0);
    expect(room.state.grabs.size).toBe(0);
    [0, 100, 200, 300].forEach((i, k) => {
      const now = shownSurfacePoint(viewer, "spot", i);
      expect(Math.hypot(now[0] - watched[k][0], now[1] - watched[k][1], now[2] - watched[k][2])).toBeLessThan(0.002);
    });
    for (const entity of room.sceneWorld.bodies) expect(entity.body.q.every(Number.isFinite)).toBe(true);
    // And the room still works for the good player.
    const ok = await good.grab("right", "spot", shownSurfacePoint(good, "spot", 0));
    expect(ok.ok).toBe(true);
  } finally {
    await Promise.all([good.stop(), viewer.stop(), hostile.stop(), spectator.stop()]);
  }
});
