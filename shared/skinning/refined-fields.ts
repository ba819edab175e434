// Render weights refined by the network that started the fields. The Rayleigh-Ritz finish (ritz-finish.ts) leaves
// its fields F as values at the nodes of a voxel grid, and the physics and a page's first frames interpolate them
// trilinearly. Between nodes the network knows the fields' shape better than a trilinear cell, so the bake also
// keeps the network's latents and the combination C of its raw fields n(x) closest to F (mass-weighted least
// squares at the nodes of the coarse grid the finish decoded the network on), and a page with the decoder draws
//     f(x) = trilinear(F)(x) + n(x) C - trilinear(n C)(x),
// which is F at every node (the same body the physics steps) and follows the network inside the cells.

import type { GridFrame } from "./voxel-solid";
import { choleskyFactor, choleskySolve } from "../sim/linalg";
import { SkinningError, type FieldDescription, type SkinningFields } from "./fields";
import { MODEL_DESCRIPTION } from "./onnx-provider";

/** Header: 3 cell counts, 3 origin coordinates, spacing, the network's field count, the fields' count, the network part's length. */
const HEADER = 10;
/** Ridge of the least-squares fit, relative to the Gram matrix's mean diagonal (nearly collinear network fields). */
const RIDGE = 1e-8;

/**
 * The combination C (k x K, row-major) of the network's k raw fields closest to the K finished ones over a solid's
 * nodes, weighted by each node's mass: C = (N^T M N)^-1 N^T M F. `raw` is nodes x k, `finished` nodes x K.
 */
export function networkCombination(raw: Float64Array, finished: Float64Array, mass: Float64Array, k: number, count: number): Float64Array {
  const n = mass.length, gram = new Float64Array(k * k), right = new Float64Array(k * count);
  for (let i = 0; i < n; i++) {
    const m = mass[i], r = i * k, f = i * count;
    for (let a = 0; a < k; a++) {
      const ma = m * raw[r + a];
      for (let b = 0; b < k; b++) gram[a * k + b] += ma * raw[r + b];
      for (let c = 0; c < count; c++) right[a * count + c] += ma * finished[f + c];
    }
  }
  let trace = 0;
  for (let a = 0; a < k; a++) trace += gram[a * k + a];
  for (let a = 0; a < k; a++) gram[a * k + a] += (RIDGE * trace) / k + 1e-300;
  if (!choleskyFactor(gram, k)) throw new SkinningError("the network's fields are degenerate on this shape's grid");
  const out = new Float64Array(k * count), column = new Float64Array(k);
  for (let c = 0; c < count; c++) {
    for (let a = 0; a < k; a++) column[a] = right[a * count + c];
    choleskySolve(gram, k, column);
    for (let a = 0; a < k; a++) out[a * count + c] = column[a];
  }
  return out;
}

/** A baked body's `fieldRefinement`: the grid's frame, the network's description (MODEL_DESCRIPTION's data) and C. */
export function describeRefinement(frame: GridFrame, count: number, network: FieldDescription, combination: Float64Array): Float64Array {
  if (network.kind !== MODEL_DESCRIPTION) throw new SkinningError("a refinement carries the network's latents");
  const networkCount = combination.length / count;
  const data = new Float64Array(HEADER + network.data.length + combination.length);
  data.set([...frame.cells, ...frame.origin, frame.spacing, networkCount, count, network.data.length]);
  data.set(network.data, HEADER);
  data.set(combination, HEADER + network.data.length);
  return data;
}

export interface Refinement {
  frame: GridFrame;
  /** The network's fields (k) and the fields' count (K). */
  networkCount: number;
  count: number;
  /** MODEL_DESCRIPTION data: what modelFieldsFromDescription decodes. */
  network: Float64Array;
  /** k x K, row-major. */
  combination: Float64Array;
}

export function readRefinement(data: Float64Array): Refinement {
  const cells = [data[0], data[1], data[2]] as [number, number, number], networkCount = data[7], count = data[8], length = data[9];
  const integer = (v: number, max: number) => Number.isInteger(v) && v >= 1 && v <= max;
  const sane = data.length >= HEADER && cells.every((c) => integer(c, 4096)) && integer(networkCount, 4096) && integer(count, 4096) && integer(length, 1 << 26)
    && data[6] > 0 && Array.from(data.subarray(3, 7)).every(Number.isFinite);
  if (!sane || data.length !== HEADER + length + networkCount * count) throw new SkinningError("a field refinement is malformed");
  return {
    frame: { cells, origin: [data[3], data[4], data[5]], spacing: data[6] }, networkCount, count,
    network: data.subarray(HEADER, HEADER + length), combination: data.subarray(HEADER + length),
  };
}

/**
 * n(x) C - trilinear(n C)(x) at `points` (3N, normalised coordinates), N x K: what the network adds to the grid's
 * trilinear fields inside each cell (zero at the nodes). Decodes the network once for the points and once for the
 * corners of the cells they fall in. Returns the corrections and the number of network queries made.
 */
export async function refinementCorrection(refinement: Refinement, network: SkinningFields, points: Float64Array): Promise<{ correction: Float64Array; queries: number }> {
  const { frame, count: K, networkCount: k, combination } = refinement;
  if (network.count !== k) throw new SkinningError(`the decoder predicts ${network.count} fields, the refinement ${k}`);
  const [cx, cy, cz] = frame.cells, nx = cx + 1, ny = cy + 1, h = frame.spacing, [ox, oy, oz] = frame.origin;
  const n = points.length / 3;
  // Each point's cell (clamped into the grid's box as GridFields does) and its position in it.
  const cell = new Int32Array(n), local = new Float64Array(3 * n);
  const cornerIndex = new Map<number, number>(), corners: number[] = [], offsets = cornerOffsets(nx, ny);
  for (let p = 0; p < n; p++) {
    const u = clamp((points[3 * p] - ox) / h, cx), w = clamp((points[3 * p + 1] - oy) / h, cy), s = clamp((points[3 * p + 2] - oz) / h, cz);
    const i = Math.min(Math.floor(u), cx - 1), j = Math.min(Math.floor(w), cy - 1), l = Math.min(Math.floor(s), cz - 1);
    cell[p] = i + nx * (j + ny * l);
    local[3 * p] = u - i; local[3 * p + 1] = w - j; local[3 * p + 2] = s - l;
    for (let c = 0; c < 8; c++) {
      const node = cell[p] + offsets[c];
      if (!cornerIndex.has(node)) { cornerIndex.set(node, corners.length); corners.push(node); }
    }
  }
  // The network at the corners, combined: n C per corner node.
  const cornerPoints = new Float64Array(3 * corners.length);
  corners.forEach((node, r) => {
    cornerPoints[3 * r] = ox + (node % nx) * h;
    cornerPoints[3 * r + 1] = oy + (Math.floor(node / nx) % ny) * h;
    cornerPoints[3 * r + 2] = oz + Math.floor(node / (nx * ny)) * h;
  });
  const atCorners = combined(await decoded(network, cornerPoints), corners.length, k, K, combination);
  const correction = combined(await decoded(network, points), n, k, K, combination);
  for (let p = 0; p < n; p++) {
    const tx = local[3 * p], ty = local[3 * p + 1], tz = local[3 * p + 2];
    for (let c = 0; c < 8; c++) {
      const weight = (c & 1 ? tx : 1 - tx) * (c & 2 ? ty : 1 - ty) * (c & 4 ? tz : 1 - tz);
      if (weight === 0) continue;
      const r = cornerIndex.get(cell[p] + offsets[c])!;
      for (let f = 0; f < K; f++) correction[p * K + f] -= weight * atCorners[r * K + f];
    }
  }
  return { correction, queries: n + corners.length };
}

/** Node offsets of a cell's 8 corners from its first: bit 0 x, bit 1 y, bit 2 z. */
function cornerOffsets(nx: number, ny: number): number[] {
  return [0, 1, nx, nx + 1, nx * ny, nx * ny + 1, nx * ny + nx, nx * ny + nx + 1];
}

async function decoded(network: SkinningFields, points: Float64Array): Promise<Float64Array> {
  const out = new Float64Array((points.length / 3) * network.count);
  await network.evaluate(points, out);
  return out;
}

/** rows C: `rows` rows of the network's k values to K values each. */
function combined(values: Float64Array, rows: number, k: number, K: number, combination: Float64Array): Float64Array {
  const out = new Float64Array(rows * K);
  for (let p = 0; p < rows; p++) {
    for (let a = 0; a < k; a++) {
      const v = values[p * k + a];
      if (v === 0) continue;
      for (let f = 0; f < K; f++) out[p * K + f] += v * combination[a * K + f];
    }
  }
  return out;
}

function clamp(u: number, cells: number): number {
  return u < 0 ? 0 : u > cells ? cells : u;
}
