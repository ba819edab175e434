// The server's own failures are not the client's fault (issue 32): a handler that throws anything but a validation
// error (a solver parameter error) is logged once as the server's, with its stack, the client gets no refusal and no
// strike towards a kick, and the room goes on. A fault is injected by replacing one of the room's handlers in the
// real server (the room's own, or its grabs' start); the same message is refused as before when its input is bad.

import { describe, expect, it, vi } from "vitest";
import { SimParameterError } from "../../shared/sim";
import { joinClient, roundTrip, serverRoom, shownSurfacePoint, ticksPass, topSample, useTestServer, waitUntilShown } from "./helpers";

const server = useTestServer();
const within = { timeout: 20_000, interval: 20 };

describe("server faults", () => {
  it("a handler that fails on the server's side is logged once with its stack; the client is not refused, the room goes on", async () => {
    const player = await joinClient(server, { create: true, options: { name: "Innocent", role: "player" } });
    const room = serverRoom(player.room.roomId), handlers = room as unknown as Record<string, (...args: unknown[]) => unknown>;
    const before = server.logs.length;
    try {
      await waitUntilShown(player);
      const original = handlers.playerSetsMaterial;
      handlers.playerSetsMaterial = () => {
        throw new TypeError("injected fault: undefined is not a function");
      };
      for (let i = 0; i < 30; i++) player.sendRaw("set-material", { body: "spot", material: i % 2 ? "rubber" : "dough" });
      // A grab whose start fails on the server's side (queued, then applied in a tick).
      const grabs = handlers.grabs as unknown as Record<string, (...args: unknown[]) => unknown>;
      const originalStart = grabs.start;
      grabs.start = () => {
        throw new RangeError("injected fault in a grab");
      };
      const results: { ok: boolean; reason?: string }[] = [];
      player.room.onMessage("grab-result", (result: { ok: boolean; reason?: string }) => results.push(result));
      player.sendRaw("grab-start", { hand: "left", body: "spot", point: shownSurfacePoint(player, "spot", topSample(player, "spot")), seq: 7 });
      // The page waiting for its grab hears that it failed.
      await vi.waitFor(() => expect(results.some((r) => !r.ok && /server could not start this grab/.test(r.reason ?? ""))).toBe(true), within);
      await roundTrip(player);
      await ticksPass(room, 10);
      await vi.waitFor(() => expect(server.logs.slice(before).some((l) => /failed on a grab-start message/.test(l))).toBe(true), within);
      const lines = server.logs.slice(before);
      const faults = lines.filter((l) => /the server failed on a set-material message \(not the client's fault\)/.test(l));
      expect(faults.length).toBe(1);
      expect(faults[0]).toMatch(/TypeError: injected fault/);
      expect(faults[0]).toMatch(/\n\s+at /); // the stack, for whoever fixes it
      expect(lines.some((l) => /dropped a message from/.test(l))).toBe(false);
      expect(player.notices.filter((n) => n.kind === "rejected")).toEqual([]);
      expect(room.state.players.has(player.sessionId)).toBe(true);

      // Mended, the same messages work; bad input is still the client's fault.
      handlers.playerSetsMaterial = original;
      grabs.start = originalStart;
      player.sendRaw("set-material", { body: "spot", material: "rubber" });
      await vi.waitFor(() => expect(room.state.bodies.get("spot")!.material).toBe("rubber"), within);
      handlers.playerSetsMaterial = () => {
        throw new SimParameterError("damping must be in [0, 1]");
      };
      player.sendRaw("set-material", { body: "spot", material: "dough" });
      await vi.waitFor(() => expect(player.notices.some((n) => n.kind === "rejected" && /damping must be/.test(n.message))).toBe(true), within);
      handlers.playerSetsMaterial = original;
    } finally {
      await player.stop();
    }
  }, 120_000);
});
