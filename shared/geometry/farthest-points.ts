// Farthest-point sampling: a deterministic, evenly spread subset of a point set (contact samples, the baseline's
// handle centres, the candidate centres of a body's contact spheres).

/** Indices of `count` points chosen farthest-first, starting from the point farthest from the centroid. */
export function farthestPointIndices(points: Float64Array, count: number): Int32Array {
  const n = points.length / 3;
  let cx = 0, cy = 0, cz = 0;
  for (let i = 0; i < n; i++) {
    cx += points[3 * i]; cy += points[3 * i + 1]; cz += points[3 * i + 2];
  }
  cx /= n; cy /= n; cz /= n;
  let current = 0, far = -1;
  for (let i = 0; i < n; i++) {
    const d = (points[3 * i] - cx) ** 2 + (points[3 * i + 1] - cy) ** 2 + (points[3 * i + 2] - cz) ** 2;
    if (d > far) { far = d; current = i; }
  }
  const chosen = new Int32Array(count);
  const nearest = new Float64Array(n).fill(Infinity);
  for (let k = 0; k < count; k++) {
    chosen[k] = current;
    const x = points[3 * current], y = points[3 * current + 1], z = points[3 * current + 2];
    let next = 0, best = -1;
    for (let i = 0; i < n; i++) {
      const dx = points[3 * i] - x, dy = points[3 * i + 1] - y, dz = points[3 * i + 2] - z;
      const d = dx * dx + dy * dy + dz * dz;
      if (d < nearest[i]) nearest[i] = d;
      if (nearest[i] > best) { best = nearest[i]; next = i; }
    }
    current = next;
  }
  return chosen;
}

/** The positions of farthestPointIndices (3 * count). */
export function farthestPoints(points: Float64Array, count: number): Float64Array {
  const chosen = new Float64Array(3 * count);
  farthestPointIndices(points, count).forEach((i, k) => chosen.set(points.subarray(3 * i, 3 * i + 3), 3 * k));
  return chosen;
}
