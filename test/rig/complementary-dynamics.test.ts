// Complementary dynamics on the fox: the soft part a clip stirs stays complementary to the rig (checked point by point
// on the mass samples, apart from the projection's own arithmetic), is there while the fox runs and dies away once
// it stops. And the frame's own motion: uniform motion stirs nothing (Galileo); neither does a uniform acceleration,
// which is a motion the rig makes itself (the constraint's translation rows carry it whole); a spin does, because
// its centrifugal field stretches the body, which no rig motion can.

import path from "node:path";
import { expect, it } from "vitest";
import { CharacterBody } from "../../shared/rig";
import { FLESH } from "../../shared/rig/character-defaults";
import { runAnimate } from "../../server/scenarios/animate";
import { loadBody } from "../../server/scenarios/body-from-mesh";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");
const MATERIAL = { youngsModulus: FLESH.youngsModulus, poissonRatio: FLESH.poissonRatio, density: FLESH.density };

it("the fox running: the soft part is complementary to 1e-6, visibly there, and settles after the stop", async () => {
  const result = await runAnimate({
    mesh: FOX, clip: "Run", seconds: 3, layer: "sim", weights: "eigen", handles: 16, cubature: 256, size: 1,
    ...MATERIAL, damping: FLESH.damping, dt: 1 / 60,
  });
  const s = result.summary;
  console.info(`Run: ${result.complementaryDirections?.min}-${result.complementaryDirections?.max} of ${result.subspace} directions complementary; soft part ${(1000 * s.playingSoftRms).toFixed(2)} mm RMS (peak ${(1000 * s.peakSoftRms).toFixed(2)}), settled ${s.decaySeconds} s after the stop; worst complementarity ${s.worstComplementarity.toExponential(2)}`);
  expect(result.subspace).toBe(204);
  expect(result.rigColumns).toBe(75);
  expect(result.complementaryDirections?.min).toBeGreaterThan(100);
  expect(s.worstComplementarity).toBeLessThan(1e-6);
  // The flesh moves by millimetres while the fox runs (a rigid-looking fox would show micrometres)...
  expect(s.playingSoftRms).toBeGreaterThan(5e-4);
  // ...and is still within a tenth of that before the settling time is up.
  expect(s.decaySeconds).not.toBeNull();
  expect(s.decaySeconds!).toBeLessThan(result.settleSeconds);
  const last = result.frames[result.frames.length - 1];
  expect(last.softRms).toBeLessThan(0.1 * s.playingSoftRms);
  expect(result.frames.every((f) => Number.isFinite(f.energy.kinetic) && Number.isFinite(f.energy.elastic))).toBe(true);
}, 180_000);

it("a frame in uniform motion or uniform acceleration stirs no flesh; a spinning frame does", async () => {
  const loaded = await loadBody({ mesh: FOX, weights: "eigen", handles: 16, cubature: 256, size: 1 });
  const largestRms = (acceleration: number, spin: number) => {
    const character = new CharacterBody(loaded.baked, 1, MATERIAL, { damping: FLESH.damping });
    let largest = 0;
    for (let step = 0; step < 60; step++) {
      const t = step / 60;
      // Walking diagonally at 1.5 m/s, turned 30 degrees; speeding up by `acceleration` m/s^2; turning at `spin` rad/s.
      character.motion.setFrame(1.5 * t + 0.5 * acceleration * t * t, 0, 0.75 * t, Math.PI / 6 + spin * t);
      character.step();
      largest = Math.max(largest, character.softRms());
    }
    return largest;
  };
  const uniform = largestRms(0, 0), accelerating = largestRms(3, 0), spinning = largestRms(0, 3);
  console.info(`largest soft RMS: uniform motion ${uniform.toExponential(2)} m, accelerating at 3 m/s^2 ${accelerating.toExponential(2)} m, spinning at 3 rad/s ${spinning.toExponential(2)} m`);
  expect(uniform).toBeLessThan(1e-9);
  expect(accelerating).toBeLessThan(1e-6);
  expect(spinning).toBeGreaterThan(1e-4);
}, 120_000);
