// Folds (fold-release.ts): a body left resting in a local minimum of the reduced elastic energy is put back in its
// rest shape, and that takes energy out, never puts it in; strain the body holds for a reason, or can relax by
// itself, is never taken for one. rough-play whips more ways.

import { describe, expect, it } from "vitest";
import { FloorContact, FoldRelease } from "../../shared/sim";
import { MATERIALS } from "../../shared/scene/materials";
import { bodyFor, makeBody, minRestY, shapeError, totalEnergy } from "./helpers";

const SPOT = "../shared/assets/meshes/spot.obj";
/**
 * Whips tried in turn until one leaves a fold: the hand's reach (m) and the frame its path starts at. Which of them
 * folds is chaotic: it moved with a change of rounding alone (the bake's sums in another order). 1.3 from frame 7 and
 * 1.1 from 0 folded with BAKE_RECIPE 16; 1.4 from 7 and 1.5 from 0 and 7 with 18; 1.3 from 7 and 1.5 from 7 with 19;
 * none of those with a leaner fit that was tried (models/README.md, "A leaner fit, again"), but 1.1 from 3 and 1.4
 * from 0. With the elastic kernel's sums in another order, none of the 15 whips of 1.1-1.5 from 0, 3 or 7 folded.
 * Of 70 (1.0-1.6 from frames 0-9), 8 folded before that change, 6 after it and 9 once the dense kernels' sums
 * changed too; 1.2 from 3 before both changes and after both (not between). Those that folded with some bake or
 * kernel are tried first, then the rest of the grid: with about one whip in ten folding, a grid of 70 all missing
 * is a chance in a thousand.
 */
const FOLDED_BEFORE: [number, number][] = [[1.2, 3], [1.3, 7], [1.5, 7], [1.1, 3], [1.4, 0], [1.1, 0], [1.4, 7], [1.5, 0], [1.5, 8], [1.1, 2]];
const WHIPS: [number, number][] = [
  ...FOLDED_BEFORE,
  ...[1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6].flatMap((reach) => [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((from): [number, number] => [reach, from]))
    .filter(([reach, from]) => !FOLDED_BEFORE.some(([r, f]) => r === reach && f === from)),
];

describe("fold release", () => {
  it("whipped into a fold and let go, the dough comes to rest folded, is released, and the release takes energy out", async () => {
    const loaded = await bodyFor(SPOT, 16, 256, 0.16);
    const placed = () => {
      const body = makeBody(loaded, { damping: MATERIALS.dough.damping }, [0, -minRestY(loaded), 0], MATERIALS.dough);
      body.addContactSurface(new FloorContact(0));
      return body;
    };
    // How far from its rest shape the dough rests on the floor when nobody touched it: it sags under its weight.
    const untouched = placed();
    for (let i = 0; i < 1020; i++) untouched.step();
    const sag = shapeError(untouched, loaded);
    // rough-play's hand path at 1.3 m from its 7th frame left a fold (0.15-0.5 J). Which whip folds is chaotic, so
    // the next is tried when one leaves none.
    let releases: { before: number; after: number; elastic: number }[] = [], body = untouched;
    for (const [reach, from] of WHIPS) {
      body = placed();
      const grab = body.grab(0, 0.1, 0, { radius: 0.1 });
      for (let i = from; i < from + 300; i++) {
        body.moveGrab(grab, (Math.floor(i / 2) % 2 === 0 ? 1 : -1) * reach, 0.5 + 0.3 * Math.sin(i / 7), 0.2 * Math.cos(i / 5));
        body.step();
      }
      body.release(grab);
      releases = [];
      // Left alone for 12 s, and for 12 s after its last release (48 s at most): dough creeps back to rest slowly (a
      // release 7.7 s in left it 9-11 mm off its rest shape for 6 s more, with 0.03 J still to shed).
      let lastRelease = -Infinity;
      for (let i = 0; i < 720 || (i < lastRelease + 720 && i < 2880); i++) {
        const before = totalEnergy(body), elastic = body.energies().elastic;
        if (!body.step().foldReleased) continue;
        releases.push({ before, after: totalEnergy(body), elastic });
        lastRelease = i;
      }
      if (releases.length > 0) break;
    }
    expect(releases.length, "some whip leaves a fold").toBeGreaterThanOrEqual(1);
    for (const release of releases) {
      expect(release.elastic, "a fold holds energy").toBeGreaterThan(0.1);
      // Kinetic, elastic and gravitational: the fold's energy leaves with it, less what its rest shape gains in
      // height (a fold that squashed the dough lowered it). Measured: 0.337 to 0.290 J for a 0.112 J fold that had
      // lowered the centroid 9 mm, 0.870 to 0.429 J for a 0.645 J one.
      expect(release.after).toBeLessThan(release.before - 0.25 * release.elastic);
    }
    // Resting as the untouched dough rests (a fold left it 11-20 mm from its rest shape).
    expect(shapeError(body, loaded)).toBeLessThan(sag + 0.001);
  });

  it("stretched, squashed, sheared, turned and twisted states relax by themselves: none is taken for a fold", async () => {
    const loaded = await bodyFor(SPOT, 16, 256, 0.16);
    const body = makeBody(loaded, { gravity: [0, 0, 0], damping: MATERIALS.jelly.damping }, [0, 0, 0], MATERIALS.jelly);
    const judge = new FoldRelease(body.subspace), m = body.m, gradient = new Float64Array(body.n), centre = new Float64Array(3);
    const folded = (q: Float64Array) => {
      const energy = body.elasticEnergyAndGradient(q, gradient);
      body.setState(q, new Float64Array(body.n));
      body.centroid(centre);
      return judge.folded(q, energy, gradient, centre, [0, 0, 0, 1]);
    };
    // Affine deformations of the whole body (the constant channel's 3 x 3 part, u = G x): strain it undoes by itself.
    const affine = (g: number[]) => {
      const q = new Float64Array(body.n);
      for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) q[a * m + b] = g[3 * a + b];
      return q;
    };
    const c = Math.cos(0.6), sn = Math.sin(0.6);
    const states: Record<string, number[]> = {
      "stretched by a third": [1 / 3, 0, 0, 0, 0, 0, 0, 0, 0],
      "stretched to twice its length": [1, 0, 0, 0, 0, 0, 0, 0, 0],
      "squashed to two thirds": [0, 0, 0, 0, -1 / 3, 0, 0, 0, 0],
      "sheared by 0.5": [0, 0.5, 0, 0, 0, 0, 0, 0, 0],
      "turned 34 degrees and stretched by a quarter": [1.25 * c - 1, 0, sn, 0, 0, 0, -1.25 * sn, 0, c - 1],
    };
    for (const [name, g] of Object.entries(states)) expect(folded(affine(g)), name).toBe(false);
    // A twist: each handle's own rotation about y grows along x (a body wrung like a cloth).
    const twisted = new Float64Array(body.n);
    for (let h = 1; h < body.subspace.handles; h++) {
      const angle = 0.5 * Math.sin(h), ch = Math.cos(angle) - 1, sh = Math.sin(angle);
      twisted[4 * h] = ch; twisted[4 * h + 2] = sh; twisted[2 * m + 4 * h] = -sh; twisted[2 * m + 4 * h + 2] = ch;
    }
    expect(folded(twisted), "twisted").toBe(false);
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
