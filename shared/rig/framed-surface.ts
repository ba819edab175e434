// A world obstacle as a character's flesh feels it: the character's solver works in its frame (rig-motion.ts), so
// points are taken to the world, measured there, and the obstacle's normals turned back into the frame.

import type { ContactSurface } from "../sim/contacts";
import type { RigMotion } from "./rig-motion";

export class FramedSurface implements ContactSurface {
  /** The points and the obstacle's normals in the world (made for the first query's count: the body's surface samples, the same every step). */
  private worldPoints = new Float64Array(0);
  private worldNormals = new Float64Array(0);

  constructor(private readonly inner: ContactSurface, private readonly motion: RigMotion) {}

  signedDistances(count: number, points: Float64Array, margins: Float64Array, distances: Float64Array, normals: Float64Array): void {
    if (this.worldPoints.length < 3 * count) {
      this.worldPoints = new Float64Array(3 * count);
      this.worldNormals = new Float64Array(3 * count);
    }
    const world = this.worldPoints, n = this.worldNormals;
    this.motion.pointsToWorld(count, points, world);
    this.inner.signedDistances(count, world, margins, distances, n);
    this.motion.directionsToFrame(count, n, normals);
  }
}
