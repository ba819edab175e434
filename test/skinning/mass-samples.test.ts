// The bake's mass samples stand for the solid: a uniform box's centre of mass at its centre and its second moments
// a box's (x^2 averaged over [-a, a] is a^2 / 3). A fixed stride through the grid's cells once put a cube's samples
// on 4 of its 32 x-planes and its centre of mass 11% of its width off centre.

import { describe, expect, it } from "vitest";
import { boxMesh } from "../../shared/geometry";
import { bakeMesh } from "../../shared/skinning";
import { providerFor } from "../../server/skinning/weights-source";

describe("mass samples", () => {
  for (const [x, y, z] of [[0.2, 0.2, 0.2], [0.3, 0.1, 0.12]]) {
    it(`of a ${x} x ${y} x ${z} m box have its volume, centre and second moments`, async () => {
      const { body } = await bakeMesh(boxMesh(x, y, z), await providerFor("baseline"), { fitCubature: true });
      const half = [x, y, z].map((e) => e / 2 / body.scale);
      let volume = 0;
      const first = [0, 0, 0], second = [0, 0, 0];
      for (let i = 0; i < body.massVolumes.length; i++) {
        const v = body.massVolumes[i];
        volume += v;
        for (let a = 0; a < 3; a++) {
          const p = body.massPositions[3 * i + a];
          first[a] += v * p;
          second[a] += v * p * p;
        }
      }
      expect(volume / (8 * half[0] * half[1] * half[2])).toBeCloseTo(1, 3);
      for (let a = 0; a < 3; a++) {
        expect(Math.abs(first[a] / volume) / half[a], `centre along ${"xyz"[a]}`).toBeLessThan(0.01);
        expect(second[a] / volume / (half[a] ** 2 / 3), `second moment along ${"xyz"[a]}`).toBeCloseTo(1, 1);
      }
    });
  }
});
