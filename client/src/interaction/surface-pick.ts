// Finds where a hand, a fingertip or a ray meets a soft body's surface in the state shown now, from the body's
// surface samples (the same points the solver grabs and collides with). No allocation per call.

import type { ClientBody, ClientCharacter } from "../../../shared/net";

export interface SurfaceHit {
  bodyId: string;
  point: [number, number, number];
  /** Distance from the query point (nearest) or from the ray (ray), m. */
  distance: number;
  /** Along the ray, m (ray queries). */
  along: number;
}

export class SurfacePicker {
  private readonly p = new Float64Array(3);

  /** The surface sample nearest to (x, y, z) within maxDistance, over all bodies and characters. */
  nearest(bodies: Iterable<ClientBody>, x: number, y: number, z: number, maxDistance: number, characters: Iterable<ClientCharacter> = []): SurfaceHit | null {
    let best: SurfaceHit | null = null;
    for (const character of characters) {
      const p = character.surfaceWorld, f = character.motion.framePosition;
      if (!character.shown || Math.hypot(x - f[0], y - f[1], z - f[2]) > 2 * character.radius + maxDistance) continue;
      for (let i = 0; i < p.length; i += 3) {
        const d = Math.hypot(p[i] - x, p[i + 1] - y, p[i + 2] - z);
        if (d <= maxDistance && (!best || d < best.distance)) best = { bodyId: character.id, point: [p[i], p[i + 1], p[i + 2]], distance: d, along: 0 };
      }
    }
    for (const body of bodies) {
      if (this.outside(body, x, y, z, maxDistance)) continue;
      const s = body.body.subspace;
      for (let i = 0; i < s.surfaceCount; i++) {
        body.body.positionAt(body.displayQ, s.surfaceRows, s.surfaceRest, i, this.p, 0);
        const d = Math.hypot(this.p[0] - x, this.p[1] - y, this.p[2] - z);
        if (d <= maxDistance && (!best || d < best.distance)) best = { bodyId: body.id, point: [this.p[0], this.p[1], this.p[2]], distance: d, along: 0 };
      }
    }
    return best;
  }

  /**
   * The first surface sample along a ray (unit direction) within `radius` of it (plus `spread` per metre of
   * distance, so far bodies stay easy to hit), up to maxAlong metres.
   */
  ray(bodies: Iterable<ClientBody>, ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, maxAlong: number, radius: number, spread = 0.01, characters: Iterable<ClientCharacter> = []): SurfaceHit | null {
    let best: SurfaceHit | null = null;
    for (const character of characters) {
      if (!character.shown) continue;
      const p = character.surfaceWorld;
      for (let i = 0; i < p.length; i += 3) {
        const rx = p[i] - ox, ry = p[i + 1] - oy, rz = p[i + 2] - oz, along = rx * dx + ry * dy + rz * dz;
        if (along <= 0 || along > maxAlong) continue;
        const off = Math.hypot(rx - along * dx, ry - along * dy, rz - along * dz);
        if (off > radius + spread * along) continue;
        if (!best || along + 2 * off < best.along + 2 * best.distance) best = { bodyId: character.id, point: [p[i], p[i + 1], p[i + 2]], distance: off, along };
      }
    }
    for (const body of bodies) {
      const s = body.body.subspace;
      for (let i = 0; i < s.surfaceCount; i++) {
        body.body.positionAt(body.displayQ, s.surfaceRows, s.surfaceRest, i, this.p, 0);
        const rx = this.p[0] - ox, ry = this.p[1] - oy, rz = this.p[2] - oz;
        const along = rx * dx + ry * dy + rz * dz;
        if (along <= 0 || along > maxAlong) continue;
        const off = Math.hypot(rx - along * dx, ry - along * dy, rz - along * dz);
        if (off > radius + spread * along) continue;
        // The nearest hit along the ray wins; among samples at about the same depth, the one closest to the ray.
        const score = along + 2 * off;
        if (!best || score < best.along + 2 * best.distance) best = { bodyId: body.id, point: [this.p[0], this.p[1], this.p[2]], distance: off, along };
      }
    }
    return best;
  }

  /** Cheap reject: the point is farther from the body's moved centre than its size, doubled, plus the margin. */
  private outside(body: ClientBody, x: number, y: number, z: number, margin: number): boolean {
    const c = shownCentre(body, this.p);
    return Math.hypot(x - c[0], y - c[1], z - c[2]) > body.body.size * 2 + margin;
  }
}

/** Where the body frame's origin is in the state shown (the constant handle's translation): its centre, roughly. */
export function shownCentre(body: ClientBody, out: Float64Array): Float64Array {
  const q = body.displayQ, m = q.length / 3, o = body.body.origin;
  out[0] = o[0] + q[3]; out[1] = o[1] + q[m + 3]; out[2] = o[2] + q[2 * m + 3];
  return out;
}
