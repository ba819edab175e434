// A body the room adds is built once its bake has come, with the material the room's state gives it then: a player
// who changes it while the bake is on the way must not see the old one until a snapshot happens to correct it.

import { expect, it, vi } from "vitest";
import { boxMesh } from "../../shared/geometry/box-mesh";
import { RoomBodies } from "../../shared/net/client/room-bodies";
import { BodyState, RoomState } from "../../shared/net/state";
import { PLAYGROUND } from "../../shared/scene";
import { bakeMesh, baselineProvider, encodeBakedBody } from "../../shared/skinning";

it("a body whose material changed while its bake was on the way is built with the material the state says now", async () => {
  const { body } = await bakeMesh(boxMesh(0.1, 0.1, 0.1), baselineProvider, { handles: 4, cubature: 32 });
  const bytes = encodeBakedBody(body);
  const state = new RoomState();
  const deliveries: ((bytes: Uint8Array) => void)[] = [];
  const bodies = new RoomBodies({
    state: () => state, closed: () => false, added: () => undefined, leaving: () => undefined,
    fetchBake: () => new Promise((resolve) => deliveries.push(resolve)),
  });
  await bodies.build({ ...PLAYGROUND, bodies: [] });
  state.bodies.set("upload-1", new BodyState({ id: "upload-1", index: 0, bake: "hash", size: 0.1, material: "jelly", spawnY: 1 }));
  bodies.sync();
  await vi.waitFor(() => expect(deliveries.length).toBe(1));
  state.bodies.get("upload-1")!.material = "rubber";
  deliveries[0](bytes);
  await vi.waitFor(() => expect(bodies.bodies.get("upload-1")).toBeDefined());
  expect(bodies.bodies.get("upload-1")!.material).toBe("rubber");
});
