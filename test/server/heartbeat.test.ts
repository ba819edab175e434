// The keepalive, against a real server: a client whose frames stop while a timer goes on calling keepAlive (a page
// drawing slowly) keeps its grab for more than three silent holds; once the keepalives stop too (a frozen page), the
// room lets go after its silent hold and says why. keepAlive sends only while something is held, at most one per
// KEEPALIVE_MS, within the message budget; a keepalive with fields is dropped like any bad message.

import { describe, expect, it, vi } from "vitest";
import { KEEPALIVE_MS, LIMITS, MESSAGES, TICK_RATE, type GrabResultMessage } from "../../shared/net";
import { SILENT_LET_GO_REASON } from "../../server/room/playground-room";
import { joinClient, pull, serverRoom, shownSurfacePoint, topSample, useTestServer, waitUntilShown } from "./helpers";

const server = useTestServer();
const SILENT_HOLD_TICKS = LIMITS.silentHoldSeconds * TICK_RATE;

async function holdingSpot(name: string) {
  const a = await joinClient(server, { create: true, options: { name, role: "player" } });
  const room = serverRoom(a.room.roomId);
  const entity = room.sceneWorld.bodies.find((e) => e.id === "spot")!;
  await waitUntilShown(a);
  const start = shownSurfacePoint(a, "spot", topSample(a, "spot"));
  expect((await a.grab("right", "spot", start)).ok).toBe(true);
  await pull(a, "right", start, [0, 0.1, 0], 0.3);
  const grabs = () => Array.from({ length: 16 }, (_, id) => entity.body.isGrabbing(id)).filter(Boolean).length;
  expect(grabs()).toBe(1);
  return { a, room, grabs };
}

describe("keepalive", () => {
  it("a client whose frames stop while its keepalive timer goes on keeps its grab past three silent holds, and is let go once that stops too", async () => {
    const { a, room, grabs } = await holdingSpot("Slow");
    const ended: GrabResultMessage[] = [];
    a.onGrabEnded = (result) => ended.push(result);
    // No frames (no grab moves), only the timer's keepalives, as from a page drawing a frame every few seconds.
    await a.stop({ keepConnection: true });
    const heartbeat = setInterval(() => a.keepAlive(), KEEPALIVE_MS / 2);
    const since = room.sceneWorld.tick;
    let lostAfter = -1;
    const watch = setInterval(() => {
      if (lostAfter < 0 && grabs() === 0) lostAfter = room.sceneWorld.tick - since;
    }, 5);
    try {
      await vi.waitFor(() => expect(lostAfter >= 0 || room.sceneWorld.tick - since > 3 * SILENT_HOLD_TICKS).toBe(true), { timeout: 60_000, interval: 20 });
      expect(lostAfter, "ticks after which the room let go of a client sending keepalives").toBe(-1);
    } finally {
      clearInterval(heartbeat);
    }
    // Frozen: nothing at all. The room lets go after its silent hold.
    const frozenAt = room.sceneWorld.tick;
    await vi.waitFor(() => expect(lostAfter).toBeGreaterThanOrEqual(0), { timeout: 30_000, interval: 5 });
    clearInterval(watch);
    expect(since + lostAfter - frozenAt, "ticks from the last keepalive to the let-go").toBeGreaterThanOrEqual(SILENT_HOLD_TICKS - TICK_RATE / 2);
    await vi.waitFor(() => {
      a.update();
      expect(ended.some((r) => !r.ok && r.reason === SILENT_LET_GO_REASON)).toBe(true);
    }, { timeout: 20_000, interval: 20 });
    await a.leave();
  });

  it("is sent only while something is held, at most once per KEEPALIVE_MS; one with fields is dropped with a notice", async () => {
    const { a, room } = await holdingSpot("Counted");
    await a.stop({ keepConnection: true });
    // Asked for on every turn of the event loop for a while: the client sends at most one per KEEPALIVE_MS.
    let sent = 0, asked = 0;
    const startedAt = Date.now();
    await vi.waitFor(() => {
      asked++;
      if (a.keepAlive()) sent++;
      expect(Date.now() - startedAt).toBeGreaterThan(4 * KEEPALIVE_MS);
    }, { timeout: 20_000, interval: 1 });
    const elapsed = Date.now() - startedAt;
    expect(sent, `keepalives sent for ${asked} asked in ${elapsed} ms`).toBeGreaterThanOrEqual(2);
    expect(sent).toBeLessThanOrEqual(Math.floor(elapsed / KEEPALIVE_MS) + 1);
    expect(room.state.grabs.size).toBe(1);
    // Let go: nothing held, nothing to keep.
    a.release("right");
    a.update();
    await vi.waitFor(() => expect(room.state.grabs.size).toBe(0), { timeout: 20_000, interval: 20 });
    await vi.waitFor(() => expect(a.keepAlive(Date.now() + 10 * KEEPALIVE_MS)).toBe(false), { timeout: 5_000, interval: 20 });
    // The room reads a keepalive as `{}` only.
    a.sendRaw(MESSAGES.keepalive, { still: "here" });
    await vi.waitFor(() => expect(a.notices.some((n) => n.kind === "rejected" && /keepalive takes no fields/.test(n.message))).toBe(true), { timeout: 20_000, interval: 20 });
    await a.leave();
  });
});
