// Two copies of one body (a server's and a predicting client's): a grab recreated from the other copy's samples
// and offsets pulls exactly the same way; external point forces act like the equivalent grab-free push.

import { describe, expect, it } from "vitest";
import { FloorContact } from "../../shared/sim";
import { bodyFor, makeBody, minRestY } from "./helpers";

describe("grab replicas and point forces", () => {
  it("grabExactly with another copy's grabbed samples gives bit-identical motion", async () => {
    const loaded = await bodyFor("box:0.2x0.1x0.1");
    const origin = [0, -minRestY(loaded), 0];
    const a = makeBody(loaded, {}, origin), b = makeBody(loaded, {}, origin);
    for (const body of [a, b]) body.addContactSurface(new FloorContact(0));
    const ga = a.grab(0.1, 0.1, 0, { radius: 0.05 });
    const held = a.grabbedSamples(ga);
    expect(held.samples.length).toBeGreaterThan(0);
    const gb = b.grabExactly(held.samples, held.offsets, 0.1, 0.1, 0);
    for (let i = 1; i <= 60; i++) {
      for (const [body, id] of [[a, ga], [b, gb]] as const) body.moveGrab(id, 0.1 + 0.002 * i, 0.1 + 0.003 * i, 0);
      a.step();
      b.step();
    }
    expect(Array.from(b.q)).toEqual(Array.from(a.q));
    expect(() => b.grabExactly([1e6], [0, 0, 0], 0, 0, 0)).toThrow(/surface sample/);
    expect(() => b.grabExactly([0], [Number.NaN, 0, 0], 0, 0, 0)).toThrow(/finite/);
  });

  it("a point force moves the body's centre of mass as F = m a", async () => {
    const loaded = await bodyFor("box:0.2x0.1x0.1");
    const body = makeBody(loaded, { gravity: [0, 0, 0] });
    const rows = body.subspace.surfaceRows;
    const c0 = new Float64Array(3), c1 = new Float64Array(3);
    body.centroid(c0);
    // 2 N along x for 0.1 s, applied at the surface samples (split evenly, so no net torque worth speaking of).
    const steps = 6, count = body.subspace.surfaceCount, force = 2;
    for (let s = 0; s < steps; s++) {
      for (let i = 0; i < count; i++) body.applyForceAt(rows, i, force / count, 0, 0);
      body.step();
    }
    body.centroid(c1);
    const t = steps * body.options.dt, expected = (0.5 * force * t * t) / body.totalMass;
    expect(c1[0] - c0[0]).toBeGreaterThan(0.9 * expected);
    expect(c1[0] - c0[0]).toBeLessThan(1.25 * expected);
  });
});
