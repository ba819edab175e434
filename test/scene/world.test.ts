// The room's world without a server: Rapier props and soft bodies act on each other, bodies do not pass through
// each other, and nothing escapes the room.

import { beforeAll, describe, expect, it } from "vitest";
import { loadRapier, PLAYGROUND, SceneWorld, type SceneLayout } from "../../shared/scene";
import { baselineProvider } from "../../shared/skinning";
import { placeBodies, type PlacedBody } from "../../server/world/playground-bodies";

let rapier: Awaited<ReturnType<typeof loadRapier>>;
beforeAll(async () => {
  rapier = await loadRapier();
});

async function world(layout: SceneLayout): Promise<{ world: SceneWorld; placed: PlacedBody[] }> {
  const placed = await placeBodies(layout.bodies, baselineProvider, "baseline");
  return { world: new SceneWorld(rapier, layout, placed.map((p) => p.entity)), placed };
}

function highestPoint(placed: PlacedBody): number {
  const e = placed.entity, s = e.subspace, p = new Float64Array(3);
  let top = -Infinity;
  for (let i = 0; i < s.surfaceCount; i++) {
    e.body.pointPosition(s.surfaceRows, s.surfaceRest, i, p, 0);
    top = Math.max(top, p[1]);
  }
  return top;
}

describe("scene world", () => {
  it("a rigid ball dropped on a soft body lands on it and its weight presses the body down", async () => {
    // A flat slab, so that the ball has something to rest on rather than roll off. Dropped onto it, or far away.
    const run = async (ballX: number) => {
      const layout: SceneLayout = {
        ...PLAYGROUND,
        bodies: [{ id: "dough", mesh: "box:0.3x0.1x0.3", size: 0.3, material: "dough", position: [0, 0, 0] }],
        props: [{ id: "ball", shape: "ball", size: 0.05, position: [ballX, 0.6, 0], density: 2000, color: "#fff" }],
      };
      const { world: w, placed } = await world(layout);
      const e = placed[0].entity, s = e.subspace, p = new Float64Array(3);
      // The top-face sample nearest the middle.
      const restTop = highestPoint(placed[0]);
      let under = 0, best = Infinity;
      for (let i = 0; i < s.surfaceCount; i++) {
        e.body.pointPosition(s.surfaceRows, s.surfaceRest, i, p, 0);
        const d = Math.hypot(p[0], p[1] - restTop, p[2]);
        if (d < best) { best = d; under = i; }
      }
      let lowestBall = Infinity;
      for (let i = 0; i < 240; i++) {
        w.step();
        lowestBall = Math.min(lowestBall, w.props[0].body.translation().y);
      }
      e.body.pointPosition(s.surfaceRows, s.surfaceRest, under, p, 0);
      const result = { top: p[1], ballY: w.props[0].body.translation().y, lowestBall, finite: e.body.q.every(Number.isFinite) };
      w.dispose();
      return result;
    };
    const alone = await run(2);
    const loaded = await run(0);
    // The ball never went through the slab (top at 0.1 m) to the floor (ball centre 0.05).
    expect(loaded.lowestBall).toBeGreaterThan(0.1);
    // Rapier meets the body's proxy spheres, which cover its surface to within 7.5 mm here: the ball may sit up
    // to 1.5 cm into the flat face, never deeper.
    expect(loaded.ballY).toBeGreaterThan(0.135);
    // Its weight (10 N on dough, E = 25 kPa) presses the slab's top down: a global squash of ~0.4 mm in the
    // subspace's terms; without the force coupling it stayed at a tenth of that.
    expect(alone.top - loaded.top).toBeGreaterThan(3e-4);
    expect(alone.top - loaded.top).toBeLessThan(0.02);
    expect(loaded.finite).toBe(true);
  });

  it("two soft bodies pushed together do not pass through each other", async () => {
    const layout: SceneLayout = {
      ...PLAYGROUND,
      props: [],
      bodies: [
        { id: "left", mesh: "box:0.16x0.16x0.16", size: 0.16, material: "rubber", position: [-0.2, 0, 0] },
        { id: "right", mesh: "box:0.16x0.16x0.16", size: 0.16, material: "rubber", position: [0.2, 0, 0] },
      ],
    };
    const { world: w, placed } = await world(layout);
    for (let i = 0; i < 30; i++) w.step();
    const [a, b] = placed.map((p) => p.entity);
    // Drag the left box to where the right one is.
    const grab = a.body.grab(-0.2, 0.08, 0, { radius: 0.1 });
    expect(grab).toBeGreaterThanOrEqual(0);
    for (let i = 1; i <= 120; i++) {
      a.body.moveGrab(grab, -0.2 + 0.4 * Math.min(1, i / 90), 0.08, 0);
      w.step();
    }
    const ca = new Float64Array(3), cb = new Float64Array(3);
    a.body.centroid(ca);
    b.body.centroid(cb);
    // Box centres stay about a box apart: the right box was pushed away, not passed through.
    expect(cb[0] - ca[0]).toBeGreaterThan(0.12);
    expect(cb[0]).toBeGreaterThan(0.22);
    w.dispose();
  });

  it("a body flung out of the room comes back to its spawn", async () => {
    const { world: w, placed } = await world({ ...PLAYGROUND, props: [] });
    const e = placed[0].entity;
    e.body.setState(e.body.q.map((v, i) => (i % (e.body.n / 3) === 3 ? 0 : v)), new Float64Array(e.body.n).map((_, i) => (i === 3 ? 400 : 0)));
    for (let i = 0; i < 60; i++) w.step();
    const c = new Float64Array(3);
    e.body.centroid(c);
    expect(w.escapes).toBeGreaterThan(0);
    expect(Math.abs(c[0] - e.spawn[0])).toBeLessThan(0.2);
    w.dispose();
  });

  it("a resting body falls asleep, stops moving, and wakes when grabbed or when a prop comes near", async () => {
    const layout: SceneLayout = {
      ...PLAYGROUND,
      bodies: [{ id: "jelly", mesh: "box:0.2x0.1x0.2", size: 0.2, material: "jelly", position: [0, 0, 0] }],
      props: [{ id: "ball", shape: "ball", size: 0.04, position: [1.5, 0.3, 0], density: 1000, color: "#fff" }],
    };
    const { world: w, placed } = await world(layout);
    const e = placed[0].entity;
    let asleepAt = -1;
    for (let t = 0; t < 600 && asleepAt < 0; t++) {
      w.step();
      if (w.isAsleep(0)) asleepAt = t;
    }
    expect(asleepAt).toBeGreaterThan(0);
    // Asleep, it does not move at all (a creeping body would keep sending snapshots).
    const before = Float64Array.from(e.body.q);
    for (let t = 0; t < 120; t++) w.step();
    expect(Array.from(e.body.q)).toEqual(Array.from(before));
    // A grab wakes it and moves it.
    const top = highestPoint(placed[0]);
    const grab = e.body.grab(0, top, 0);
    e.body.moveGrab(grab, 0, top + 0.1, 0);
    for (let t = 0; t < 30; t++) w.step();
    expect(w.isAsleep(0)).toBe(false);
    expect(highestPoint(placed[0])).toBeGreaterThan(top + 0.03);
    e.body.release(grab);
    for (let t = 0; t < 600 && !w.isAsleep(0); t++) w.step();
    expect(w.isAsleep(0)).toBe(true);
    // A ball rolled at it wakes it before it arrives, and it is pushed.
    const ball = w.props[0].body;
    ball.setTranslation({ x: 0.5, y: 0.05, z: 0 }, true);
    ball.setLinvel({ x: -2, y: 0, z: 0 }, true);
    const surface = e.body.subspace, resting = new Float64Array(3 * surface.surfaceCount), now = new Float64Array(resting.length);
    e.body.positions(surface.surfaceRows, surface.surfaceRest, resting);
    let woke = false;
    for (let t = 0; t < 60; t++) {
      w.step();
      woke ||= !w.isAsleep(0);
    }
    expect(woke).toBe(true);
    e.body.positions(surface.surfaceRows, surface.surfaceRest, now);
    let moved = 0;
    for (let i = 0; i < now.length; i++) moved = Math.max(moved, Math.abs(now[i] - resting[i]));
    expect(moved, "largest surface sample displacement, m").toBeGreaterThan(1e-4);
  });

  it("a tick whose solver budget runs out leaves the other bodies to step first next tick", async () => {
    const run = async (budgetMs: number) => {
      const placed = await placeBodies(PLAYGROUND.bodies, baselineProvider, "baseline");
      const w = new SceneWorld(rapier, PLAYGROUND, placed.map((p) => p.entity), 1 / 60, budgetMs);
      // Count each body's steps (fewer ticks than it takes a resting body to fall asleep).
      const steps = placed.map(() => 0);
      let iterations = 0, unconverged = 0;
      placed.forEach((p, b) => {
        const step = p.entity.body.step.bind(p.entity.body);
        p.entity.body.step = (deadline?: number) => {
          steps[b]++;
          const stats = step(deadline);
          iterations += stats.iterations;
          if (!stats.converged) unconverged++;
          return stats;
        };
      });
      for (let t = 0; t < 24; t++) w.step();
      // The solver's own account of those steps, summed by the world for the benchmarks.
      expect(w.bodyIterations).toBe(iterations);
      expect(w.bodyIterations).toBeGreaterThanOrEqual(w.bodySteps);
      expect(w.unconvergedSteps).toBe(unconverged);
      return { steps, deferred: w.deferredTicks, escapes: w.escapes, lag: placed.map((_, b) => w.lag(b)), counted: [w.bodySteps, w.putOffSteps, w.droppedSteps] };
    };
    const bodies = PLAYGROUND.bodies.length;
    expect(bodies).toBe(3);
    // No budget: each tick steps one body (the first in turn), so each gets a third of the ticks.
    const starved = await run(0);
    expect(starved.steps).toEqual([8, 8, 8]);
    expect(starved.deferred).toBe(24);
    // Each body knows how many steps it owes the world's tick (none can be caught up without a budget), up to a
    // snapshot's worth: after a long overload a body resumes instead of fast-forwarding.
    expect(starved.lag).toEqual([3, 3, 3]);
    expect(starved.escapes).toBe(0);
    // Counted for the benchmarks: 24 steps taken; two bodies wait each tick, the first 3 times each are owed, the
    // other 13 each are dropped (the body falls a step behind real time).
    expect(starved.counted).toEqual([24, 9, 39]);
    // A budget that is never reached: every body steps every tick.
    const relaxed = await run(1e6);
    expect(relaxed.steps).toEqual([24, 24, 24]);
    expect(relaxed.deferred).toBe(0);
    expect(relaxed.lag).toEqual([0, 0, 0]);
    expect(relaxed.counted).toEqual([72, 0, 0]);
  });

  it("a budget counted from the tick's start: a tick that began long ago steps its first body, stopped at the deadline, and puts the others off", async () => {
    const placed = await placeBodies(PLAYGROUND.bodies, baselineProvider, "baseline");
    const w = new SceneWorld(rapier, PLAYGROUND, placed.map((p) => p.entity), 1 / 60);
    // Everything awake and moving: each body held and pulled 3 cm a tick, so no step converges in one iteration.
    const grabs = placed.map((p) => {
      const at = new Float64Array(3), sub = p.entity.body.subspace;
      p.entity.body.pointPosition(sub.surfaceRows, sub.surfaceRest, 0, at, 0);
      return { id: p.entity.body.grab(at[0], at[1], at[2]), at };
    });
    for (let t = 1; t <= 3; t++) {
      placed.forEach((p, b) => p.entity.body.moveGrab(grabs[b].id, grabs[b].at[0], grabs[b].at[1] + 0.03 * t, grabs[b].at[2]));
      // The tick began 100 ms ago: its 6 ms are long spent.
      w.step(6, performance.now() - 100);
    }
    expect(w.bodySteps).toBe(3);
    expect(w.cutSteps).toBe(3);
    expect(w.unconvergedSteps).toBe(3);
    expect(w.putOffSteps + w.droppedSteps).toBe(6);
    // Each body went first once (turns rotate when the budget runs out) and waited in the other two ticks.
    expect([0, 1, 2].map((b) => w.lag(b))).toEqual([2, 2, 2]);
    w.dispose();
  });
});
