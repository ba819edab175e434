// A body's render weights as a page holds them (its GPU tables) against a bake's, vertex by vertex. The tables keep
// each vertex's 16 learned weights sorted by strength, so a vertex is compared by the squared length of its weights.

import type { Page } from "playwright-core";
import { inPage } from "./browser";

/**
 * The bake's vertex behind each vertex the browser draws: a textured mesh is split along its seams, one vertex per
 * (vertex, UV point) pair in the order triangle corners first use them (splitTextureSeams); otherwise the same.
 */
export function seamSources(triangles: Uint32Array, uvTriangles: Uint32Array, vertices: number): number[] {
  if (uvTriangles.length === 0) return Array.from({ length: vertices }, (_, v) => v);
  const seen = new Set<string>(), source: number[] = [];
  triangles.forEach((v, k) => {
    const key = `${v}/${uvTriangles[k]}`;
    if (!seen.has(key)) { seen.add(key); source.push(v); }
  });
  return source;
}

/** Per drawn vertex, the squared length of its learned weights in the page's tables for `hash`. */
export function pageWeightNorms(page: Page, hash: string): Promise<number[]> {
  return inPage<number[]>(page, `(() => {
    const t = window.pliant.loader.get(${JSON.stringify(hash)}).influences, out = [];
    for (let v = 0; v < t.vertexCount; v++) { let s = 0; for (let k = 0; k < t.influences; k++) s += t.weights[v * t.influences + k] ** 2; out.push(s); }
    return out;
  })()`);
}

/** The same of a bake's render weights (V x (K + 1), the constant first), for the drawn vertices. */
export function bakeWeightNorms(weights: Float64Array, handles: number, sources: number[]): number[] {
  return sources.map((v) => {
    let s = 0;
    for (let k = 1; k < handles; k++) s += weights[v * handles + k] ** 2;
    return s;
  });
}

/** The largest difference between two lists of squared lengths, relative to the largest of `reference`. */
export function relativeDifference(values: number[], reference: number[]): number {
  let worst = 0, largest = 0;
  values.forEach((value, i) => {
    worst = Math.max(worst, Math.abs(value - reference[i]));
    largest = Math.max(largest, reference[i]);
  });
  return worst / largest;
}
