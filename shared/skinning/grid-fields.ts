// Fields stored as values at the nodes of a regular grid and interpolated trilinearly (gradients per cell), as
// the voxel eigenmodes come out. Nodes outside the solid take their nearest solid neighbours' mean, layer by
// layer, so every point of the grid's box (render vertices on the surface included) has a smooth value. The
// description holds the grid and only the solid's nodes; the rest is filled again by the same rule.

import { SkinningError, type FieldDescription, type SkinningFields } from "./fields";
import type { GridFrame } from "./voxel-solid";

export const GRID_DESCRIPTION = "eigen-grid";
/** Header: 3 cell counts, 3 origin coordinates, spacing, field count. Then the solid's nodes as a bitmask in 32-bit words, then their values. */
const HEADER = 8;
const BITS_PER_WORD = 32;

export class GridFields implements SkinningFields {
  readonly count: number;
  private readonly nodes: [number, number, number];
  /** Node-major: values[node * count + field], over every node of the grid. */
  private readonly values: Float64Array;

  /** `known` marks the nodes whose `values` are given; the others are filled outwards from them. */
  constructor(readonly frame: GridFrame, count: number, values: Float64Array, private readonly known: Uint8Array) {
    this.count = count;
    this.nodes = [frame.cells[0] + 1, frame.cells[1] + 1, frame.cells[2] + 1];
    this.values = values;
    fillOutwards(this.nodes, count, values, Uint8Array.from(known));
  }

  describe(): FieldDescription {
    const total = this.known.length, words = Math.ceil(total / BITS_PER_WORD);
    let solid = 0;
    for (let node = 0; node < total; node++) solid += this.known[node];
    const data = new Float64Array(HEADER + words + solid * this.count);
    data.set([...this.frame.cells, ...this.frame.origin, this.frame.spacing, this.count]);
    let at = HEADER + words;
    for (let node = 0; node < total; node++) {
      if (!this.known[node]) continue;
      data[HEADER + Math.floor(node / BITS_PER_WORD)] += 2 ** (node % BITS_PER_WORD);
      data.set(this.values.subarray(node * this.count, (node + 1) * this.count), at);
      at += this.count;
    }
    return { kind: GRID_DESCRIPTION, data };
  }

  async evaluate(points: Float64Array, weights: Float64Array, gradients?: Float64Array): Promise<void> {
    this.evaluateSync(points, weights, gradients);
  }

  /** evaluate, for callers inside a synchronous computation. */
  evaluateSync(points: Float64Array, weights: Float64Array, gradients?: Float64Array): void {
    const k = this.count, n = points.length / 3, v = this.values, h = this.frame.spacing;
    if (weights.length < n * k) throw new SkinningError(`weights need ${n * k} numbers, got ${weights.length}`);
    if (gradients && gradients.length < n * k * 3) throw new SkinningError(`gradients need ${n * k * 3} numbers, got ${gradients.length}`);
    const [cx, cy, cz] = this.frame.cells, [nx, ny] = this.nodes, [ox, oy, oz] = this.frame.origin;
    const strideY = nx * k, strideZ = nx * ny * k;
    for (let p = 0; p < n; p++) {
      // Clamped into the grid's box: a point outside takes the value at the box's nearest point.
      const u = clamp((points[3 * p] - ox) / h, cx), w = clamp((points[3 * p + 1] - oy) / h, cy), s = clamp((points[3 * p + 2] - oz) / h, cz);
      const i = Math.min(Math.floor(u), cx - 1), j = Math.min(Math.floor(w), cy - 1), l = Math.min(Math.floor(s), cz - 1);
      const tx = u - i, ty = w - j, tz = s - l;
      const base = (i + nx * (j + ny * l)) * k;
      for (let f = 0; f < k; f++) {
        const b = base + f;
        const c000 = v[b], c100 = v[b + k], c010 = v[b + strideY], c110 = v[b + strideY + k];
        const c001 = v[b + strideZ], c101 = v[b + strideZ + k], c011 = v[b + strideZ + strideY], c111 = v[b + strideZ + strideY + k];
        const c00 = c000 + tx * (c100 - c000), c10 = c010 + tx * (c110 - c010), c01 = c001 + tx * (c101 - c001), c11 = c011 + tx * (c111 - c011);
        const c0 = c00 + ty * (c10 - c00), c1 = c01 + ty * (c11 - c01);
        weights[p * k + f] = c0 + tz * (c1 - c0);
        if (gradients) {
          const o = 3 * (p * k + f);
          const dx0 = (1 - ty) * (c100 - c000) + ty * (c110 - c010), dx1 = (1 - ty) * (c101 - c001) + ty * (c111 - c011);
          const dy0 = (1 - tx) * (c010 - c000) + tx * (c110 - c100), dy1 = (1 - tx) * (c011 - c001) + tx * (c111 - c101);
          gradients[o] = ((1 - tz) * dx0 + tz * dx1) / h;
          gradients[o + 1] = ((1 - tz) * dy0 + tz * dy1) / h;
          gradients[o + 2] = (c1 - c0) / h;
        }
      }
    }
  }
}

/** The fields again from GridFields.describe's data. */
export function gridFieldsFromDescription(data: Float64Array): GridFields {
  const cells = [data[0], data[1], data[2]] as [number, number, number], count = data[7];
  const sane = cells.every((c) => Number.isInteger(c) && c >= 1 && c <= 4096) && Number.isInteger(count) && count >= 1 && count <= 4096;
  const total = sane ? (cells[0] + 1) * (cells[1] + 1) * (cells[2] + 1) : 0;
  if (!sane || total > 1 << 26 || !(data[6] > 0) || !Array.from(data.subarray(3, 7)).every(Number.isFinite)) {
    throw new SkinningError("a grid field description has a malformed header");
  }
  const words = Math.ceil(total / BITS_PER_WORD);
  if (data.length < HEADER + words) throw new SkinningError("a grid field description is truncated");
  const known = new Uint8Array(total), values = new Float64Array(total * count);
  let at = HEADER + words;
  for (let node = 0; node < total; node++) {
    if (Math.floor(data[HEADER + Math.floor(node / BITS_PER_WORD)] / 2 ** (node % BITS_PER_WORD)) % 2 === 0) continue;
    if (at + count > data.length) throw new SkinningError("a grid field description is truncated");
    known[node] = 1;
    values.set(data.subarray(at, at + count), node * count);
    at += count;
  }
  if (at !== data.length) throw new SkinningError("a grid field description has the wrong size");
  return new GridFields({ cells, origin: [data[3], data[4], data[5]], spacing: data[6] }, count, values, known);
}

function clamp(u: number, cells: number): number {
  return u < 0 ? 0 : u > cells ? cells : u;
}

/** Unknown nodes take the mean of their known neighbours (26-neighbourhood), one layer at a time, until all are known. */
function fillOutwards(nodes: [number, number, number], count: number, values: Float64Array, known: Uint8Array): void {
  const [nx, ny, nz] = nodes;
  let frontier: number[] = [];
  for (let node = 0; node < known.length; node++) if (!known[node]) frontier.push(node);
  const sum = new Float64Array(count);
  while (frontier.length > 0) {
    const filled: number[] = [], rest: number[] = [];
    for (const node of frontier) {
      const i = node % nx, j = Math.floor(node / nx) % ny, l = Math.floor(node / (nx * ny));
      sum.fill(0);
      let neighbours = 0;
      for (let dl = -1; dl <= 1; dl++) for (let dj = -1; dj <= 1; dj++) for (let di = -1; di <= 1; di++) {
        const a = i + di, b = j + dj, c = l + dl;
        if (a < 0 || b < 0 || c < 0 || a >= nx || b >= ny || c >= nz) continue;
        const other = a + nx * (b + ny * c);
        if (known[other] !== 1) continue;
        neighbours++;
        for (let f = 0; f < count; f++) sum[f] += values[other * count + f];
      }
      if (neighbours === 0) {
        rest.push(node);
        continue;
      }
      for (let f = 0; f < count; f++) values[node * count + f] = sum[f] / neighbours;
      filled.push(node);
    }
    if (filled.length === 0) throw new SkinningError("grid fields have no known node to fill from");
    // A layer counts as known only once it is complete, so the fill does not depend on the visiting order.
    for (const node of filled) known[node] = 1;
    frontier = rest;
  }
}
