// What a predicting client expects of a prop it only knows from snapshots: carried forward on its last speed while
// the snapshots say it moves, and standing still once they leave it out (the server sends a prop only when it has
// moved visibly since it was last sent).

import { describe, expect, it } from "vitest";
import { PLAYGROUND, type SoftEntity } from "../../shared/scene";
import { PredictedScene } from "../../shared/scene/predicted-scene";

const IDENTITY = [0, 0, 0, 1];
/** prepare() reads only the stepped body's bound when no other bodies are known; a body far from the prop. */
const FAR_BODY = { proxies: { bound: new Float64Array([5, 5, 5, 0.1]) } } as unknown as SoftEntity;

function ballScene(): PredictedScene {
  return new PredictedScene(PLAYGROUND, [{ index: 0, shape: "ball", size: 0.06 }], [], 0);
}

describe("a prop known from snapshots, in a predicted step", () => {
  it("is carried forward on its last speed while it moves", () => {
    const scene = ballScene();
    scene.snapshotArrived();
    scene.setPropPose(0, [0, 1, 0, ...IDENTITY], 100);
    scene.snapshotArrived();
    scene.setPropPose(0, [0.03, 1, 0, ...IDENTITY], 103); // 1 cm a tick
    scene.prepare(FAR_BODY, 108);
    expect(scene.props[0].center[0]).toBeCloseTo(0.08, 9);
  });

  it("stands still where it was last sent once a snapshot leaves it out, however long ago that was", () => {
    const scene = ballScene();
    scene.snapshotArrived();
    scene.setPropPose(0, [0, 1, 0, ...IDENTITY], 100);
    scene.snapshotArrived();
    scene.setPropPose(0, [0.03, 1, 0, ...IDENTITY], 103);
    // It struck something and stopped: the next snapshot does not carry it.
    scene.snapshotArrived();
    for (const tick of [106, 118, 400]) {
      scene.prepare(FAR_BODY, tick);
      expect(scene.props[0].center[0], `at tick ${tick}`).toBeCloseTo(0.03, 9);
    }
  });
});
