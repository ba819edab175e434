// Where an added body lands: on the layout's widest table top (a drawn box topped within reach), as far as it can be from what already lies there.

import type { SceneLayout } from "./layout";

/** Candidates per side of the table top. */
const GRID = 7;
/** Tops higher than this are not tables (a wall's top), m. */
const TABLE_HEIGHT_LIMIT = 1.3;
/** Kept from the table's edge beyond half the body's size, m. */
const EDGE_MARGIN = 0.05;
/** Clearance from other bodies (in body sizes) beyond which spots are all as good. */
const ENOUGH_CLEARANCE = 0.5;
/** Height above the top a new body's lowest point starts at (it settles from there), m. */
const DROP = 0.02;

/**
 * The spot (x, y of its lowest point, z) for a body of largest extent `size`: the point of a grid over the table
 * top (inset by half the size and a margin) farthest from the `occupied` bounding spheres (x, y, z, radius each),
 * up to ENOUGH_CLEARANCE, then nearest the front. A layout
 * without a table puts it on the floor at the room's centre.
 */
export function landingSpot(layout: SceneLayout, size: number, occupied: readonly number[]): [number, number, number] {
  let table: SceneLayout["statics"][number] | undefined;
  for (const box of layout.statics) {
    const top = box.center[1] + box.half[1];
    if (box.hidden || top <= 0.01 || top > TABLE_HEIGHT_LIMIT) continue;
    if (!table || box.half[0] * box.half[2] > table.half[0] * table.half[2]) table = box;
  }
  if (!table) return [0, DROP, 0];
  const top = table.center[1] + table.half[1];
  const insetX = Math.max(0, table.half[0] - size / 2 - EDGE_MARGIN), insetZ = Math.max(0, table.half[2] - size / 2 - EDGE_MARGIN);
  let best: [number, number, number] = [table.center[0], top + DROP, table.center[2]], bestClearance = -Infinity;
  for (let i = 0; i < GRID; i++) {
    for (let j = 0; j < GRID; j++) {
      const x = table.center[0] - insetX + (2 * insetX * i) / (GRID - 1), z = table.center[2] - insetZ + (2 * insetZ * j) / (GRID - 1);
      // Clear enough is enough: among spots that clear, the one nearest the table's front centre (where visitors
      // stand) wins, not a far corner.
      let clearance = ENOUGH_CLEARANCE * size;
      for (let o = 0; o < occupied.length; o += 4) clearance = Math.min(clearance, Math.hypot(x - occupied[o], z - occupied[o + 2]) - occupied[o + 3]);
      const tieBreak = -1e-3 * Math.hypot(x - table.center[0], z - (table.center[2] + table.half[2]));
      if (clearance + tieBreak > bestClearance) {
        bestClearance = clearance + tieBreak;
        best = [x, top + DROP, z];
      }
    }
  }
  return best;
}
