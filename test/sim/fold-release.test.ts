// Folds (fold-release.ts): a body left resting in a local minimum of the reduced elastic energy is put back in its
// rest shape; strain the body holds for a reason, or can relax by itself, is never taken for one. The whipped
// folds themselves are rough-play's.

import { describe, expect, it } from "vitest";
import { FloorContact, foldJudgedAbove, FOLD_SPEED } from "../../shared/sim";
import { MATERIALS } from "../../shared/scene/materials";
import { bodyFor, makeBody, minRestY } from "./helpers";

const SPOT = "../shared/assets/meshes/spot.obj";

describe("fold release", () => {
  it("a body stretched by a third and let go swings through slow, strained turning points without being taken for a fold", async () => {
    const loaded = await bodyFor(SPOT, 16, 256, 0.16);
    const body = makeBody(loaded, { gravity: [0, 0, 0], damping: MATERIALS.jelly.damping }, [0, 0, 0], MATERIALS.jelly);
    body.q[0] = 0.3; // u_x = 0.3 x on the constant channel: stretched along x
    let judged = 0, released = 0;
    for (let i = 0; i < 240; i++) {
      // What the body judges before a step: slow and strained is where a fold would be looked for.
      if (body.rmsSpeed() < FOLD_SPEED && body.energies().elastic > foldJudgedAbove(body.totalMass, body.size)) judged++;
      if (body.step().foldReleased) released++;
    }
    expect(judged).toBeGreaterThan(0); // it was looked at (the first step at least: stretched and still)
    expect(released).toBe(0);
  });

  it("dough resting on the floor under its own weight is never taken for a fold", async () => {
    const loaded = await bodyFor(SPOT, 16, 256, 0.16);
    const body = makeBody(loaded, { damping: MATERIALS.dough.damping }, [0, 0.05 - minRestY(loaded), 0], MATERIALS.dough);
    body.addContactSurface(new FloorContact(0));
    let released = 0;
    for (let i = 0; i < 600; i++) if (body.step().foldReleased) released++;
    expect(body.energies().elastic).toBeGreaterThan(0); // it sags: strained by its weight
    expect(released).toBe(0);
  });
});
