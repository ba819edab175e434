import { boundsDiagonal } from "./bounds";
import type { Bounds } from "./types";

/**
 * For every vertex, the index of the first earlier (or same) vertex within `tolerance` of it, found with a
 * hash grid of cell size `tolerance` (a match can only lie in the 27 surrounding cells). Vertices not
 * flagged in `include` are left mapped to themselves. Bit-identical duplicates, the common case, are found
 * in the vertex's own cell with one probe.
 */
export function mergeCloseVertices(
  positions: ArrayLike<number>,
  include: Uint8Array,
  bounds: Bounds,
  tolerance: number,
): Uint32Array {
  const vertexCount = include.length;
  const representative = new Uint32Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) representative[v] = v;

  let includedCount = 0;
  for (let v = 0; v < vertexCount; v++) includedCount += include[v];
  // A floor on the cell size keeps cell coordinates within int32 even for a zero tolerance (exact merging).
  const cellSize = Math.max(tolerance, 1e-9 * boundsDiagonal(bounds));
  const tolerance2 = tolerance * tolerance;
  let tableSize = 16;
  while (tableSize < 2 * includedCount) tableSize *= 2;
  const mask = tableSize - 1;
  const table = new Int32Array(tableSize).fill(-1); // vertex index of a representative, or -1 for empty
  const cellOf = new Int32Array(3 * vertexCount);
  const [minX, minY, minZ] = bounds.min;

  const find = (v: number, cx: number, cy: number, cz: number): number => {
    const x = positions[3 * v], y = positions[3 * v + 1], z = positions[3 * v + 2];
    for (let slot = hashCell(cx, cy, cz) & mask; ; slot = (slot + 1) & mask) {
      const r = table[slot];
      if (r < 0) return -1;
      if (cellOf[3 * r] !== cx || cellOf[3 * r + 1] !== cy || cellOf[3 * r + 2] !== cz) continue;
      const dx = positions[3 * r] - x, dy = positions[3 * r + 1] - y, dz = positions[3 * r + 2] - z;
      if (dx * dx + dy * dy + dz * dz <= tolerance2) return r;
    }
  };

  for (let v = 0; v < vertexCount; v++) {
    if (include[v] === 0) continue;
    const cx = Math.floor((positions[3 * v] - minX) / cellSize);
    const cy = Math.floor((positions[3 * v + 1] - minY) / cellSize);
    const cz = Math.floor((positions[3 * v + 2] - minZ) / cellSize);
    let match = find(v, cx, cy, cz);
    for (let n = 0; match < 0 && n < 27; n++) {
      if (n === 13) continue; // own cell, already searched
      match = find(v, cx + (n % 3) - 1, cy + (Math.floor(n / 3) % 3) - 1, cz + Math.floor(n / 9) - 1);
    }
    if (match >= 0) {
      representative[v] = match;
      continue;
    }
    cellOf[3 * v] = cx;
    cellOf[3 * v + 1] = cy;
    cellOf[3 * v + 2] = cz;
    let slot = hashCell(cx, cy, cz) & mask;
    while (table[slot] >= 0) slot = (slot + 1) & mask;
    table[slot] = v;
  }
  return representative;
}

function hashCell(x: number, y: number, z: number): number {
  return (Math.imul(x, 73856093) ^ Math.imul(y, 19349663) ^ Math.imul(z, 83492791)) >>> 0;
}
