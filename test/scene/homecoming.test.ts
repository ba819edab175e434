// A table that never empties (the room's world without a server): a body or prop knocked off the table floats
// back to its spawn after lying on the floor for a while; one that is held, or grabbed on the way, stays with
// the hand; things that start on the floor stay where they are put.

import { Quaternion } from "three";
import { beforeAll, expect, it } from "vitest";
import { AWAY_SECONDS, FLIGHT_SECONDS, loadRapier, PLAYGROUND, SceneWorld, type SceneLayout } from "../../shared/scene";
import { rigidCoordinates } from "../../shared/scene/homecoming";
import { baselineProvider } from "../../shared/skinning";
import { placeBodies, type PlacedBody } from "../../server/world/playground-bodies";

let rapier: Awaited<ReturnType<typeof loadRapier>>;
beforeAll(async () => {
  rapier = await loadRapier();
});

const TABLE_TOP = 0.75;
const layout: SceneLayout = {
  ...PLAYGROUND,
  bodies: PLAYGROUND.bodies.filter((b) => b.id === "dough-ball"),
  props: PLAYGROUND.props.filter((p) => p.id === "ball-1" || p.id === "ball-2"),
};

async function makeWorld(): Promise<{ world: SceneWorld; placed: PlacedBody[] }> {
  const placed = await placeBodies(layout.bodies, baselineProvider, "baseline");
  return { world: new SceneWorld(rapier, layout, placed.map((p) => p.entity), 1 / 60, Infinity), placed };
}

/** Puts the body on the floor at (x, z), tipped over, at rest. */
function dropOnFloor(placed: PlacedBody, x: number, z: number): void {
  const e = placed.entity, body = e.body, q = new Float64Array(body.n);
  const turn = new Quaternion().setFromAxisAngle({ x: 1, y: 0, z: 0 } as never, 1.2);
  rigidCoordinates(q, body.m, body.origin, e.subspace.restCentroid, [x, 0.085, z], turn);
  body.setState(q, new Float64Array(body.n));
  e.updateProxies();
}

function centroid(placed: PlacedBody): Float64Array {
  const c = new Float64Array(3);
  placed.entity.body.centroid(c);
  return c;
}

const spawnCentroid = (placed: PlacedBody) => {
  const e = placed.entity;
  return [0, 1, 2].map((k) => e.spawn[k] + e.subspace.restCentroid[k]);
};

it("a body knocked off the table floats back to its spawn over the table's edge, and a prop does too", async () => {
  const { world, placed } = await makeWorld();
  const ball = world.props[0];
  for (let i = 0; i < 30; i++) world.step();
  dropOnFloor(placed[0], 1.2, 0.8);
  ball.body.setTranslation({ x: 0.8, y: 0.06, z: 0.9 }, true);
  let highest = 0, ticks = 0;
  const limit = Math.round((AWAY_SECONDS + FLIGHT_SECONDS + 3) * 60);
  // It lies on the floor first: nothing moves it for AWAY_SECONDS.
  while (world.homecoming.flights < 2 && ticks < limit) {
    world.step();
    ticks++;
    expect(centroid(placed[0])[1]).toBeLessThan(0.3);
  }
  expect(world.homecoming.flights, "flights started").toBe(2);
  expect(ticks / 60).toBeGreaterThanOrEqual(AWAY_SECONDS - 0.1);
  while (world.homecoming.flying(0) && ticks++ < limit + FLIGHT_SECONDS * 60) {
    world.step();
    highest = Math.max(highest, centroid(placed[0])[1]);
  }
  // Up and over the table's edge, then down onto its spawn.
  expect(highest).toBeGreaterThan(TABLE_TOP + 0.2);
  const home = spawnCentroid(placed[0]), landed = centroid(placed[0]);
  expect(Math.hypot(landed[0] - home[0], landed[1] - home[1], landed[2] - home[2]), "distance from the spawn on landing, m").toBeLessThan(0.005);
  // Where it rests (a ball may roll a little).
  for (let i = 0; i < 120; i++) world.step();
  const at = centroid(placed[0]);
  expect(Math.hypot(at[0] - home[0], at[2] - home[2]), "horizontal distance from the spawn a while later, m").toBeLessThan(0.05);
  expect(Math.abs(at[1] - home[1]), "height against the spawn's, m").toBeLessThan(0.02);
  expect(placed[0].entity.body.rmsSpeed()).toBeLessThan(0.05);
  const spec = layout.props[0].position, t = ball.body.translation();
  expect(Math.hypot(t.x - spec[0], t.z - spec[2]), "the prop's distance from its spawn, m").toBeLessThan(0.05);
  expect(t.y).toBeGreaterThan(TABLE_TOP);
  // The prop that starts on the floor stays where it is.
  const floorBall = world.props[1].body.translation(), floorSpec = layout.props[1].position;
  expect(Math.hypot(floorBall.x - floorSpec[0], floorBall.z - floorSpec[2])).toBeLessThan(0.05);
}, 120_000);

it("a body held off the table stays in the hand, and a grab on the way home ends the flight there", async () => {
  const { world, placed } = await makeWorld();
  const body = placed[0].entity.body;
  dropOnFloor(placed[0], 1.2, 0.8);
  for (let i = 0; i < 5; i++) world.step();
  const start = centroid(placed[0]);
  const grab = body.grab(start[0], start[1] + 0.06, start[2]);
  for (let i = 0; i < Math.round((AWAY_SECONDS + 1) * 60); i++) world.step();
  expect(world.homecoming.flights, "no flight while held").toBe(0);
  body.release(grab);
  let ticks = 0;
  while (world.homecoming.flights < 1 && ticks++ < Math.round((AWAY_SECONDS + 1) * 60)) world.step();
  expect(world.homecoming.flights).toBe(1);
  for (let i = 0; i < Math.round(FLIGHT_SECONDS * 30); i++) world.step();
  expect(world.homecoming.flying(0)).toBe(true);
  const caught = centroid(placed[0]);
  expect(caught[1]).toBeGreaterThan(0.3);
  // By its top (a grab holds the surface near the hand).
  const top = new Float64Array(3), e = placed[0].entity, surface = e.subspace;
  let best = -Infinity;
  for (let i = 0; i < surface.surfaceCount; i++) {
    const p = new Float64Array(3);
    body.pointPosition(surface.surfaceRows, surface.surfaceRest, i, p, 0);
    if (p[1] > best) { best = p[1]; top.set(p); }
  }
  const hand = body.grab(top[0], top[1], top[2]);
  expect(body.activeGrabs()).toBe(1);
  world.step();
  expect(world.homecoming.flying(0), "a grab ends the flight").toBe(false);
  for (let i = 0; i < 60; i++) {
    body.moveGrab(hand, top[0], top[1], top[2]);
    world.step();
  }
  const held = centroid(placed[0]);
  expect(Math.hypot(held[0] - caught[0], held[1] - caught[1], held[2] - caught[2]), "still where it was caught, m").toBeLessThan(0.08);
}, 120_000);
