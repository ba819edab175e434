// The server's count of bytes written to clients never goes back when a client leaves: a benchmark's difference over
// a window must keep what went to sockets that closed in it (bench:server's bytes per client per second).

import { expect, it, vi } from "vitest";
import { joinClient, useTestServer, waitUntilShown } from "./helpers";

const server = useTestServer();

it("bytes written to clients keep counting a client that left, and grow while the others stay", async () => {
  const staying = await joinClient(server, { create: true, options: { name: "Stays", role: "spectator" } });
  const leaving = await joinClient(server, { roomId: staying.room.roomId, options: { name: "Leaves", role: "spectator" } });
  await waitUntilShown(staying);
  await waitUntilShown(leaving);
  const counted = server.server.clientBytes;
  expect(counted().open).toBe(2);
  const before = counted().total, closedBefore = counted().closed;
  expect(before).toBeGreaterThan(0);
  await leaving.stop();
  await vi.waitFor(() => expect(counted().open).toBe(1), { timeout: 20_000, interval: 20 });
  expect(counted().closed, "bytes counted for sockets that closed").toBeGreaterThan(closedBefore);
  const afterLeaving = counted().total;
  expect(afterLeaving, "the total once a client left against just before, bytes").toBeGreaterThanOrEqual(before);
  // Snapshots go on to the one that stayed.
  await vi.waitFor(() => expect(counted().total).toBeGreaterThan(afterLeaving), { timeout: 20_000, interval: 50 });
  await staying.stop();
});
