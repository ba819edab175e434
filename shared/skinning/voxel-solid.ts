// A shape's solid as a voxel grid for the weight-space Laplacian: cells classified by the inside test (so holes,
// gaps and self-intersections are handled as the bake handles them), each cell weighted by the share of it that
// is inside (a fictitious-domain trilinear finite element: a staircase boundary without the staircase's extra
// stiffness), the unknowns numbered by nested dissection so that the sparse Cholesky factor stays small.

import { insideAtGrid, type InsideTest } from "../geometry";
import type { UpperCsc } from "../linalg/sparse-cholesky";
import { SkinningError } from "./fields";

export interface VoxelSolidOptions {
  /** Cells inside the solid to aim for (the resolution follows from the solid's volume). */
  targetCells: number;
  /** At most this many cells along any axis. */
  maxCellsPerAxis: number;
  /** Share of the box [min, max] inside the solid, when known (else a coarse probe measures it). */
  filledShare?: number;
}

export interface GridFrame {
  /** Cells along x, y, z (nodes are one more). */
  cells: [number, number, number];
  origin: [number, number, number];
  /** Cell edge length. */
  spacing: number;
}

export interface VoxelSolid extends GridFrame {
  /** Per grid node (x fastest): its unknown, or -1 where no inside cell touches it. */
  unknownOf: Int32Array;
  unknowns: number;
  /** Integral of grad u . grad v, upper triangle. */
  stiffness: UpperCsc;
  /** Lumped mass (integral of each node's hat function over the inside). */
  mass: Float64Array;
}

/** Cells per axis of the first, coarse pass that estimates the solid's share of its box. */
const PROBE_CELLS = 16;
/** Sub-boxes with at most this many nodes are numbered as they are (the leaves of the dissection). */
const DISSECTION_LEAF = 64;

export function voxelSolid(inside: InsideTest, min: ArrayLike<number>, max: ArrayLike<number>, options: VoxelSolidOptions): VoxelSolid {
  const extent = [0, 1, 2].map((a) => max[a] - min[a]);
  const largest = Math.max(...extent);
  if (!(largest > 0) || !Number.isFinite(largest)) throw new SkinningError("the shape has no extent to discretise");
  // A probe that finds nothing inside (a thin plate between its centres) counts as one cell in its whole grid.
  const filled = Math.max(options.filledShare ?? insideShare(inside, min, extent, largest / PROBE_CELLS), PROBE_CELLS ** -3);
  const boxVolume = extent.reduce((a, b) => a * Math.max(b, largest / PROBE_CELLS), 1);
  let spacing = Math.cbrt((filled * boxVolume) / options.targetCells);
  spacing = Math.max(spacing, largest / options.maxCellsPerAxis);
  let frame = gridOver(min, max, spacing), share: Float64Array, insideCells: number;
  // A shape thinner than the probe saw (a plate) gets far fewer cells than aimed at: halve the cells until it has enough.
  for (;;) {
    share = cellShares(inside, frame);
    insideCells = 0;
    for (let c = 0; c < share.length; c++) if (share[c] > 0) insideCells++;
    const finer = frame.spacing / 2;
    if (insideCells >= options.targetCells / 4 || largest / finer > options.maxCellsPerAxis) break;
    frame = gridOver(min, max, finer);
  }
  if (insideCells === 0) throw new SkinningError("no grid cell is inside the shape: the mesh encloses no volume");
  keepLargestPiece(frame, share);
  const { unknownOf, unknowns } = dissectionOrder(frame, share);
  const mass = lumpedMass(frame, share, unknownOf, unknowns);
  const stiffness = laplacian(frame, share, unknownOf, unknowns);
  return { ...frame, unknownOf, unknowns, stiffness, mass };
}

/**
 * Zeroes the cells of every piece but the largest (cells sharing a node are joined: they share unknowns). A piece
 * the grid cut off (a horn or a tail thinner than a cell at its root) would have its own rigid motions: fields
 * constant on it, useless; cut off, its points take the values of the nearest solid (GridFields' fill).
 */
function keepLargestPiece(frame: GridFrame, share: Float64Array): void {
  const [nx, ny, nz] = frame.cells;
  const piece = new Int32Array(share.length).fill(-1), sizes: number[] = [], stack: number[] = [];
  for (let start = 0; start < share.length; start++) {
    if (share[start] === 0 || piece[start] >= 0) continue;
    const id = sizes.length;
    let volume = 0;
    piece[start] = id;
    stack.push(start);
    while (stack.length > 0) {
      const c = stack.pop()!;
      volume += share[c];
      const i = c % nx, j = Math.floor(c / nx) % ny, k = Math.floor(c / (nx * ny));
      for (let dk = -1; dk <= 1; dk++) for (let dj = -1; dj <= 1; dj++) for (let di = -1; di <= 1; di++) {
        const a = i + di, b = j + dj, e = k + dk;
        if (a < 0 || b < 0 || e < 0 || a >= nx || b >= ny || e >= nz) continue;
        const other = cellIndex(frame, a, b, e);
        if (share[other] === 0 || piece[other] >= 0) continue;
        piece[other] = id;
        stack.push(other);
      }
    }
    sizes.push(volume);
  }
  const largest = sizes.indexOf(Math.max(...sizes));
  for (let c = 0; c < share.length; c++) if (piece[c] !== largest) share[c] = 0;
}

/** Cells of edge `spacing` covering the box, centred on it. */
function gridOver(min: ArrayLike<number>, max: ArrayLike<number>, spacing: number): GridFrame {
  const cells = [0, 1, 2].map((a) => Math.max(1, Math.ceil((max[a] - min[a]) / spacing))) as [number, number, number];
  const origin = [0, 1, 2].map((a) => (min[a] + max[a]) / 2 - (cells[a] * spacing) / 2) as [number, number, number];
  return { cells, origin, spacing };
}

/** Share of a coarse grid's cell centres that are inside. */
function insideShare(inside: InsideTest, min: ArrayLike<number>, extent: number[], step: number): number {
  const n = extent.map((e) => Math.max(1, Math.round(e / step))) as [number, number, number], cell = [0, 1, 2].map((a) => extent[a] / n[a]);
  const centres = new Float64Array(3 * n[0] * n[1] * n[2]);
  for (let k = 0, c = 0; k < n[2]; k++) for (let j = 0; j < n[1]; j++) for (let i = 0; i < n[0]; i++, c++) {
    centres[3 * c] = min[0] + (i + 0.5) * cell[0];
    centres[3 * c + 1] = min[1] + (j + 0.5) * cell[1];
    centres[3 * c + 2] = min[2] + (k + 0.5) * cell[2];
  }
  const found = insideAtGrid(inside, n, min, cell, centres);
  let count = 0;
  for (let c = 0; c < found.length; c++) count += found[c];
  return count / found.length;
}

/**
 * Inside share of each cell whose centre is inside, from its centre (half) and its eight corners (a sixteenth
 * each); 0 for the others. Cells joined only through their corners' shares would bridge gaps under a cell wide
 * (two legs close together), so a cell belongs to the solid only by its centre.
 */
function cellShares(inside: InsideTest, frame: GridFrame): Float64Array {
  const [nx, ny, nz] = frame.cells, [ox, oy, oz] = frame.origin, h = frame.spacing;
  const nodes = new Float64Array(3 * (nx + 1) * (ny + 1) * (nz + 1));
  for (let k = 0, node = 0; k <= nz; k++) for (let j = 0; j <= ny; j++) for (let i = 0; i <= nx; i++, node++) {
    nodes[3 * node] = ox + i * h;
    nodes[3 * node + 1] = oy + j * h;
    nodes[3 * node + 2] = oz + k * h;
  }
  // The nodes are the centres of the cells of a grid half a cell off (when the test can classify a grid coherently).
  const cornerInside = insideAtGrid(inside, [nx + 1, ny + 1, nz + 1], [ox - h / 2, oy - h / 2, oz - h / 2], [h, h, h], nodes);
  const share = new Float64Array(nx * ny * nz);
  const cornersOf = new Uint8Array(nx * ny * nz), centres = new Float64Array(3 * nx * ny * nz);
  let open = 0;
  for (let k = 0, c = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, c++) {
    let corners = 0;
    for (let corner = 0; corner < 8; corner++) corners += cornerInside[nodeIndex(frame, i + (corner & 1), j + ((corner >> 1) & 1), k + (corner >> 2))];
    cornersOf[c] = corners;
    if (corners < 8) open++;
    centres[3 * c] = ox + (i + 0.5) * h;
    centres[3 * c + 1] = oy + (j + 0.5) * h;
    centres[3 * c + 2] = oz + (k + 0.5) * h;
  }
  // A cell with every corner inside is taken as inside (a hole narrower than a cell is missed either way); the others
  // by their centres, all at once when that is cheaper than one by one.
  const centreInside = inside.containsInGrid && open > share.length / 8 ? inside.containsInGrid([nx, ny, nz], [ox, oy, oz], [h, h, h], centres) : undefined;
  for (let c = 0; c < share.length; c++) {
    const corners = cornersOf[c];
    const centre = corners === 8 || (centreInside ? centreInside[c] === 1 : inside.contains(centres[3 * c], centres[3 * c + 1], centres[3 * c + 2]));
    share[c] = centre ? 0.5 + corners / 16 : 0;
  }
  return share;
}

function nodeIndex(frame: GridFrame, i: number, j: number, k: number): number {
  const [nx, ny] = frame.cells;
  return i + (nx + 1) * (j + (ny + 1) * k);
}

function cellIndex(frame: GridFrame, i: number, j: number, k: number): number {
  const [nx, ny] = frame.cells;
  return i + nx * (j + ny * k);
}

/**
 * Nested dissection on the node grid: split the box across its longest axis by a plane of nodes, number both
 * halves (recursively), then the plane. The trilinear stencil couples only neighbouring planes, so the halves
 * never couple and the factor fills in only where the separators meet.
 */
function dissectionOrder(frame: GridFrame, share: Float64Array): { unknownOf: Int32Array; unknowns: number } {
  const [nx, ny, nz] = frame.cells, sx = nx + 1, sxy = (nx + 1) * (ny + 1);
  // A node is active when it is a corner of some inside cell.
  const active = new Uint8Array((nx + 1) * (ny + 1) * (nz + 1));
  for (let k = 0, c = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, c++) {
    if (share[c] === 0) continue;
    const node = i + sx * j + sxy * k;
    active[node] = active[node + 1] = active[node + sx] = active[node + sx + 1] = 1;
    active[node + sxy] = active[node + sxy + 1] = active[node + sxy + sx] = active[node + sxy + sx + 1] = 1;
  }
  const unknownOf = new Int32Array(active.length).fill(-1);
  let next = 0;
  const numberBox = (lo: number[], hi: number[]) => {
    for (let k = lo[2]; k <= hi[2]; k++) for (let j = lo[1]; j <= hi[1]; j++) for (let i = lo[0]; i <= hi[0]; i++) {
      const node = i + sx * j + sxy * k;
      if (active[node]) unknownOf[node] = next++;
    }
  };
  const dissect = (boxLo: number[], boxHi: number[]) => {
    // Shrink to the active nodes' bounds, and count them per plane along each axis.
    let loI = Infinity, loJ = Infinity, loK = Infinity, hiI = -Infinity, hiJ = -Infinity, hiK = -Infinity, count = 0;
    for (let k = boxLo[2]; k <= boxHi[2]; k++) for (let j = boxLo[1]; j <= boxHi[1]; j++) for (let i = boxLo[0]; i <= boxHi[0]; i++) {
      if (!active[i + sx * j + sxy * k]) continue;
      count++;
      if (i < loI) loI = i;
      if (i > hiI) hiI = i;
      if (j < loJ) loJ = j;
      if (j > hiJ) hiJ = j;
      if (k < loK) loK = k;
      if (k > hiK) hiK = k;
    }
    if (count === 0) return;
    const lo = [loI, loJ, loK], hi = [hiI, hiJ, hiK];
    const size = [0, 1, 2].map((a) => hi[a] - lo[a] + 1);
    if (count <= DISSECTION_LEAF || Math.max(...size) < 3) {
      numberBox(lo, hi);
      return;
    }
    // The separator: the plane across the longest axis with the fewest nodes among those that leave at least a
    // third of the nodes on either side.
    const axis = size.indexOf(Math.max(...size)), perPlane = new Int32Array(size[axis]);
    for (let k = lo[2]; k <= hi[2]; k++) for (let j = lo[1]; j <= hi[1]; j++) for (let i = lo[0]; i <= hi[0]; i++) {
      if (active[i + sx * j + sxy * k]) perPlane[(axis === 0 ? i : axis === 1 ? j : k) - lo[axis]]++;
    }
    let before = 0, middle = (lo[axis] + hi[axis]) >> 1, fewest = Infinity;
    for (let p = 1; p + 1 < size[axis]; p++) {
      before += perPlane[p - 1];
      const after = count - before - perPlane[p];
      if (before >= count / 3 && after >= count / 3 && perPlane[p] < fewest) {
        fewest = perPlane[p];
        middle = lo[axis] + p;
      }
    }
    const leftHi = hi.slice(), rightLo = lo.slice(), planeLo = lo.slice(), planeHi = hi.slice();
    leftHi[axis] = middle - 1;
    rightLo[axis] = middle + 1;
    planeLo[axis] = planeHi[axis] = middle;
    dissect(lo, leftHi);
    dissect(rightLo, hi);
    numberBox(planeLo, planeHi);
  };
  dissect([0, 0, 0], [nx, ny, nz]);
  return { unknownOf, unknowns: next };
}

function lumpedMass(frame: GridFrame, share: Float64Array, unknownOf: Int32Array, unknowns: number): Float64Array {
  const [nx, ny, nz] = frame.cells, eighth = frame.spacing ** 3 / 8;
  const mass = new Float64Array(unknowns);
  for (let k = 0, c = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, c++) {
    if (share[c] === 0) continue;
    for (let corner = 0; corner < 8; corner++) {
      mass[unknownOf[nodeIndex(frame, i + (corner & 1), j + ((corner >> 1) & 1), k + (corner >> 2))]] += share[c] * eighth;
    }
  }
  return mass;
}

/**
 * Integral of grad N_a . grad N_b over a unit cube for trilinear corners a and b (bit x, y, z of each index):
 * per axis, the derivative integral (1 same, -1 different) times the two value integrals (1/3 same, 1/6 not).
 */
const UNIT_CUBE_STIFFNESS = (() => {
  const out = new Float64Array(64);
  for (let a = 0; a < 8; a++) for (let b = 0; b < 8; b++) {
    let sum = 0;
    for (let axis = 0; axis < 3; axis++) {
      let term = 1;
      for (let other = 0; other < 3; other++) {
        const same = ((a >> other) & 1) === ((b >> other) & 1);
        term *= other === axis ? (same ? 1 : -1) : same ? 1 / 3 : 1 / 6;
      }
      sum += term;
    }
    out[a * 8 + b] = sum;
  }
  return out;
})();

/** Column by column (an unknown's 27 neighbours), the upper triangle of the assembled Laplacian. */
function laplacian(frame: GridFrame, share: Float64Array, unknownOf: Int32Array, unknowns: number): UpperCsc {
  const [nx, ny, nz] = frame.cells, h = frame.spacing;
  // The upper triangle holds (entries + diagonal) / 2 of a matrix with at most 27 entries a row: at most 14 n.
  const columnStart = new Int32Array(unknowns + 1), rows = new Int32Array(14 * unknowns), values = new Float64Array(14 * unknowns);
  let entries = 0;
  const nodeOf = new Int32Array(unknowns);
  for (let node = 0; node < unknownOf.length; node++) if (unknownOf[node] >= 0) nodeOf[unknownOf[node]] = node;
  const local = new Float64Array(27), entryRow = new Int32Array(27), entryValue = new Float64Array(27);
  for (let column = 0; column < unknowns; column++) {
    const node = nodeOf[column];
    const i = node % (nx + 1), j = Math.floor(node / (nx + 1)) % (ny + 1), k = Math.floor(node / ((nx + 1) * (ny + 1)));
    local.fill(0);
    // Each inside cell around the node adds its element matrix's row for the node's corner.
    for (let corner = 0; corner < 8; corner++) {
      const ci = i - (corner & 1), cj = j - ((corner >> 1) & 1), ck = k - (corner >> 2);
      if (ci < 0 || cj < 0 || ck < 0 || ci >= nx || cj >= ny || ck >= nz) continue;
      const s = share[cellIndex(frame, ci, cj, ck)];
      if (s === 0) continue;
      for (let other = 0; other < 8; other++) {
        const oi = ci + (other & 1) - i, oj = cj + ((other >> 1) & 1) - j, ok = ck + (other >> 2) - k;
        local[oi + 1 + 3 * (oj + 1) + 9 * (ok + 1)] += s * h * UNIT_CUBE_STIFFNESS[corner * 8 + other];
      }
    }
    let count = 0;
    for (let o = 0; o < 27; o++) {
      if (local[o] === 0 && o !== 13) continue;
      const row = unknownOf[nodeIndex(frame, i + (o % 3) - 1, j + (Math.floor(o / 3) % 3) - 1, k + Math.floor(o / 9) - 1)];
      if (row > column) continue;
      // Insertion by row, so each column comes out sorted.
      let at = count++;
      while (at > 0 && entryRow[at - 1] > row) {
        entryRow[at] = entryRow[at - 1];
        entryValue[at] = entryValue[at - 1];
        at--;
      }
      entryRow[at] = row;
      entryValue[at] = local[o];
    }
    for (let e = 0; e < count; e++, entries++) {
      rows[entries] = entryRow[e];
      values[entries] = entryValue[e];
    }
    columnStart[column + 1] = entries;
  }
  return { n: unknowns, columnStart, rows: rows.slice(0, entries), values: values.slice(0, entries) };
}
