// Velocity skinning's floppy term on the fox: each surface sample lags behind its own motion by the floppiness,
// seen from the frame. A frame carried at a steady velocity with the pose held moves every sample alike, so every
// sample lags by -k v turned into the frame; a still rig shows nothing; and the fit finds k back from such lags.

import path from "node:path";
import { expect, it } from "vitest";
import { fitFloppiness, VelocitySkinning } from "../../shared/rig";
import { loadBody } from "../../server/scenarios/body-from-mesh";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");

it("a frame carried at a steady velocity makes every sample lag by -k v in the frame; a still one, none; the fit finds k", async () => {
  const loaded = await loadBody({ mesh: FOX, weights: "baseline", handles: 8, cubature: 64, size: 1 });
  const k = 0.03, hz = 60, yaw = Math.PI / 6, velocity = [1.5, 0.2, 0.75];
  const layer = new VelocitySkinning(loaded.baked, 1, k);
  const survey = layer.motion.rig.clips.find((c) => c.name === "Survey")!;
  // In the frame (R^T for a turn about +y, as RigMotion.toFrame).
  const inFrame = [Math.cos(yaw) * velocity[0] - Math.sin(yaw) * velocity[2], velocity[1], Math.sin(yaw) * velocity[0] + Math.cos(yaw) * velocity[2]];
  const velocities: Float64Array[] = [], lags: Float64Array[] = [];
  for (let step = 0; step < 10; step++) {
    const t = step / hz;
    layer.pose.sample(survey, 0.5);
    layer.motion.setFrame(velocity[0] * t, velocity[1] * t, velocity[2] * t, yaw);
    layer.step(1 / hz);
    let worst = 0;
    for (let i = 0; i < layer.displacement.length; i += 3) {
      for (let a = 0; a < 3; a++) worst = Math.max(worst, Math.abs(layer.displacement[i + a] - (step === 0 ? 0 : -k * inFrame[a])));
    }
    expect(worst, `step ${step}: the largest difference from the expected lag, m`).toBeLessThan(1e-9);
    velocities.push(Float64Array.from(layer.velocity));
    lags.push(Float64Array.from(layer.displacement));
  }
  expect(fitFloppiness(velocities, lags)).toBeCloseTo(k, 12);

  const still = new VelocitySkinning(loaded.baked, 1, k);
  for (let step = 0; step < 5; step++) {
    still.pose.sample(survey, 0.5);
    still.motion.setFrame(0.2, 0, -0.1, yaw);
    still.step(1 / hz);
  }
  expect(Math.max(...still.displacement.map(Math.abs))).toBeLessThan(1e-12);
  // Nothing moving says nothing about the lag: the fit gives 0, whatever the targets.
  expect(fitFloppiness([new Float64Array(6)], [Float64Array.of(1, 2, 3, 4, 5, 6)])).toBe(0);
}, 120_000);
