// Colours tell people apart: two visitors who pick the same (or a nearly equal) colour get different ones, the
// first keeping theirs; a room fuller than the palette still has no two alike.

import { expect, it } from "vitest";
import { uniqueColour } from "../../server/room/player-colours";
import { joinClient, serverRoom, useTestServer } from "./helpers";

const server = useTestServer();

it("two players who ask for the same green get different colours; the first keeps it", async () => {
  const a = await joinClient(server, { create: true, options: { role: "player", name: "A", color: "#4caf50" } });
  const b = await joinClient(server, { roomId: a.room.roomId, options: { role: "player", name: "B", color: "#4caf50" } });
  const c = await joinClient(server, { roomId: a.room.roomId, options: { role: "player", name: "C", color: "#4cb050" } });
  try {
    const players = [...serverRoom(a.room.roomId).state.players.values()];
    const colour = (name: string) => players.find((p) => p.name === name)!.color;
    expect(colour("A")).toBe("#4caf50");
    expect(new Set([colour("A"), colour("B"), colour("C")]).size).toBe(3);
  } finally {
    await Promise.all([a.stop(), b.stop(), c.stop()]);
  }
});

it("a full room's players never look alike, and a crowd of forty seats gets forty colours", () => {
  const taken: string[] = [];
  for (let slot = 0; slot < 40; slot++) taken.push(uniqueColour("#ef5350", taken, slot));
  const rgb = (c: string) => [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16));
  const apart = (x: string, y: string) => { const [a, b] = [rgb(x), rgb(y)]; return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]); };
  // The first eight (a room's players): clearly apart.
  for (let i = 0; i < 8; i++) for (let j = 0; j < i; j++) expect(apart(taken[i], taken[j]), `${taken[i]} against ${taken[j]}`).toBeGreaterThanOrEqual(60);
  expect(new Set(taken).size).toBe(40);
});
