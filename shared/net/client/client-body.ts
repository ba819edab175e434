// A room's soft body as a client holds it: the server's recipe rebuilt from its bake (solver body and proxy
// spheres), the server states received for it, and the state shown. Shown from snapshots (interpolated) unless
// this client predicts it (body-predictor.ts).

import { MATERIALS, SoftEntity, isMaterialName } from "../../scene";
import type { SoftBody } from "../../sim";
import type { BakedBody } from "../../skinning";
import { length3 } from "../../linalg/vector-length";

export interface ClientBody {
  id: string;
  index: number;
  baked: BakedBody;
  /** The body as the server builds it: solver body, proxy spheres, contacts. */
  entity: SoftEntity;
  /** The local solver body (entity.body): predicted while held, otherwise only used to evaluate positions. */
  body: SoftBody;
  /** Latest server states (time received, q), oldest first. */
  snapshots: { at: number; tick: number; q: Float64Array }[];
  /** q shown now. */
  displayQ: Float64Array;
  predicting: boolean;
  /**
   * Prediction error at the last snapshot it was measured at, m: the largest distance between the server's and
   * the predicted surface (every 4th sample) for the same (acknowledged) frame, before the correction. NaN before any.
   */
  lastReconcileError: number;
  /** Snapshots at which lastReconcileError was measured, so far. */
  reconciles: number;
  /** How far the last reconciliation moved the prediction of now (m, surface as for lastReconcileError), before the fade. */
  lastCorrection: number;
  /** The material the local body simulates (follows the room's admin changes). */
  material: string;
}

/** What the room state says of a body (BodyState's fields a client builds it from). */
export type BodyInfo = { id: string; index: number; bake: string; size: number; material: string; spawnX: number; spawnY: number; spawnZ: number };

/** Server states a body keeps (interpolation needs the two around the shown time). */
const SNAPSHOTS_KEPT = 8;

/** A body as the server builds it, placed at the spawn the room announces. */
export function clientBody(info: BodyInfo, baked: BakedBody): ClientBody {
  const material = isMaterialName(info.material) ? info.material : "jelly";
  const entity = new SoftEntity(info.id, baked, info.size, MATERIALS[material], [info.spawnX, info.spawnY, info.spawnZ], "origin");
  const body = entity.body;
  body.releasesFolds = false; // the server's snapshots bring a released fold (SoftBody.releasesFolds)
  return {
    id: info.id, index: info.index, baked, entity, body, snapshots: [], displayQ: new Float64Array(body.n), predicting: false, lastReconcileError: NaN, reconciles: 0, lastCorrection: NaN, material,
  };
}

/** Keeps a server state of the body (the oldest beyond SNAPSHOTS_KEPT goes). */
export function keepSnapshot(body: ClientBody, at: number, tick: number, q: Float64Array): void {
  body.snapshots.push({ at, tick, q });
  if (body.snapshots.length > SNAPSHOTS_KEPT) body.snapshots.shift();
}

/** Shows the body as the server had it at time `at` (ms): between the two snapshots around it, or the newest. */
export function interpolateBody(body: ClientBody, at: number): void {
  const s = body.snapshots;
  if (s.length === 0) return;
  let i = s.length - 1;
  while (i > 0 && s[i - 1].at > at) i--;
  const b = s[i], a = i > 0 ? s[i - 1] : b;
  if (at >= b.at || a === b) {
    body.displayQ.set(b.q);
    return;
  }
  const t = Math.max(0, Math.min(1, (at - a.at) / Math.max(1, b.at - a.at)));
  for (let k = 0; k < b.q.length; k++) body.displayQ[k] = a.q[k] + t * (b.q[k] - a.q[k]);
}

/** Attempts at a bake's GET that the connection failed (not the server's answer) before giving up. */
const BAKE_FETCH_ATTEMPTS = 3;

/**
 * GET /bakes/HASH. A connection that fails under the request is tried again on a fresh one: Node's fetch reuses
 * idle keep-alive sockets, and one the server has just closed answers ECONNRESET (a test's client joining a busy
 * server hit it every time); a bake is immutable, so asking again is safe. An HTTP error is the server's answer.
 */
export async function fetchBakeFrom(http: string, hash: string): Promise<Uint8Array> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${http}/bakes/${hash}`);
      if (response.ok) return new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      if (attempt >= BAKE_FETCH_ATTEMPTS) throw error;
      continue;
    }
    throw new Error(`bake ${hash}: HTTP ${response.status}`);
  }
}

const pointScratch = new Float64Array(3), otherPointScratch = new Float64Array(3);

/** Largest distance between two states of a body over every 4th surface sample, m. */
export function surfaceDistance(body: ClientBody, a: Float64Array, b: Float64Array): number {
  const s = body.body.subspace, p = pointScratch, r = otherPointScratch;
  let worst = 0;
  for (let i = 0; i < s.surfaceCount; i += 4) {
    body.body.positionAt(a, s.surfaceRows, s.surfaceRest, i, p, 0);
    body.body.positionAt(b, s.surfaceRows, s.surfaceRest, i, r, 0);
    worst = Math.max(worst, length3(p[0] - r[0], p[1] - r[1], p[2] - r[2]));
  }
  return worst;
}
