// Prediction and reconciliation over a bad network: 100 ms round trip, 20 ms jitter, 2% of poses, grab moves and
// snapshots lost (simulated in the clients, both directions).

import { expect, it } from "vitest";
import { INTERPOLATION_DELAY_MS, SNAPSHOT_RATE, type NetworkConditions } from "../../shared/net";
import { joinClient, serverRoom, shownSurfacePoint, sleep, topSample, useTestServer } from "./helpers";

const server = useTestServer();

const BAD_NETWORK: NetworkConditions = { latencyMs: 50, jitterMs: 20, loss: 0.02 };

it("the grabber's prediction stays within 1 cm of the server (95% of snapshots, never 2 cm), and 200 ms after input stops remote viewers show it within 1 cm", async () => {
  const a = await joinClient(server, { create: true, options: { name: "A", role: "player" }, network: BAD_NETWORK });
  const b = await joinClient(server, { roomId: a.room.roomId, options: { name: "B", role: "spectator" }, network: BAD_NETWORK });
  try {
    const room = serverRoom(a.room.roomId);
    const entity = room.sceneWorld.bodies.find((e) => e.id === "spot")!;
    const serverPoint = (i: number) => {
      const out = new Float64Array(3);
      entity.body.pointPosition(entity.subspace.surfaceRows, entity.subspace.surfaceRest, i, out, 0);
      return out;
    };
    await sleep(1500); // round-trip estimate settles
    const top = topSample(a, "spot");
    const start = shownSurfacePoint(a, "spot", top);
    expect((await a.grab("right", "spot", start)).ok).toBe(true);
    const errors: number[] = [];
    let lastSeen = NaN;
    const body = a.bodies.get("spot")!;
    // Pull 20 cm up and 10 cm sideways over 1.5 s, then hold still.
    const frames = 90;
    for (let f = 1; f <= frames; f++) {
      const t = f / frames;
      a.moveGrab("right", [start[0] + 0.1 * t, start[1] + 0.2 * t, start[2]]);
      if (body.lastReconcileError !== lastSeen) errors.push((lastSeen = body.lastReconcileError));
      await sleep(1000 / 60);
    }
    // After the last input: the server's state over time, and what the remote viewer shows meanwhile. The viewer
    // must show a state the server had within its one-way latency + jitter + interpolation delay + one snapshot
    // interval (+30 ms of timer slack): 250 ms here.
    const lagLimit = BAD_NETWORK.latencyMs + BAD_NETWORK.jitterMs + INTERPOLATION_DELAY_MS + 1000 / SNAPSHOT_RATE + 30;
    const timeline: { at: number; p: Float64Array }[] = [];
    let remoteGap = 0;
    const stoppedAt = Date.now();
    while (Date.now() - stoppedAt < 800) {
      if (body.lastReconcileError !== lastSeen) errors.push((lastSeen = body.lastReconcileError));
      const now = Date.now();
      timeline.push({ at: now, p: serverPoint(top) });
      if (now - stoppedAt >= 200 + BAD_NETWORK.latencyMs) {
        const seen = shownSurfacePoint(b, "spot", top);
        let nearest = Infinity;
        for (const { at, p } of timeline) if (now - at <= lagLimit) nearest = Math.min(nearest, Math.hypot(seen[0] - p[0], seen[1] - p[1], seen[2] - p[2]));
        remoteGap = Math.max(remoteGap, nearest);
      }
      await sleep(5);
    }
    const truth = serverPoint(top);
    const finite = errors.filter(Number.isFinite);
    const report = `reconciliation errors (mm): ${errors.map((e) => (e * 1000).toFixed(1)).join(" ")}`;
    expect(finite.length, report).toBeGreaterThan(20);
    // Within 1 cm at (at least) 95% of the snapshots, and never a jump of 2 cm. Single corrections of 1.1-1.8 cm
    // happen in about one run in four: the replay starts from the local velocity, which can differ from the
    // server's after a correction.
    const sorted = [...finite].sort((x, y) => x - y);
    expect(sorted[Math.floor(0.95 * (sorted.length - 1))], report).toBeLessThan(0.01);
    expect(sorted[sorted.length - 1], report).toBeLessThan(0.02);
    expect(truth[1] - start[1]).toBeGreaterThan(0.1);
    expect(remoteGap).toBeLessThan(0.01);
  } finally {
    await a.stop();
    await b.stop();
  }
});
