// The fox keeps clear of the props on the floor: in every layout the room ships, round its whole loop, walking
// (with its stops to look around) and running, no surface sample of its body where the rig puts it comes within
// CHARACTER_PROP_CLEARANCE of a floor prop (a ball's sphere, a block's box); and a prop moved onto its loop (a visitor kicked it there, it fell
// off the table) is walked round as widely. The room's own character is driven (RoomCharacter.walk: its director,
// told where the props are, and its rig's pose), tick by tick; the flesh is left out (its limit keeps it within
// centimetres of the rig: fox-pull.test.ts).

import { expect, it } from "vitest";
import { CHARACTER_PROP_CLEARANCE } from "../../shared/rig/character-defaults";
import * as scene from "../../shared/scene";
import { propObstacle, staticObstacle, type CharacterSpec, type PropSpec, type SceneLayout } from "../../shared/scene";
import { RoomCharacter } from "../../server/room/room-character";
import { characterFields, playgroundConfig } from "../../server/room/playground-config";
import { bakeCharacters } from "../../server/world/playground-characters";

const TICK = 1 / 60;

/** Every layout shared/scene exports: what the room can be made of. */
const LAYOUTS = Object.entries(scene).filter(([, value]) => {
  const layout = value as Partial<SceneLayout> | null;
  return typeof layout === "object" && layout !== null && Array.isArray(layout.statics) && Array.isArray(layout.props) && Array.isArray(layout.bodies);
}) as [string, SceneLayout][];

/** A prop resting on the floor (its box's bottom at the floor). */
const onFloor = (prop: PropSpec) => prop.position[1] - prop.size < 0.01;

/** Distance (m) from a point to a prop as laid out: a ball's sphere, a block's box. */
function toProp(prop: PropSpec, x: number, y: number, z: number): number {
  if (prop.shape === "ball") return Math.max(0, Math.hypot(x - prop.position[0], y - prop.position[1], z - prop.position[2]) - prop.size);
  const dx = Math.max(Math.abs(x - prop.position[0]) - prop.size, 0), dy = Math.max(Math.abs(y - prop.position[1]) - prop.size, 0), dz = Math.max(Math.abs(z - prop.position[2]) - prop.size, 0);
  return Math.hypot(dx, dy, dz);
}

/**
 * One lap of a layout's character among `props` (all of them obstacles, as the room has them), in an admin's mode:
 * the nearest its posed surface came to each floor prop's box (m), and where.
 */
async function lap(layout: SceneLayout, spec: CharacterSpec, props: PropSpec[], mode: "auto" | "run"): Promise<{ prop: PropSpec; nearest: number; at: string }[]> {
  const config = playgroundConfig(), fields = await characterFields();
  const [{ bake }] = await bakeCharacters([spec], fields.provider, fields.providerKey, config.fitCubature);
  const obstacles = { statics: layout.statics.map(staticObstacle), props: props.map((p) => propObstacle(p.shape, p.size, p.position)), pokes: [] };
  const fox = new RoomCharacter(spec.id, 0, spec, bake.body, obstacles, TICK);
  fox.setMode(mode);
  const floor = props.filter(onFloor).map((prop) => ({ prop, nearest: Infinity, at: "" }));
  const motion = fox.character.motion, world = new Float64Array(3), [cx, cz] = spec.path.centre;
  const angle = () => Math.atan2(fox.pose.z - cz, fox.pose.x - cx);
  let last = angle(), turned = 0;
  for (let tick = 0; Math.abs(turned) < 2 * Math.PI + 0.5; tick++) {
    expect(tick, "ticks for a lap").toBeLessThan(60 * 120);
    fox.walk();
    motion.poseJoints();
    motion.poseSurface();
    const posed = motion.posedSurface;
    for (let i = 0; i < posed.length; i += 3) {
      motion.toWorld(posed[i], posed[i + 1], posed[i + 2], world);
      for (const near of floor) {
        const d = toProp(near.prop, world[0], world[1], world[2]);
        if (d < near.nearest) { near.nearest = d; near.at = `tick ${tick}, the fox at (${fox.pose.x.toFixed(2)}, ${fox.pose.z.toFixed(2)})`; }
      }
    }
    let step = angle() - last;
    if (step > Math.PI) step -= 2 * Math.PI;
    if (step < -Math.PI) step += 2 * Math.PI;
    turned += step;
    last = angle();
  }
  return floor;
}

it("every shipped layout has a character walking clear of its floor props", () => {
  expect(LAYOUTS.length).toBeGreaterThan(0);
  expect(LAYOUTS.some(([, layout]) => (layout.characters ?? []).length > 0 && layout.props.some(onFloor))).toBe(true);
});

for (const [name, layout] of LAYOUTS) {
  for (const spec of layout.characters ?? []) {
    it(`${name}: the ${spec.id} walks and runs its whole loop at least ${CHARACTER_PROP_CLEARANCE * 100} cm from every floor prop`, async () => {
      for (const mode of ["auto", "run"] as const) {
        for (const { prop, nearest, at } of await lap(layout, spec, layout.props, mode)) {
          console.info(`${name}, ${mode}: the ${spec.id} came within ${(100 * nearest).toFixed(1)} cm of ${prop.id} (${at})`);
          expect(nearest, `${mode}: the ${spec.id} from ${prop.id}, m (${at})`).toBeGreaterThanOrEqual(CHARACTER_PROP_CLEARANCE);
        }
      }
    }, 300_000);

    it(`${name}: a floor prop moved onto the ${spec.id}'s loop is walked round`, async () => {
      const [a, b] = spec.path.radii, [cx, cz] = spec.path.centre;
      const moved = layout.props.filter(onFloor);
      expect(moved.length).toBeGreaterThan(0);
      // Each floor prop in turn on the loop itself, and 10 cm either side of it, at places round the loop.
      for (const [k, prop] of moved.entries()) {
        for (const [j, aside] of [0, -0.1, 0.1].entries()) {
          const angle = (2 * Math.PI * (k * 3 + j)) / (3 * moved.length) + 0.4, nx = b * Math.cos(angle), nz = a * Math.sin(angle), n = Math.hypot(nx, nz);
          const position: [number, number, number] = [cx + a * Math.cos(angle) + (aside * nx) / n, prop.position[1], cz + b * Math.sin(angle) + (aside * nz) / n];
          const props = layout.props.map((p) => (p === prop ? { ...p, position } : p));
          const mode = j === 0 ? "run" : "auto";
          const near = (await lap(layout, spec, props, mode)).find((n) => n.prop.id === prop.id)!;
          console.info(`${name}, ${mode}: ${prop.id} moved to (${position[0].toFixed(2)}, ${position[2].toFixed(2)}), ${aside * 100} cm aside of the loop: the ${spec.id} came within ${(100 * near.nearest).toFixed(1)} cm of it (${near.at})`);
          expect(near.nearest, `${prop.id} at (${position[0].toFixed(2)}, ${position[2].toFixed(2)}): the ${spec.id} from it, m (${near.at})`).toBeGreaterThanOrEqual(CHARACTER_PROP_CLEARANCE);
        }
      }
    }, 600_000);
  }
}
