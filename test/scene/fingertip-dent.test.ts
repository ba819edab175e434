// A fingertip pressed into the dough ball as it rests on the table (the room's world): the ball dents under it and
// stays under it. Global modes alone (eigen fields, 16 modes) cannot dent locally: pressed, such a ball rolls
// under the finger instead, its pressed point sliding 10-12 mm sideways, with 2.6-3.8 mm of dent where a person
// sees a finger sink in (how far it rolls, and so the figures, moves with the cubature's choice among equally good
// points). Surface bumps beside the modes (shared/skinning/eigen.ts, localFields) give the finger a dent to sit
// in: 5.0-5.7 mm, the pressed point sliding 6.5-8 mm.

import { expect, it } from "vitest";
import { loadRapier, PLAYGROUND, SceneWorld, type SceneLayout } from "../../shared/scene";
import { eigenProviderWith, FIT_CUBATURE_BY_DEFAULT, type SkinningFieldProvider } from "../../shared/skinning";
import { fieldChoice } from "../../server/skinning/weights-source";
import { placeBodies } from "../../server/world/playground-bodies";

const FINGERTIP = 0.015;

/** Presses 1 cm into the top, held a second; the dent against the ball's centre, and how far the pressed point moved sideways (m). */
async function pressDoughBall(provider: SkinningFieldProvider, providerKey: string, fitCubature: boolean): Promise<{ dent: number; down: number; sideways: number }> {
  const layout: SceneLayout = { ...PLAYGROUND, props: [], bodies: PLAYGROUND.bodies.filter((b) => b.id === "dough-ball") };
  const placed = await placeBodies(layout.bodies, provider, providerKey, fitCubature);
  // No solver budget: every tick steps the body, so the run is the same on a loaded machine.
  const world = new SceneWorld(await loadRapier(), layout, placed.map((p) => p.entity), 1 / 60, Infinity);
  for (let i = 0; i < 240; i++) world.step();
  const entity = placed[0].entity, s = entity.subspace, n = s.surfaceCount, p = new Float64Array(3 * n);
  const read = () => entity.body.positions(s.surfaceRows, s.surfaceRest, p);
  const centreY = () => { let c = 0; for (let k = 0; k < n; k++) c += p[3 * k + 1] / n; return c; };
  read();
  let top = 0;
  for (let i = 0; i < n; i++) if (p[3 * i + 1] > p[3 * top + 1]) top = i;
  const [x, y, z] = [p[3 * top], p[3 * top + 1], p[3 * top + 2]], restCentre = centreY();
  // From 4.5 cm above to 1 cm below the top, 5 mm every 8 ticks, then held there for a second.
  for (let depth = -0.045; depth <= 0.0101; depth += 0.005) {
    for (let k = 0; k < 8; k++) { world.setPoke(0, x, y - depth + FINGERTIP, z, FINGERTIP); world.step(); }
  }
  for (let k = 0; k < 60; k++) { world.setPoke(0, x, y - 0.01 + FINGERTIP, z, FINGERTIP); world.step(); }
  read();
  const down = y - p[3 * top + 1];
  return { dent: down - (restCentre - centreY()), down, sideways: Math.hypot(p[3 * top] - x, p[3 * top + 2] - z) };
}

function expectDented(press: { dent: number; down: number; sideways: number }): void {
  expect(press.dent, `dent against the centre (top down ${press.down.toFixed(4)} m)`).toBeGreaterThan(0.003);
  // Under the fingertip still: the pressed point has not moved out from under its radius.
  expect(press.sideways, "the pressed point's sideways travel, m").toBeLessThan(FINGERTIP);
  expect(press.down, "the top never goes below the fingertip").toBeLessThan(0.0105);
}

it("with the default fields, a fingertip pressed 1 cm into the dough ball dents it by more than 3 mm, and the ball stays under it", async () => {
  const fields = await fieldChoice();
  expectDented(await pressDoughBall(fields.provider, fields.providerKey, FIT_CUBATURE_BY_DEFAULT));
}, 120_000);

it("eigen fields dent under a fingertip with 4 surface bumps beside 12 modes; 16 modes alone let the ball roll away", async () => {
  const bumps = await pressDoughBall(eigenProviderWith({ localFields: 4 }), "eigen-local-4", true);
  expectDented(bumps);
  const modes = await pressDoughBall(eigenProviderWith({ localFields: 0 }), "eigen-local-0", true);
  expect(modes.dent, "the modes' dent against the bumps'").toBeLessThan(0.8 * bumps.dent);
  expect(modes.sideways, "the pressed point's sideways travel with modes alone against with bumps, m").toBeGreaterThan(bumps.sideways);
}, 120_000);
