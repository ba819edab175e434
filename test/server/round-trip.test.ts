// Round trips share the SDK's single ping slot (Room.ping keeps only its latest callback): round trips asked at the
// same time, and alongside the client's own once-a-second RTT probe, must all be answered, each by a ping sent
// after it asked, so that what the client sent before has been handled when it resolves.

import { expect, it } from "vitest";
import { joinClient, useTestServer } from "./helpers";

const server = useTestServer();

it("answers every round trip asked at once, after the server has handled what was sent before, and fails them once the client has left", async () => {
  const client = await joinClient(server, { create: true, options: { name: "Pinger", role: "spectator" } });
  // The client's RTT probe pings once a second from the join on: the asks below overlap some of its pings.
  await client.roundTrip();
  // A message the server refuses with a notice: the round trips asked after it resolve only once that has arrived.
  client.sendRaw("grab-move", { hand: "tail", target: [0, 1, 0], seq: 1 });
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(Array.from({ length: 5 }, () => client.roundTrip()));
    expect(answers.every((ms) => Number.isFinite(ms) && ms >= 0)).toBe(true);
    expect(client.notices.some((n) => n.kind === "rejected" && /grab-move/.test(n.message)), "the refusal arrived before the pong").toBe(true);
  }
  await client.stop();
  await expect(client.roundTrip()).rejects.toThrow(/left the room/);
});
