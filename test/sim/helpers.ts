import { createSoftBody, loadBody, type LoadedBody } from "../../server/scenarios/body-from-mesh";
import { DEFAULT_WEIGHTS, type WeightsSource } from "../../server/skinning/weights-source";
import type { Material, SoftBody, SolverOptions } from "../../shared/sim";

export const JELLY: Material = { youngsModulus: 1e5, poissonRatio: 0.45, density: 1000 };

const cache = new Map<string, Promise<LoadedBody>>();

/** Bakes (once per file) a mesh spec at a size, with the default fields unless others are named. */
export function bodyFor(mesh: string, handles = 16, cubature = 256, size = 0.3, weights: WeightsSource = DEFAULT_WEIGHTS): Promise<LoadedBody> {
  const key = `${mesh}|${handles}|${cubature}|${size}|${weights}`;
  let loaded = cache.get(key);
  if (!loaded) {
    loaded = loadBody({ mesh, weights, handles, cubature, size });
    cache.set(key, loaded);
  }
  return loaded;
}

export function minRestY(loaded: LoadedBody): number {
  let min = Infinity;
  for (let i = 1; i < loaded.renderRest.length; i += 3) min = Math.min(min, loaded.renderRest[i]);
  return min;
}

export function makeBody(loaded: LoadedBody, options: Partial<SolverOptions> = {}, origin: number[] = [0, 0, 0], material = JELLY): SoftBody {
  return createSoftBody(loaded, material, options, origin);
}

/** World positions of the render vertices. */
export function renderPositions(body: SoftBody, loaded: LoadedBody): Float64Array {
  const out = new Float64Array(loaded.renderRest.length);
  body.positions(loaded.renderRows, loaded.renderRest, out);
  return out;
}

/**
 * RMS distance of the render vertices from the best rigid placement of the rest shape (Kabsch via the
 * rotation of the cross-covariance): zero when the body has recovered its rest shape, wherever it lies.
 */
export function shapeError(body: SoftBody, loaded: LoadedBody): number {
  const p = renderPositions(body, loaded), r = loaded.renderRest, n = r.length / 3;
  const cp = [0, 0, 0], cr = [0, 0, 0];
  for (let i = 0; i < n; i++) for (let a = 0; a < 3; a++) { cp[a] += p[3 * i + a] / n; cr[a] += r[3 * i + a] / n; }
  const h = new Float64Array(9);
  for (let i = 0; i < n; i++) for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) h[3 * a + b] += (p[3 * i + a] - cp[a]) * (r[3 * i + b] - cr[b]);
  // Rotation maximising tr(R^T H): iterate R <- polar(H) by repeated averaging with its inverse transpose.
  let m = Array.from(h);
  for (let it = 0; it < 30; it++) {
    const inv = inverseTranspose(m);
    m = m.map((v, k) => 0.5 * (v + inv[k]));
  }
  let sum = 0;
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      let rotated = cp[a];
      for (let b = 0; b < 3; b++) rotated += m[3 * a + b] * (r[3 * i + b] - cr[b]);
      sum += (p[3 * i + a] - rotated) ** 2;
    }
  }
  return Math.sqrt(sum / n);
}

function inverseTranspose(m: number[]): number[] {
  const [a, b, c, d, e, f, g, h, i] = m;
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  // cofactor matrix / det = inverse transpose
  return [
    (e * i - f * h) / det, -(d * i - f * g) / det, (d * h - e * g) / det,
    -(b * i - c * h) / det, (a * i - c * g) / det, -(a * h - b * g) / det,
    (b * f - c * e) / det, -(a * f - c * d) / det, (a * e - b * d) / det,
  ];
}

export function totalEnergy(body: SoftBody): number {
  const e = body.energies();
  return e.kinetic + e.elastic + e.potential;
}

/** A deterministic pseudo-random sequence in [-1, 1). */
export function randoms(count: number, seed: number): Float64Array {
  const out = new Float64Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

/** Largest entry-wise difference of two arrays, relative to the largest entry of either. */
export function relativeDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0, scale = 1e-300;
  for (let i = 0; i < a.length; i++) {
    worst = Math.max(worst, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(a[i]), Math.abs(b[i]));
  }
  return worst / scale;
}
