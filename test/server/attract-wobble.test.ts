// The stand's big screen never shows a dead room: while a kiosk watches an idle room, one body at a time bounces
// where it lies, in turn, and lands there; without a kiosk a quiet room stays silent.

import { expect, it, vi } from "vitest";
import { joinClient, serverRoom, ticksPass, useTestServer, waitUntilAtRest } from "./helpers";

// Bounces after 1 s of quiet instead of the default 20, to keep the test short.
const server = useTestServer({ attractWobbleSeconds: 1 });

it("a kiosk in an idle room makes one body at a time bounce, and each lands where it lay; without one, nothing moves", async () => {
  const viewer = await joinClient(server, { create: true, options: { role: "spectator" } });
  const room = serverRoom(viewer.room.roomId), world = room.sceneWorld;
  let kiosk: Awaited<ReturnType<typeof joinClient>> | undefined;
  try {
    await waitUntilAtRest(room);
    // No kiosk: 3 s of the room's time, and every body stays asleep.
    for (let t = 0; t < 6; t++) {
      await ticksPass(room, 30);
      world.bodies.forEach((entity, b) => expect(world.isAsleep(b), `${entity.id} asleep without a kiosk`).toBe(true));
    }
    const rest = world.bodies.map((entity) => {
      const c = new Float64Array(3);
      entity.body.centroid(c);
      return c;
    });

    kiosk = await joinClient(server, { roomId: viewer.room.roomId, options: { role: "spectator", kiosk: true } });
    const bounced: number[] = [];
    await vi.waitFor(() => {
      world.bodies.forEach((_, b) => {
        if (!world.isAsleep(b) && !bounced.includes(b)) bounced.push(b);
      });
      expect(bounced.length, "bodies seen bouncing").toBe(world.bodies.length);
    }, { timeout: 30_000, interval: 10 });
    await kiosk.stop();
    kiosk = undefined;
    await waitUntilAtRest(room);
    world.bodies.forEach((entity, b) => {
      const c = new Float64Array(3);
      entity.body.centroid(c);
      expect(Math.hypot(c[0] - rest[b][0], c[1] - rest[b][1], c[2] - rest[b][2]), `${entity.id} landed where it lay (m)`).toBeLessThan(0.01);
    });
  } finally {
    await Promise.all([viewer.stop(), kiosk?.stop()]);
  }
});

it("a join with a kiosk option that is not a boolean is refused with the reason", async () => {
  await expect(joinClient(server, { create: true, options: { role: "spectator", kiosk: "yes" as unknown as boolean } })).rejects.toThrow(/kiosk must be true or false/);
});
