import { meshBounds } from "./bounds";
import { NearestPointGrid } from "./nearest-point-grid";
import type { Random } from "./random";

export interface CubatureClusters {
  /** Cluster centroids, 3 per cluster. */
  centers: Float64Array;
  /** Cluster of every sample. */
  assignment: Uint32Array;
  /** Samples per cluster (never 0). */
  sizes: Uint32Array;
}

/**
 * Splits equally weighted samples into `count` compact clusters of similar size: farthest-point seeding
 * (spreads seeds evenly, deterministic after the random first pick), then Lloyd (k-means) iterations until
 * assignments settle or `iterations` run out. Empty clusters are re-seeded at the sample worst served by its
 * centre, so every cluster ends up with at least one sample. Requires count <= number of samples.
 */
export function clusterSamples(samples: Float64Array, count: number, random: Random, iterations = 8): CubatureClusters {
  const n = samples.length / 3;
  const centers = farthestPointSeeds(samples, count, random);
  const assignment = new Uint32Array(n);
  const distance2 = new Float64Array(n);
  const sizes = new Uint32Array(count);
  const sums = new Float64Array(3 * count);
  const bounds = meshBounds(samples);
  const extents = [0, 1, 2].map((k) => bounds.max[k] - bounds.min[k]);
  const boxVolume = extents.reduce((v, e) => v * e, 1);
  // About one centre per cell; never finer than 1/256 of the largest side, which caps the grid for slabs.
  const cellSize = Math.max(Math.cbrt(boxVolume / count), Math.max(...extents) / 256, Number.MIN_VALUE);

  // Every pass: assign to the nearest centre, then move centres to their cluster means. Extra passes beyond
  // `iterations` run only while an empty cluster had to be re-seeded.
  for (let pass = 0; pass < iterations + count; pass++) {
    const grid = new NearestPointGrid(centers, bounds, cellSize);
    let changed = pass === 0;
    sizes.fill(0);
    sums.fill(0);
    for (let i = 0; i < n; i++) {
      const x = samples[3 * i], y = samples[3 * i + 1], z = samples[3 * i + 2];
      const c = grid.nearest(x, y, z);
      if (c !== assignment[i]) changed = true;
      assignment[i] = c;
      distance2[i] = grid.lastDistance2;
      sizes[c]++;
      sums[3 * c] += x;
      sums[3 * c + 1] += y;
      sums[3 * c + 2] += z;
    }
    let reseeded = false;
    for (let c = 0; c < count; c++) {
      if (sizes[c] > 0) {
        centers[3 * c] = sums[3 * c] / sizes[c];
        centers[3 * c + 1] = sums[3 * c + 1] / sizes[c];
        centers[3 * c + 2] = sums[3 * c + 2] / sizes[c];
        continue;
      }
      const worst = argmax(distance2);
      centers.set(samples.subarray(3 * worst, 3 * worst + 3), 3 * c);
      distance2[worst] = -1; // not picked twice
      reseeded = true;
    }
    if (!reseeded && (!changed || pass + 1 >= iterations)) break;
  }
  return { centers, assignment, sizes };
}

/** `count` samples, each the one farthest from those already chosen; the first is random. */
function farthestPointSeeds(samples: Float64Array, count: number, random: Random): Float64Array {
  const n = samples.length / 3;
  const seeds = new Float64Array(3 * count);
  const nearest2 = new Float64Array(n).fill(Infinity);
  let pick = random.nextInt(n);
  for (let s = 0; s < count; s++) {
    const px = samples[3 * pick], py = samples[3 * pick + 1], pz = samples[3 * pick + 2];
    seeds[3 * s] = px;
    seeds[3 * s + 1] = py;
    seeds[3 * s + 2] = pz;
    let farthest = 0, farthest2 = -1;
    for (let i = 0; i < n; i++) {
      const dx = samples[3 * i] - px, dy = samples[3 * i + 1] - py, dz = samples[3 * i + 2] - pz;
      const d2 = Math.min(nearest2[i], dx * dx + dy * dy + dz * dz);
      nearest2[i] = d2;
      if (d2 > farthest2) {
        farthest2 = d2;
        farthest = i;
      }
    }
    pick = farthest;
  }
  return seeds;
}

function argmax(values: Float64Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}
