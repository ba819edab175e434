// A step given a deadline (a room's solver budget for the tick) stops there, unconverged, after its first iteration:
// the body still follows its hand, stays finite, and converges again once it has the time.

import { afterEach, describe, expect, it, vi } from "vitest";
import { allFinite } from "../../shared/sim";
import { bodyFor, makeBody } from "./helpers";

describe("a step's deadline", () => {
  it("a step whose deadline has passed stops after its first iteration, moves towards the hand, and later steps converge", async () => {
    const loaded = await bodyFor("../shared/assets/meshes/spot.obj");
    const body = makeBody(loaded, { gravity: [0, 0, 0] }, [0, 1, 0]);
    const p = new Float64Array(3);
    body.pointPosition(loaded.subspace.surfaceRows, loaded.subspace.surfaceRest, 0, p, 0);
    const grab = body.grab(p[0], p[1], p[2]);
    // A 5 cm jump of the hand: far more than one iteration can solve to the tolerance.
    body.moveGrab(grab, p[0] + 0.05, p[1], p[2]);
    const before = Float64Array.from(body.q);
    const late = body.step(performance.now() - 1);
    expect(late.cutShort).toBe(true);
    expect(late.converged).toBe(false);
    expect(late.iterations).toBe(1);
    expect(allFinite(body.q)).toBe(true);
    // The held point moved towards the hand (it started 5 cm short of it along x).
    const start = p[0];
    body.pointPosition(loaded.subspace.surfaceRows, loaded.subspace.surfaceRest, 0, p, 0);
    expect(p[0] - start).toBeGreaterThan(0.001);
    expect(body.q.some((v, i) => v !== before[i])).toBe(true);
    // Without a deadline the same situation takes several iterations and converges.
    let converged = false, iterations = 0;
    for (let k = 0; k < 5 && !converged; k++) {
      const stats = body.step();
      expect(stats.cutShort).toBe(false);
      converged = stats.converged;
      iterations = Math.max(iterations, stats.iterations);
    }
    expect(converged).toBe(true);
    expect(iterations).toBeGreaterThan(1);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("a deadline that passes during the solve stops it at its next check: fewer iterations than in full, q finite", async () => {
    const loaded = await bodyFor("../shared/assets/meshes/spot.obj");
    const run = (clock?: () => number) => {
      const body = makeBody(loaded, { gravity: [0, 0, 0] }, [0, 1, 0]);
      const p = new Float64Array(3);
      body.pointPosition(loaded.subspace.surfaceRows, loaded.subspace.surfaceRest, 0, p, 0);
      body.moveGrab(body.grab(p[0], p[1], p[2]), p[0] + 0.05, p[1], p[2]);
      if (clock) vi.spyOn(performance, "now").mockImplementation(clock);
      const stats = { ...body.step(clock ? 100 : Infinity) };
      vi.restoreAllMocks();
      return { stats, q: Float64Array.from(body.q) };
    };
    // The clock reads 99 ms at the solve's first check and 101 from then on: the deadline (100) passes during it.
    let reads = 0;
    const cut = run(() => (reads++ === 0 ? 99 : 101));
    const full = run();
    expect(reads).toBeGreaterThanOrEqual(2);
    expect(cut.stats.cutShort).toBe(true);
    expect(cut.stats.converged).toBe(false);
    expect(cut.stats.iterations).toBeGreaterThanOrEqual(2);
    expect(cut.stats.iterations).toBeLessThan(full.stats.iterations);
    expect(full.stats.cutShort).toBe(false);
    expect(allFinite(cut.q)).toBe(true);
  });

  it("a deadline far off changes nothing: the same q bit for bit", async () => {
    const loaded = await bodyFor("../shared/assets/meshes/spot.obj");
    const run = (deadline: () => number | undefined) => {
      const body = makeBody(loaded, {}, [0, 1, 0]);
      const p = new Float64Array(3);
      body.pointPosition(loaded.subspace.surfaceRows, loaded.subspace.surfaceRest, 0, p, 0);
      const grab = body.grab(p[0], p[1], p[2]);
      for (let k = 0; k < 30; k++) {
        body.moveGrab(grab, p[0] + 0.003 * k, p[1] + 0.002 * k, p[2]);
        const d = deadline();
        body.step(d);
      }
      return body.q;
    };
    const free = run(() => undefined), late = run(() => performance.now() + 60_000);
    expect(Array.from(late)).toEqual(Array.from(free));
  });
});
