// What the GPU needs to skin a body's render mesh from q: per vertex, the strongest learned weights (the constant
// channel, weight 1, is always applied) and their derivatives along two tangent directions, so that the vertex
// shader can transform the tangent plane and get exact normals of the deformed surface (n' = F t1 x F t2 with
// F = I + sum_h (w_h A_h + (T_h [x; 1]) grad w_h^T); only the tangential part of grad w matters for that).

import { SkinningError } from "./fields";
import type { BakedBody } from "./baked-body";

/** Learned influences per vertex the shader supports (vec4 groups). */
export const INFLUENCE_COUNTS = [4, 8, 12, 16] as const;
export type InfluenceCount = (typeof INFLUENCE_COUNTS)[number];

export interface RenderInfluences {
  /** Learned influences per vertex (a multiple of 4). */
  influences: number;
  vertexCount: number;
  /** Normalised rest positions (3V) and area-weighted unit normals (3V). */
  positions: Float32Array;
  normals: Float32Array;
  triangles: Uint32Array;
  /** V * influences learned handle numbers (1..K; 0 marks an unused slot with weight 0), strongest first. */
  handles: Uint8Array;
  /** V * influences weights (normalised like the cubature weights). */
  weights: Float32Array;
  /** V * influences derivatives of each weight along tangentOf(normal) and along normal x that, per normalised unit. */
  tangentDerivatives1: Float32Array;
  tangentDerivatives2: Float32Array;
  /** Texture coordinates (2V), for a textured mesh split along its seams (texture-seams.ts). */
  uvs?: Float32Array;
  /** Linear r, g, b per vertex, when the mesh has vertex colours (splitTextureSeams). */
  colors?: Float32Array;
}

/**
 * The first tangent direction the shader and the derivatives agree on: normalize(n x a) with a = +y, or +x where
 * n is within ~25 degrees of y. The second is n x t1, so t1 x t2 = n.
 */
export function tangentOf(nx: number, ny: number, nz: number, out: Float64Array): void {
  let ax = 0, ay = 1, az = 0;
  if (Math.abs(ny) >= 0.9) { ax = 1; ay = 0; }
  let tx = ny * az - nz * ay, ty = nz * ax - nx * az, tz = nx * ay - ny * ax;
  const length = Math.hypot(tx, ty, tz) || 1;
  tx /= length; ty /= length; tz /= length;
  out[0] = tx; out[1] = ty; out[2] = tz;
  out[3] = ny * tz - nz * ty; out[4] = nz * tx - nx * tz; out[5] = nx * ty - ny * tx;
}

/**
 * Picks the `influences` strongest learned weights of every render vertex and estimates their tangential
 * derivatives by least squares over the vertex's one-ring. `onProgress` gets fractions in [0, 1].
 */
export function computeRenderInfluences(body: Pick<BakedBody, "renderPositions" | "triangles" | "renderWeights" | "learnedHandles">, influences: number, onProgress?: (fraction: number) => void): RenderInfluences {
  if (!INFLUENCE_COUNTS.includes(influences as InfluenceCount)) throw new SkinningError(`influences must be one of ${INFLUENCE_COUNTS.join(", ")}, got ${influences}`);
  const k = body.learnedHandles, h = k + 1;
  if (k > 255) throw new SkinningError(`at most 255 learned handles can be rendered, got ${k}`);
  const vertexCount = body.renderPositions.length / 3;
  if (body.renderWeights.length !== vertexCount * h) throw new SkinningError(`render weights hold ${body.renderWeights.length} numbers, expected ${vertexCount} x ${h}`);
  const x = body.renderPositions, tri = body.triangles, w = body.renderWeights;
  const normals = vertexNormals(x, tri, vertexCount);
  const ring = oneRings(tri, vertexCount);

  const handles = new Uint8Array(vertexCount * influences);
  const weights = new Float32Array(vertexCount * influences);
  const d1 = new Float32Array(vertexCount * influences);
  const d2 = new Float32Array(vertexCount * influences);
  const order = new Int32Array(k);
  const frame = new Float64Array(6);
  const progressEvery = Math.max(1, Math.floor(vertexCount / 20));
  for (let v = 0; v < vertexCount; v++) {
    // Strongest learned weights first (insertion sort: K is small).
    for (let j = 0; j < k; j++) {
      const value = Math.abs(w[v * h + 1 + j]);
      let p = j;
      while (p > 0 && Math.abs(w[v * h + 1 + order[p - 1]]) < value) { order[p] = order[p - 1]; p--; }
      order[p] = j;
    }
    // Least-squares tangential gradient over the one-ring: the 2x2 normal matrix is shared by all handles.
    tangentOf(normals[3 * v], normals[3 * v + 1], normals[3 * v + 2], frame);
    let saa = 0, sab = 0, sbb = 0;
    for (let r = ring.start[v]; r < ring.start[v + 1]; r++) {
      const u = ring.neighbours[r];
      const dx = x[3 * u] - x[3 * v], dy = x[3 * u + 1] - x[3 * v + 1], dz = x[3 * u + 2] - x[3 * v + 2];
      const inv = 1 / (dx * dx + dy * dy + dz * dz || 1);
      const a = dx * frame[0] + dy * frame[1] + dz * frame[2], b = dx * frame[3] + dy * frame[4] + dz * frame[5];
      saa += a * a * inv; sab += a * b * inv; sbb += b * b * inv;
    }
    const det = saa * sbb - sab * sab;
    const solvable = det > 1e-12 * (saa + sbb) * (saa + sbb);
    const used = Math.min(influences, k);
    for (let s = 0; s < used; s++) {
      const handle = 1 + order[s], o = v * influences + s;
      handles[o] = handle;
      weights[o] = w[v * h + handle];
      if (!solvable) continue;
      let ra = 0, rb = 0;
      for (let r = ring.start[v]; r < ring.start[v + 1]; r++) {
        const u = ring.neighbours[r];
        const dx = x[3 * u] - x[3 * v], dy = x[3 * u + 1] - x[3 * v + 1], dz = x[3 * u + 2] - x[3 * v + 2];
        const inv = 1 / (dx * dx + dy * dy + dz * dz || 1);
        const a = dx * frame[0] + dy * frame[1] + dz * frame[2], b = dx * frame[3] + dy * frame[4] + dz * frame[5];
        const dw = (w[u * h + handle] - w[v * h + handle]) * inv;
        ra += a * dw; rb += b * dw;
      }
      d1[o] = (sbb * ra - sab * rb) / det;
      d2[o] = (saa * rb - sab * ra) / det;
    }
    if (onProgress && v % progressEvery === 0) onProgress(v / vertexCount);
  }
  onProgress?.(1);
  return {
    influences, vertexCount, positions: Float32Array.from(x), normals: Float32Array.from(normals), triangles: tri,
    handles, weights, tangentDerivatives1: d1, tangentDerivatives2: d2,
  };
}

/**
 * Largest distance, over the render vertices, between the full skinning and the truncated one for a state q
 * (in body metres for a body of largest extent `size`): what dropping the weaker influences costs on screen.
 */
export function truncationError(body: Pick<BakedBody, "renderPositions" | "renderWeights" | "learnedHandles">, influences: RenderInfluences, q: Float64Array, size: number): number {
  const h = body.learnedHandles + 1, m = 4 * h, s = size / 2;
  if (q.length !== 3 * m) throw new SkinningError(`q holds ${q.length} numbers, expected ${3 * m}`);
  let worst = 0;
  const kept = new Uint8Array(h);
  for (let v = 0; v < influences.vertexCount; v++) {
    kept.fill(0);
    kept[0] = 1;
    for (let slot = 0; slot < influences.influences; slot++) if (influences.weights[v * influences.influences + slot] !== 0) kept[influences.handles[v * influences.influences + slot]] = 1;
    const px = body.renderPositions[3 * v] * s, py = body.renderPositions[3 * v + 1] * s, pz = body.renderPositions[3 * v + 2] * s;
    let ex = 0, ey = 0, ez = 0;
    for (let handle = 0; handle < h; handle++) {
      if (kept[handle]) continue;
      const weight = body.renderWeights[v * h + handle];
      for (let a = 0; a < 3; a++) {
        const r = a * m + 4 * handle;
        const d = weight * (q[r] * px + q[r + 1] * py + q[r + 2] * pz + q[r + 3]);
        if (a === 0) ex += d; else if (a === 1) ey += d; else ez += d;
      }
    }
    worst = Math.max(worst, Math.hypot(ex, ey, ez));
  }
  return worst;
}

function vertexNormals(x: Float64Array, tri: Uint32Array, vertexCount: number): Float64Array {
  const n = new Float64Array(3 * vertexCount);
  for (let t = 0; t < tri.length; t += 3) {
    const a = tri[t], b = tri[t + 1], c = tri[t + 2];
    const ux = x[3 * b] - x[3 * a], uy = x[3 * b + 1] - x[3 * a + 1], uz = x[3 * b + 2] - x[3 * a + 2];
    const vx = x[3 * c] - x[3 * a], vy = x[3 * c + 1] - x[3 * a + 1], vz = x[3 * c + 2] - x[3 * a + 2];
    // Cross product = twice the area times the face normal: area weighting for free.
    const fx = uy * vz - uz * vy, fy = uz * vx - ux * vz, fz = ux * vy - uy * vx;
    for (let e = 0; e < 3; e++) {
      const v = tri[t + e];
      n[3 * v] += fx; n[3 * v + 1] += fy; n[3 * v + 2] += fz;
    }
  }
  for (let v = 0; v < vertexCount; v++) {
    const length = Math.hypot(n[3 * v], n[3 * v + 1], n[3 * v + 2]);
    if (length > 0) { n[3 * v] /= length; n[3 * v + 1] /= length; n[3 * v + 2] /= length; } else n[3 * v + 1] = 1;
  }
  return n;
}

/** Each vertex's neighbours over the triangles (compressed rows; an edge shared by two faces counts twice, harmlessly). */
function oneRings(tri: Uint32Array, vertexCount: number): { start: Int32Array; neighbours: Int32Array } {
  const start = new Int32Array(vertexCount + 1);
  for (let t = 0; t < tri.length; t++) start[tri[t] + 1] += 2;
  for (let v = 0; v < vertexCount; v++) start[v + 1] += start[v];
  const fill = start.slice(0, vertexCount);
  const neighbours = new Int32Array(start[vertexCount]);
  for (let t = 0; t < tri.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const v = tri[t + e];
      neighbours[fill[v]++] = tri[t + (e + 1) % 3];
      neighbours[fill[v]++] = tri[t + (e + 2) % 3];
    }
  }
  return { start, neighbours };
}
