// Expressions evaluated in the app's page (window.pliant): positions as a viewer sees them, and how far a body's
// shape is from its rest shape. Strings, not functions: see browser.ts.

/** Index of the surface sample of a body nearest to a world point (numbers, or an expression of the page), as shown now. */
export const nearestSample = (body: string, point: number[] | string) => `(() => {
  const n = window.pliant.surfaceCount(${JSON.stringify(body)}), p = ${typeof point === "string" ? point : JSON.stringify(point)};
  let best = -1, bestD = Infinity;
  for (let i = 0; i < n; i++) {
    const q = window.pliant.surfacePoint(${JSON.stringify(body)}, i);
    const d = Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]);
    if (d < bestD) { bestD = d; best = i; }
  }
  return best;
})()`;

/**
 * A surface sample on top of a body, near above its centre (a point a hand reaches from above; lifted there the
 * body hangs level instead of swinging by its head).
 */
export const topSample = (body: string) => `(() => {
  const id = ${JSON.stringify(body)}, n = window.pliant.surfaceCount(id);
  let cx = 0, cz = 0;
  for (let i = 0; i < n; i++) { const q = window.pliant.surfacePoint(id, i); cx += q[0] / n; cz += q[2] / n; }
  let best = 0, bestScore = -Infinity;
  for (let i = 0; i < n; i++) {
    const q = window.pliant.surfacePoint(id, i);
    const score = q[1] - 2 * Math.hypot(q[0] - cx, q[2] - cz);
    if (score > bestScore) { bestScore = score; best = i; }
  }
  return best;
})()`;

/** The surface samples of a body with the smallest and the largest x, among those within 3 cm of its mid height. */
/** The mean of a body's surface samples, x and z: over it, a push straight down does not roll a round body. */
export const centreXZ = (body: string) => `(() => {
  const id = ${JSON.stringify(body)}, n = window.pliant.surfaceCount(id);
  let cx = 0, cz = 0;
  for (let i = 0; i < n; i++) { const q = window.pliant.surfacePoint(id, i); cx += q[0] / n; cz += q[2] / n; }
  return [cx, cz];
})()`;

export const sideSamples = (body: string) => `(() => {
  const id = ${JSON.stringify(body)}, n = window.pliant.surfaceCount(id);
  let low = Infinity, high = -Infinity;
  for (let i = 0; i < n; i++) { const y = window.pliant.surfacePoint(id, i)[1]; low = Math.min(low, y); high = Math.max(high, y); }
  const mid = (low + high) / 2;
  let left = -1, right = -1, minX = Infinity, maxX = -Infinity;
  for (let i = 0; i < n; i++) {
    const p = window.pliant.surfacePoint(id, i);
    if (Math.abs(p[1] - mid) > 0.03) continue;
    if (p[0] < minX) { minX = p[0]; left = i; }
    if (p[0] > maxX) { maxX = p[0]; right = i; }
  }
  return [left, right];
})()`;

export const samplePoint = (body: string, i: number) => `window.pliant.surfacePoint(${JSON.stringify(body)}, ${i})`;

/** Remembers a body's shape as shown now (every 8th surface sample) under a name, for shapeChange. */
export const rememberShape = (body: string, name: string) => `(() => {
  const id = ${JSON.stringify(body)}, n = window.pliant.surfaceCount(id), points = [];
  for (let i = 0; i < n; i += 8) points.push(window.pliant.surfacePoint(id, i));
  (window.shapes ??= {})[${JSON.stringify(name)}] = points;
  return points.length;
})()`;

/** The largest change of a distance between two of those samples since rememberShape (m): zero for rigid motion. */
export const shapeChange = (body: string, name: string) => `(() => {
  const id = ${JSON.stringify(body)}, n = window.pliant.surfaceCount(id), then = window.shapes[${JSON.stringify(name)}], now = [];
  for (let i = 0; i < n; i += 8) now.push(window.pliant.surfacePoint(id, i));
  let worst = 0;
  for (let a = 0; a < now.length; a++) for (let b = a + 1; b < now.length; b++) {
    const d1 = Math.hypot(now[a][0] - now[b][0], now[a][1] - now[b][1], now[a][2] - now[b][2]);
    const d0 = Math.hypot(then[a][0] - then[b][0], then[a][1] - then[b][1], then[a][2] - then[b][2]);
    worst = Math.max(worst, Math.abs(d1 - d0));
  }
  return worst;
})()`;

/** How far a sample is pushed in towards the body's centre, against rest (m): positive inside. */
export const sampleDepth = (body: string, i: number) => `(() => {
  const b = window.pliant.client.bodies.get(${JSON.stringify(body)});
  const s = b.body.subspace, rest = s.surfaceRest, n = s.surfaceCount;
  let cx = 0, cy = 0, cz = 0, rx = 0, ry = 0, rz = 0;
  for (let k = 0; k < n; k++) {
    const p = window.pliant.surfacePoint(${JSON.stringify(body)}, k);
    cx += p[0] / n; cy += p[1] / n; cz += p[2] / n;
    rx += rest[3*k] / n; ry += rest[3*k+1] / n; rz += rest[3*k+2] / n;
  }
  const p = window.pliant.surfacePoint(${JSON.stringify(body)}, ${i});
  const restDistance = Math.hypot(rest[3*${i}] - rx, rest[3*${i}+1] - ry, rest[3*${i}+2] - rz);
  return restDistance - Math.hypot(p[0] - cx, p[1] - cy, p[2] - cz);
})()`;
