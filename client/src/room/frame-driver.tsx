// Orders each frame: room client update (prediction) first, then everyone's scene updates (priority -1), then
// the draw, timing each part for the HUD and the benchmark.

import { useFrame } from "@react-three/fiber";
import type { PliantRoomClient } from "../../../shared/net";
import { frameStats } from "../hud/frame-stats";

export function FrameDriver({ client }: { client: PliantRoomClient | null }) {
  useFrame(() => {
    const now = performance.now();
    frameStats.beginFrame(now);
    const before = client?.frameNumber ?? 0;
    client?.update();
    frameStats.simulationDone(performance.now(), (client?.frameNumber ?? 0) - before);
  }, -2);
  // A positive priority hands the draw to us (R3F stops its own), so it can be timed.
  useFrame(({ gl, scene, camera }) => {
    frameStats.beginRender(performance.now());
    gl.render(scene, camera);
    frameStats.endFrame(performance.now());
  }, 1);
  return null;
}
