// A world obstacle as a character's flesh feels it: the character's solver works in its frame (rig-motion.ts), so
// a point is taken to the world, measured there, and the obstacle's normal turned back into the frame.

import type { ContactSurface } from "../sim/contacts";
import type { RigMotion } from "./rig-motion";

export class FramedSurface implements ContactSurface {
  private readonly world = new Float64Array(3);
  private readonly normal = new Float64Array(3);

  constructor(private readonly inner: ContactSurface, private readonly motion: RigMotion) {}

  signedDistance(x: number, y: number, z: number, maxDistance: number, normalOut: Float64Array): number {
    const p = this.world, n = this.normal;
    this.motion.toWorld(x, y, z, p);
    const distance = this.inner.signedDistance(p[0], p[1], p[2], maxDistance, n);
    // R^T n for a turn about +y (toFrame without the translation).
    const c = Math.cos(this.motion.frameYaw), s = Math.sin(this.motion.frameYaw);
    normalOut[0] = c * n[0] - s * n[2];
    normalOut[1] = n[1];
    normalOut[2] = s * n[0] + c * n[2];
    return distance;
  }
}
