// An idle room falls silent: once nothing visibly moves, no snapshots go out, props included (a ball left resting
// on a jelly is never put to sleep by the physics engine, but it no longer moves either).

import { Client } from "@colyseus/sdk";
import { expect, it, vi } from "vitest";
import { MESSAGES } from "../../shared/net";
import { PLAYGROUND } from "../../shared/scene";
import { configurePlayground } from "../../server/room/playground-config";
import { serverRoom, useTestServer } from "./helpers";

// The fox walks for ever (a room with a character is never idle): this room is the playground without it.
configurePlayground({ layout: { ...PLAYGROUND, characters: [] } });
const server = useTestServer();
const SILENCE_MS = 5000;

it("sends nothing within 5 s of the last motion, with a ball come to rest on the jelly", async () => {
  const watcher = await new Client(server.endpoint).join("playground", { role: "spectator", name: "Watcher" });
  const room = serverRoom(watcher.roomId);
  let last = Date.now(), count = 0;
  watcher.onMessage(MESSAGES.snapshot, () => {
    last = Date.now();
    count++;
  });
  try {
    // A ball dropped onto spot: it bounces, rolls and comes to rest on the jelly.
    const spot = room.sceneWorld.bodies.find((b) => b.id === "spot")!;
    const ball = room.sceneWorld.props.find((p) => p.spec.shape === "ball")!.body;
    ball.setTranslation({ x: spot.spawn[0], y: spot.spawn[1] + 0.5, z: spot.spawn[2] }, true);
    ball.setLinvel({ x: 0, y: 0, z: 0 }, true);
    await vi.waitFor(() => expect(count).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    // The ball and the jelly settle within seconds; 5 s later the room is silent. (Before props were sent only when
    // they moved visibly, the ball resting on the jelly went out in every snapshot for over a minute.)
    await vi.waitFor(() => expect(Date.now() - last).toBeGreaterThan(SILENCE_MS), { timeout: 40_000, interval: 100 });
  } finally {
    await watcher.leave();
  }
}, 120_000);
