// Expressions evaluated in the app's page (window.pliant): positions as a viewer sees them, and how far a body's
// shape is from its rest shape. Strings, not functions: see browser.ts.

/** Index of the surface sample of a body nearest to a world point, as shown now. */
export const nearestSample = (body: string, p: number[]) => `(() => {
  const n = window.pliant.surfaceCount(${JSON.stringify(body)});
  let best = -1, bestD = Infinity;
  for (let i = 0; i < n; i++) {
    const q = window.pliant.surfacePoint(${JSON.stringify(body)}, i);
    const d = Math.hypot(q[0] - ${p[0]}, q[1] - ${p[1]}, q[2] - ${p[2]});
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

export const samplePoint = (body: string, i: number) => `window.pliant.surfacePoint(${JSON.stringify(body)}, ${i})`;

/**
 * Shape error of a body as shown: the largest change, over pairs of every 8th surface sample, of their distance
 * against the rest shape (m). Rigid motion leaves it at zero; stretching, squashing and dents raise it.
 */
export const shapeError = (body: string) => `(() => {
  const b = window.pliant.client.bodies.get(${JSON.stringify(body)});
  const s = b.body.subspace, rest = s.surfaceRest, n = s.surfaceCount;
  const pts = [];
  for (let i = 0; i < n; i += 8) pts.push([i, window.pliant.surfacePoint(${JSON.stringify(body)}, i)]);
  let worst = 0;
  for (let a = 0; a < pts.length; a++) for (let c = a + 1; c < pts.length; c++) {
    const [i, p] = pts[a], [j, q] = pts[c];
    const now = Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    const then = Math.hypot(rest[3*i] - rest[3*j], rest[3*i+1] - rest[3*j+1], rest[3*i+2] - rest[3*j+2]);
    worst = Math.max(worst, Math.abs(now - then));
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
