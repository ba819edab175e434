// Where an added body lands: on the layout's table top (tableTop), as far as it can be from what already lies there.

import type { SceneLayout } from "./layout";
import { tableTop } from "./table-alignment";

/** Candidates per side of the table top. */
const GRID = 7;
/** Kept from the table's edge beyond half the body's size, m. */
const EDGE_MARGIN = 0.05;
/** Clearance from other bodies (in body sizes) beyond which spots are all as good. */
export const ENOUGH_CLEARANCE = 0.5;
/** Height above the top a new body's lowest point starts at (it settles from there), m. */
const DROP = 0.02;

/**
 * The spot (x, y of its lowest point, z) for a body of largest extent `size`: the point of a grid over the table
 * top (inset by half the size and a margin) farthest from the `occupied` bounding spheres (x, y, z, radius each),
 * up to ENOUGH_CLEARANCE, then nearest the front. A layout without a table puts it on the floor at the room's
 * centre.
 */
export function landingSpot(layout: SceneLayout, size: number, occupied: readonly number[]): [number, number, number] {
  const table = tableTop(layout);
  if (!table) return [0, DROP, 0];
  const top = table.y;
  const insetX = Math.max(0, table.halfX - size / 2 - EDGE_MARGIN), insetZ = Math.max(0, table.halfZ - size / 2 - EDGE_MARGIN);
  let best: [number, number, number] = [table.x, top + DROP, table.z], bestClearance = -Infinity;
  for (let i = 0; i < GRID; i++) {
    for (let j = 0; j < GRID; j++) {
      const x = table.x - insetX + (2 * insetX * i) / (GRID - 1), z = table.z - insetZ + (2 * insetZ * j) / (GRID - 1);
      // Clear enough is enough: among spots that clear, the one nearest the table's front centre (where visitors
      // stand) wins, not a far corner.
      let clearance = ENOUGH_CLEARANCE * size;
      for (let o = 0; o < occupied.length; o += 4) clearance = Math.min(clearance, Math.hypot(x - occupied[o], z - occupied[o + 2]) - occupied[o + 3]);
      const tieBreak = -1e-3 * Math.hypot(x - table.x, z - (table.z + table.halfZ));
      if (clearance + tieBreak > bestClearance) {
        bestClearance = clearance + tieBreak;
        best = [x, top + DROP, z];
      }
    }
  }
  return best;
}
