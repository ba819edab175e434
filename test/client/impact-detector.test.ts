// Impacts heard from the motion a page shows: a ball in free fall is silent, its landing knocks once (as loud as
// it was fast), a frame hitch is not a knock.

import { expect, it } from "vitest";
import { ImpactDetector } from "../../client/src/audio/impact-detector";

const dt = 1 / 72;

it("free fall is silent; the landing knocks once, louder from higher", () => {
  const drop = (height: number) => {
    const detector = new ImpactDetector();
    let y = height, v = 0;
    const knocks: number[] = [];
    for (let frame = 0; frame < 300; frame++) {
      if (y > 0) {
        v -= 9.81 * dt;
        y = Math.max(0, y + v * dt);
      }
      const loudness = detector.update(0, y, 0, dt);
      if (loudness > 0) knocks.push(loudness);
    }
    return knocks;
  };
  const low = drop(0.1), high = drop(0.8);
  expect(low.length).toBe(1);
  expect(high.length).toBe(1);
  expect(high[0]).toBeGreaterThan(low[0]);
  // A 1 cm drop is not a knock.
  expect(drop(0.01)).toEqual([]);
});

it("a long frame (a hitch) is read as a fresh start, not a jump", () => {
  const detector = new ImpactDetector();
  for (let frame = 0; frame < 10; frame++) detector.update(0, 0.8, 0, dt);
  expect(detector.update(0.5, 0.8, 0, 0.5)).toBe(0);
  expect(detector.update(0.5, 0.8, 0, dt)).toBe(0);
  expect(detector.update(0.5, 0.8, 0, dt)).toBe(0);
});
