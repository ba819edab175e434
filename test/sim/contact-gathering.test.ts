// Which contacts a step gathers when a body meets several surfaces at once: every surface sample within its search
// margin of a surface, sample by sample and surface by surface (the order snapshots merge in), each linearised as
// the half-space through its predicted point. The reference is written out here from the geometry: a floor, a wall
// and a ball, with the body pushed into the floor and the wall and moving over the step.

import { describe, expect, it } from "vitest";
import { NearbyObstacles, SphereObstacle } from "../../shared/scene";
import { FloorContact, PlaneContact } from "../../shared/sim";
import { ContactTerm } from "../../shared/sim/energy/contact";
import { StepState } from "../../shared/sim/step-state";
import { bodyFor, randoms } from "./helpers";

const SIZE = 0.25;

describe("contact gathering", () => {
  it("gathers, sample by sample and surface by surface, every sample within its margin of a floor, a wall and a ball", async () => {
    const loaded = await bodyFor("box:0.2x0.12x0.1", 4, 48);
    const subspace = loaded.subspace, m = subspace.m, n = subspace.n, count = subspace.surfaceCount;
    const state = new StepState(n, 1 / 90);
    const origin = Float64Array.from([0, 0.06, 0]);
    const term = new ContactTerm(subspace, state, origin, SIZE);
    const ball = new SphereObstacle(0.04, [0.02, 0.15, 0]);
    const nearby = new NearbyObstacles([ball]);
    nearby.select(0, 0, 0, 10, 10);
    // The box (0.2 x 0.12 x 0.1) on a floor at y = 0, a wall at x = 0.1 (solid beyond), and the ball on its top.
    term.surfaces.push(new FloorContact(0), new PlaneContact([-1, 0, 0], -0.1), nearby);
    // The step: from a little above the floor to 5 mm into it, a little into the wall, with some deformation.
    state.qCentre.set(randoms(n, 21).map((v) => 0.002 * v));
    state.xHat.set(randoms(n, 22).map((v) => 0.004 * v));
    state.qCentre[m + 3] = 0.005;
    state.xHat[m + 3] = -0.005;
    state.xHat[3] = 0.004;
    term.gather();

    const rows = subspace.surfaceRows, rest = subspace.surfaceRest;
    const expected: { sample: number; normal: number[]; offset: number; gap: number }[] = [];
    for (let s = 0; s < count; s++) {
      const at = [0, 1, 2].map((a) => { let u = 0; for (let j = 0; j < m; j++) u += rows[s * m + j] * state.xHat[a * m + j]; return u; });
      const from = [0, 1, 2].map((a) => { let u = 0; for (let j = 0; j < m; j++) u += rows[s * m + j] * state.qCentre[a * m + j]; return u; });
      const p = [0, 1, 2].map((a) => origin[a] + rest[3 * s + a] + at[a]);
      const margin = 0.02 * SIZE + Math.min(SIZE, 2 * Math.hypot(at[0] - from[0], at[1] - from[1], at[2] - from[2]));
      const toBall = [p[0] - 0.02, p[1] - 0.15, p[2]], length = Math.hypot(...toBall);
      const surfaces = [
        { distance: p[1], normal: [0, 1, 0] },
        { distance: 0.1 - p[0], normal: [-1, 0, 0] },
        { distance: length - 0.04, normal: toBall.map((v) => v / length) },
      ];
      for (const { distance, normal } of surfaces) {
        if (!(distance < margin)) continue;
        expected.push({ sample: s, normal, offset: normal[0] * p[0] + normal[1] * p[1] + normal[2] * p[2] - distance, gap: distance });
      }
    }
    // All three surfaces are met.
    for (const normal of [[0, 1, 0], [-1, 0, 0]]) expect(expected.some((e) => e.normal.every((v, a) => v === normal[a]))).toBe(true);
    // The ball presses down on the top: its normals point down.
    expect(expected.some((e) => e.normal[1] < 0)).toBe(true);
    const c = term.contacts;
    expect(c.count).toBe(expected.length);
    expected.forEach((e, i) => {
      expect(c.sample[i]).toBe(e.sample);
      for (let a = 0; a < 3; a++) expect(c.normal[3 * i + a]).toBeCloseTo(e.normal[a], 12);
      expect(c.offset[i]).toBeCloseTo(e.offset, 12);
      // Penetrating at the prediction: damped and given friction (ContactTerm.predicted).
      expect(term.predicted[i]).toBe(e.gap < 0 ? 1 : 0);
    });
  });
});
