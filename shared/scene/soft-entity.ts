// A soft body placed in a scene: the solver body built from a BakedBody, plus the proxy spheres that stand in
// for its deformed shape towards Rapier (props bounce off them) and towards other soft bodies.

import { basisRows, SoftBody, Subspace } from "../sim";
import { farthestPoints, handleCount, toSubspaceSource, type BakedBody } from "../skinning";
import { SphereSetObstacle } from "./obstacles";
import type { MaterialPreset } from "./materials";

export const PROXY_SPHERES = 16;
/** The solver holds at most this many grabs a body. */
export const MAX_GRABS = 16;

export class SoftEntity {
  readonly body: SoftBody;
  readonly subspace: Subspace;
  /** Proxy sphere centres at rest (body metres) and their basis rows. */
  readonly proxyRest: Float64Array;
  readonly proxyRows: Float64Array;
  /** The proxies as an obstacle for other soft bodies (world positions, updated by `updateProxies`). */
  readonly proxies: SphereSetObstacle;
  /** Where the body starts: origin of its rest frame, world metres. */
  readonly spawn: Float64Array;
  /** Lowest rest point below the body origin, m (positive). */
  readonly restDepth: number;

  constructor(readonly id: string, readonly baked: BakedBody, readonly size: number, material: MaterialPreset, position: ArrayLike<number>) {
    this.subspace = new Subspace(toSubspaceSource(baked, size));
    const s = size / 2;
    let minY = Infinity;
    for (let i = 1; i < baked.renderPositions.length; i += 3) minY = Math.min(minY, baked.renderPositions[i] * s);
    this.restDepth = -minY;
    this.spawn = Float64Array.from([position[0], position[1] - minY, position[2]]);
    this.body = new SoftBody(this.subspace, material, { damping: material.damping }, this.spawn);
    // Proxies: farthest cubature points, each the largest sphere that fits inside the rest surface there.
    const h = handleCount(baked);
    const cubature = baked.cubaturePositions.map((v) => v * s);
    const count = Math.min(PROXY_SPHERES, cubature.length / 3);
    const centres = farthestPoints(cubature, count);
    const radii = new Float64Array(count);
    const weights = new Float64Array(count * h);
    const surface = baked.surfacePositions;
    for (let p = 0; p < count; p++) {
      let nearest = Infinity;
      for (let i = 0; i < surface.length / 3; i++) {
        nearest = Math.min(nearest, Math.hypot(surface[3 * i] * s - centres[3 * p], surface[3 * i + 1] * s - centres[3 * p + 1], surface[3 * i + 2] * s - centres[3 * p + 2]));
      }
      radii[p] = Math.max(nearest, 0.05 * size);
      // Weights of the nearest cubature point (the proxies are cubature points).
      let best = 0, bestDistance = Infinity;
      for (let c = 0; c < cubature.length / 3; c++) {
        const d = Math.hypot(cubature[3 * c] - centres[3 * p], cubature[3 * c + 1] - centres[3 * p + 1], cubature[3 * c + 2] - centres[3 * p + 2]);
        if (d < bestDistance) { bestDistance = d; best = c; }
      }
      weights.set(baked.cubatureWeights.subarray(best * h, (best + 1) * h), p * h);
    }
    this.proxyRest = centres;
    this.proxyRows = basisRows({ positions: centres, weights }, h);
    this.proxies = new SphereSetObstacle(radii);
    this.updateProxies();
  }

  /** Moves the proxy spheres to the body's current deformed positions. */
  updateProxies(): void {
    this.body.positions(this.proxyRows, this.proxyRest, this.proxies.centers);
    this.proxies.updateBound();
  }

  /** Back to the spawn point, at rest, with no grabs. */
  respawn(): void {
    for (let id = 0; id < MAX_GRABS; id++) this.body.release(id);
    this.body.reset();
    this.updateProxies();
  }
}
