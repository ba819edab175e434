// Prediction and reconciliation over a bad network: 100 ms round trip, 20 ms jitter, 2% of poses, grab moves and
// snapshots lost (simulated in the clients, both directions).

import { afterAll, beforeAll, expect, it } from "vitest";
import type { NetworkConditions } from "../../shared/net";
import { joinClient, serverRoom, shownSurfacePoint, sleep, startTestServer, topSample, type TestServer } from "./helpers";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.server.close();
});

const BAD_NETWORK: NetworkConditions = { latencyMs: 50, jitterMs: 20, loss: 0.02 };

it("the grabber's prediction stays within 1 cm of the server and remote viewers converge within 200 ms", async () => {
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
    const stoppedAt = Date.now();
    while (Date.now() - stoppedAt < 250) {
      if (body.lastReconcileError !== lastSeen) errors.push((lastSeen = body.lastReconcileError));
      await sleep(5);
    }
    // Remote viewer, 200 ms + the one-way latency after the last input: where the server has the body now.
    const seen = shownSurfacePoint(b, "spot", top), truth = serverPoint(top);
    const remoteGap = Math.hypot(seen[0] - truth[0], seen[1] - truth[1], seen[2] - truth[2]);
    const finite = errors.filter(Number.isFinite);
    const report = `reconciliation errors (mm): ${errors.map((e) => (e * 1000).toFixed(1)).join(" ")}`;
    expect(finite.length, report).toBeGreaterThan(20);
    expect(Math.max(...finite), report).toBeLessThan(0.01);
    expect(truth[1] - start[1]).toBeGreaterThan(0.1);
    expect(remoteGap).toBeLessThan(0.01);
  } finally {
    await a.stop();
    await b.stop();
  }
});
