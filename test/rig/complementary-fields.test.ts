// Fields complementary to a rig (issue 30 item 6, PhysSkin++'s complementarity): the Rayleigh-Ritz finish keeps
// every field mass-orthogonal to each joint subtree's share times each quadratic (rig-regions.ts), so the fox's
// learned handles can make almost none of its rig's motion, at the bind pose and while it runs, where the default
// fields can make most of it. Measured as the mean squared cosine of the principal angles (complementaryDirections).

import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadBody } from "../../server/scenarios/body-from-mesh";
import { rigComplementarity } from "../../server/modes/rig-overlap";
import { modelProvider } from "../../server/skinning/model-provider";
import { boxMesh } from "../../shared/geometry";
import { bakeMesh, ritzFinishProvider, SkinningError, subtreeShares } from "../../shared/skinning";

const FOX = path.resolve(import.meta.dirname, "../../server/assets/fox.glb");
const COMPLEMENTARY = { complementary: true, coordinateProducts: true, polynomialDegree: 3, fieldSquares: true };

describe("subtree shares", () => {
  it("give each vertex the weight of every joint at or above its joints, the top joint carrying all of it", () => {
    // Nodes 0 -> 1 -> 2 (a chain), skin joints on nodes 0, 1 and 2; a vertex split between joints 1 and 2.
    const parents = [-1, 0, 1], jointNodes = [0, 1, 2];
    const { shares, count } = subtreeShares(parents, jointNodes, [1, 2, 0, 0, 0, 0, 0, 0], [0.25, 0.75, 0, 0, 1, 0, 0, 0]);
    expect(count).toBe(3);
    expect(Array.from(shares)).toEqual([1, 1, 0.75, 1, 0, 0]);
  });
});

describe("complementary fields", () => {
  it("the fox's learned handles overlap its rig's motion by under 5 % (the default fields' by over half), at rest and running", async () => {
    const measured: Record<string, ReturnType<typeof rigComplementarity>> = {};
    for (const [name, options] of [["default", {}], ["complementary", COMPLEMENTARY]] as const) {
      const provider = ritzFinishProvider(await modelProvider(), undefined, options);
      const loaded = await loadBody({ mesh: FOX, weights: "model", handles: 16, cubature: 256, size: 0.3, provider });
      measured[name] = rigComplementarity(loaded.baked, "Run");
    }
    const [plain, complementary] = [measured.default!, measured.complementary!];
    console.info(`learned handles' overlap with the rig: default ${plain.bind.learnedOverlap.toFixed(3)} (Run ${plain.clip!.learnedOverlap.mean.toFixed(3)}), complementary ${complementary.bind.learnedOverlap.toFixed(3)} (Run ${complementary.clip!.learnedOverlap.mean.toFixed(3)})`);
    expect(plain.bind.learnedOverlap).toBeGreaterThan(0.5);
    expect(complementary.bind.learnedOverlap).toBeLessThan(0.05);
    expect(complementary.clip!.learnedOverlap.max).toBeLessThan(0.05);
    // The constant handle still moves with the rig's root: the whole subspace overlaps more than its learned part.
    expect(complementary.bind.rigOverlap).toBeGreaterThan(complementary.bind.learnedOverlap);
  }, 600_000);

  it("are refused for a mesh without a rig, with the reason", async () => {
    const provider = ritzFinishProvider(await modelProvider(), undefined, COMPLEMENTARY);
    const refusal = await bakeMesh(boxMesh(0.3, 0.2, 0.1), provider).then(() => null, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(SkinningError);
    expect((refusal as Error).message).toMatch(/complementary fields need a rigged mesh/);
  }, 120_000);
});
