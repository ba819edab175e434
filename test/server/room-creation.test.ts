// A new room must not take a running room's ticks: what its bodies need that depends only on their bakes (the
// decoded bake, the solver's subspace, the proxy cover: a quarter second a body to build) is shared with the rooms
// already running, not rebuilt. (How long a creation blocks is measured in the note, not asserted here.)

import { matchMaker } from "@colyseus/core";
import { expect, it } from "vitest";
import { ROOM_NAME } from "../../shared/net";
import { serverRoom, useTestServer } from "./helpers";

const server = useTestServer();

it("a new room shares its bodies' bakes, subspaces and proxy covers with the running room", async () => {
  const running = serverRoom(server.server.publicRoomId);
  const created = serverRoom((await matchMaker.createRoom(ROOM_NAME, {})).roomId);
  try {
    const before = running.sceneWorld.bodies, after = created.sceneWorld.bodies;
    expect(after.map((b) => b.id)).toEqual(before.map((b) => b.id));
    after.forEach((body, i) => {
      expect(body.baked, `${body.id}'s bake`).toBe(before[i].baked);
      expect(body.subspace, `${body.id}'s subspace`).toBe(before[i].subspace);
      expect(body.proxyRest, `${body.id}'s proxy cover`).toBe(before[i].proxyRest);
      // Each room still steps its own solver body.
      expect(body.body).not.toBe(before[i].body);
    });
  } finally {
    await created.disconnect();
  }
});
