// A provider whose fields go non-finite anywhere the bake evaluates them (a NaN weight, an infinite gradient) is
// refused with a clear error naming it, not baked into a body that would poison the solver.

import { describe, expect, it } from "vitest";
import { boxMesh } from "../../shared/geometry";
import { bakeMesh, baselineProvider, SkinningError, type SkinningFieldProvider } from "../../shared/skinning";

/** The baseline's fields with one entry spoiled: a weight or a gradient of the `at`-th point of every evaluation. */
function spoiled(what: "weight" | "gradient", value: number, at = 3): SkinningFieldProvider {
  return {
    name: "spoiled",
    async fieldsFor(shape, count) {
      const fields = await baselineProvider.fieldsFor(shape, count);
      return {
        count: fields.count,
        async evaluate(points, weights, gradients) {
          await fields.evaluate(points, weights, gradients);
          if (what === "weight") weights[at * count] = value;
          else if (gradients) gradients[3 * at * count + 1] = value;
        },
      };
    },
  };
}

describe("a bake of non-finite fields", () => {
  const box = boxMesh(0.2, 0.15, 0.1), options = { handles: 8, cubature: 64 };

  it("sanity: the unspoiled baseline bakes", async () => {
    const { body } = await bakeMesh(box, baselineProvider, options);
    expect(body.cubatureWeights.every(Number.isFinite)).toBe(true);
  });

  for (const [what, value] of [["weight", Number.NaN], ["weight", Number.POSITIVE_INFINITY], ["gradient", Number.NEGATIVE_INFINITY]] as const) {
    it(`is refused when a ${what} is ${value}`, async () => {
      const failure = bakeMesh(box, spoiled(what, value), options);
      await expect(failure).rejects.toBeInstanceOf(SkinningError);
      await expect(failure).rejects.toThrow(/provider spoiled produced a non-finite/);
    });
  }
});
