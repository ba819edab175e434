// A soft body placed in a scene: the solver body built from a BakedBody, plus the proxy spheres that stand in
// for its deformed shape towards Rapier (props bounce off them) and towards other soft bodies, and how it meets
// the room's obstacles. The one recipe for a room's soft body: the server's world and a predicting client both
// build their bodies here and wire their contacts with attachObstacles / selectObstacles, so that the two
// cannot drift apart.

import { boundsDiagonal, meshBounds } from "../geometry";
import { NearestPointGrid } from "../geometry/nearest-point-grid";
import { basisRows, grabRadius, MAX_GRABS, SoftBody, Subspace, type StepStats } from "../sim";
import { handleCount, proxyCandidates, toSubspaceSource, type BakedBody } from "../skinning";
import { sharedBodyShape, type BodyShape, type ProxyCover } from "./body-shape-cache";
import { NearbyObstacles, SphereSetObstacle, type BoundedObstacle } from "./obstacles";
import type { MaterialPreset } from "./materials";
import { length3 } from "../linalg/vector-length";

/** Most proxy spheres a body gets. */
export const PROXY_SPHERES = 128;
/**
 * Obstacles a body considers in a step: those whose bounding sphere comes within CONTACT_REACH (m) of the body's
 * bounding sphere grown by CONTACT_BOUND_SCALE (its own wobble within a step, plus the contact margin).
 */
export const CONTACT_BOUND_SCALE = 1.5;
export const CONTACT_REACH = 0.05;
/** A grab slips out of the hand when its material stays more than this far (m), or this share of the body's size, from its target. */
export const GRAB_SLIP_DISTANCE = 0.15;
export const GRAB_SLIP_FRACTION = 0.6;

/** How far (m) a grab's material may be from its target on a body of this size before the grab slips. */
export function grabSlipLimit(size: number): number {
  return Math.max(GRAB_SLIP_DISTANCE, GRAB_SLIP_FRACTION * size);
}

/** The room's obstacles other than soft bodies, as a soft body feels them. */
export interface SceneObstacles {
  /** The static scene (floor, table, walls). */
  statics: readonly BoundedObstacle[];
  /** The rigid props, posed where they are. */
  props: readonly BoundedObstacle[];
  /** Fingertips (spheres; parked far away when idle). */
  pokes: readonly BoundedObstacle[];
}

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

  /** The contacts the body queries (set by attachObstacles). */
  private nearby: NearbyObstacles | undefined;

  /**
   * `position` is where the body's lowest point starts (a layout's SoftBodySpec.position); with `placement`
   * "origin" it is the origin of the rest frame instead (the spawn a room announces: clients build the server's
   * bodies from it).
   */
  constructor(readonly id: string, readonly baked: BakedBody, readonly size: number, material: MaterialPreset, position: ArrayLike<number>, placement: "lowest-point" | "origin" = "lowest-point") {
    const s = size / 2;
    // Proxies: spheres inscribed in the rest shape (centred on dense interior points, radius = distance to the
    // surface), chosen greedily until they reach every surface sample within a small tolerance, so that a prop
    // cannot slip between them.
    const shape = sharedBodyShape(baked, size, () => buildBodyShape(baked, size));
    this.subspace = shape.subspace;
    let minY = Infinity;
    if (placement === "lowest-point") for (let i = 1; i < baked.renderPositions.length; i += 3) minY = Math.min(minY, baked.renderPositions[i] * s);
    this.spawn = Float64Array.from(placement === "lowest-point" ? [position[0], position[1] - minY, position[2]] : [position[0], position[1], position[2]]);
    this.body = new SoftBody(this.subspace, material, { damping: material.damping }, this.spawn);
    const { centres, radii, weights } = shape.cover;
    this.proxyRest = centres;
    this.proxyRows = basisRows({ positions: centres, weights }, handleCount(baked));
    this.proxies = new SphereSetObstacle(radii);
    this.updateProxies();
    this.restBoundRadius = this.proxies.bound[3];
    this.nudged = new Float64Array(this.body.n);
  }

  /** Radius of the proxies' bounding sphere at rest, m. */
  readonly restBoundRadius: number;

  /** Moves the proxy spheres to the body's current deformed positions. */
  updateProxies(): void {
    this.body.positions(this.proxyRows, this.proxyRest, this.proxies.centers);
    this.proxies.updateBound();
  }

  /** Moves the proxy spheres to the shape of any state q (a snapshot's, for a body known only from the server). */
  proxiesAt(q: Float64Array): void {
    const centers = this.proxies.centers;
    for (let p = 0; p < this.proxies.radii.length; p++) this.body.positionAt(q, this.proxyRows, this.proxyRest, p, centers, 3 * p);
    this.proxies.updateBound();
  }

  /**
   * Wires the body's contacts, once: the static scene, the props, the other bodies' proxies and the fingertips,
   * in that order (the nearest wins; ties go to the earlier).
   */
  attachObstacles(scene: SceneObstacles, bodies: readonly SoftEntity[]): void {
    if (this.nearby) throw new Error(`soft body "${this.id}" already has its obstacles`);
    this.nearby = new NearbyObstacles([...scene.statics, ...scene.props, ...bodies.filter((o) => o !== this).map((o) => o.proxies), ...scene.pokes]);
    this.body.addContactSurface(this.nearby);
  }

  /** Another body joined the room after this one was wired: its proxies become one of this body's contacts. */
  meet(other: SoftEntity): void {
    if (other !== this) this.nearby?.add(other.proxies);
  }

  /** Another body left the room. */
  forget(other: SoftEntity): void {
    this.nearby?.remove(other.proxies);
  }

  /** Picks the obstacles within reach of the body's proxies as they are now: call before each step. */
  selectObstacles(): void {
    const bound = this.proxies.bound;
    this.nearby?.select(bound[0], bound[1], bound[2], bound[3] * CONTACT_BOUND_SCALE, CONTACT_REACH);
  }

  /**
   * Steps the solver body among its selected obstacles and moves its proxies after it; past `deadline`
   * (performance.now, ms) the step stops after its current iteration (SoftBody.step). Returns the step's figures
   * (the solver's object, reused).
   */
  step(deadline = Infinity): StepStats {
    this.selectObstacles();
    const stats = this.body.step(deadline);
    this.updateProxies();
    return stats;
  }

  /**
   * Sets the body bouncing where it lies: adds to its velocity a hop (`upSpeed` m/s, world up) and a volume-keeping
   * squash of its rest shape about its centre (`squashRate` per second: the rest shape's height shrinks at that
   * rate, its width grows at half of it; a squash for an upright body, a shearing jiggle for a toppled one), so it
   * jiggles and lands where it was.
   */
  nudge(upSpeed: number, squashRate: number): void {
    const v = this.nudged, m = this.subspace.m;
    v.set(this.body.velocity);
    // Channel 0 is the constant one: its affine handle moves every point alike (see subspace.ts for the layout).
    v[m + 3] += upSpeed;
    v[0] += squashRate / 2;
    v[m + 1] -= squashRate;
    v[2 * m + 2] += squashRate / 2;
    this.body.setState(this.body.q, v);
  }

  private readonly nudged: Float64Array;

  // ----- grabs, at the entity's own radius and slip limit ---------------------------------------------------

  /** Grabs the surface near a world point (samples within grabRadius of its size); -1 when none is in reach. */
  grabAt(x: number, y: number, z: number): number {
    return this.body.grab(x, y, z, { radius: grabRadius(this.size) });
  }

  /** Recreates a grab as another copy of this body made it: the same samples at the same offsets from (x, y, z). */
  grabExactly(samples: ArrayLike<number>, offsets: ArrayLike<number>, x: number, y: number, z: number): number {
    return this.body.grabExactly(samples, offsets, x, y, z);
  }

  moveGrab(id: number, x: number, y: number, z: number): void {
    this.body.moveGrab(id, x, y, z);
  }

  release(id: number): void {
    this.body.release(id);
  }

  /** The surface samples a grab holds and their offsets from its target. */
  grabbedSamples(id: number): { samples: number[]; offsets: number[] } {
    return this.body.grabbedSamples(id);
  }

  /** How hard a grab pulls: its material's distance from its target as a share of the slip limit. */
  grabStrain(id: number): number {
    return this.body.grabStretch(id) / grabSlipLimit(this.size);
  }

  /** Whether a grab's material is further from its target than the slip limit: the hand loses it (room and prediction alike). */
  slipping(id: number): boolean {
    return this.body.grabStretch(id) > grabSlipLimit(this.size);
  }

  /** Grabs held now. */
  get heldGrabs(): number {
    return this.body.activeGrabs();
  }

  /** Material and its damping, as an admin sets them. */
  setMaterial(material: MaterialPreset): void {
    this.body.setMaterial(material);
    this.body.setDamping(material.damping);
  }

  /** Back to the spawn point, at rest, with no grabs. */
  respawn(): void {
    for (let id = 0; id < MAX_GRABS; id++) this.release(id);
    this.body.reset();
    this.updateProxies();
  }
}

/**
 * Greedy sphere cover of a body's surface samples: candidate centres are the dense interior (mass) points, each
 * with the largest radius that stays inside the surface (distance to the nearest surface sample or vertex); a
 * sample counts as covered when it lies within `tolerance` of a sphere. Body metres (scale `s`).
 */
/**
 * What a body's rest shape decides at a size: its subspace and proxy cover (a quarter second of work: a server
 * builds an upload's on its bake thread, and hands it to sharedBodyShape with adoptBodyShape).
 */
export function buildBodyShape(baked: BakedBody, size: number): BodyShape {
  return { subspace: new Subspace(toSubspaceSource(baked, size)), cover: coveringSpheres(baked, size / 2, Math.max(0.005, 0.025 * size)) };
}

/** A body shape built on another thread, as it arrives there (structured-cloned: plain objects of typed arrays). */
export function adoptBodyShape(cloned: BodyShape): BodyShape {
  return { subspace: Object.setPrototypeOf(cloned.subspace, Subspace.prototype) as Subspace, cover: cloned.cover };
}

function coveringSpheres(baked: BakedBody, s: number, tolerance: number): ProxyCover {
  const h = handleCount(baked);
  const { positions: candidates, weights: candidateWeights } = proxyCandidates(baked), nc = candidates.length / 3;
  const surface = baked.surfacePositions, ns = surface.length / 3;
  const vertices = baked.renderPositions, nv = vertices.length / 3;
  // Radius: distance to the nearest surface sample or render vertex (a grid: render meshes have tens of thousands).
  const targets = new Float64Array(3 * (ns + nv));
  targets.set(surface, 0);
  targets.set(vertices, 3 * ns);
  const bounds = meshBounds(targets);
  const cellSize = Math.max(1e-6, (2 * boundsDiagonal(bounds)) / Math.sqrt(ns + nv));
  const grid = new NearestPointGrid(targets, bounds, cellSize);
  const radius = new Float64Array(nc);
  for (let c = 0; c < nc; c++) {
    grid.nearest(candidates[3 * c], candidates[3 * c + 1], candidates[3 * c + 2]);
    radius[c] = Math.sqrt(grid.lastDistance2) * s;
  }
  // Which samples each candidate reaches, computed once.
  const reach: Int32Array[] = [];
  const scratch = new Int32Array(ns);
  for (let c = 0; c < nc; c++) {
    const x = candidates[3 * c] * s, y = candidates[3 * c + 1] * s, z = candidates[3 * c + 2] * s, r = radius[c] + tolerance;
    let count = 0;
    for (let i = 0; i < ns; i++) if (length3(surface[3 * i] * s - x, surface[3 * i + 1] * s - y, surface[3 * i + 2] * s - z) <= r) scratch[count++] = i;
    reach.push(scratch.slice(0, count));
  }
  const covered = new Uint8Array(ns);
  const chosen: number[] = [];
  while (chosen.length < PROXY_SPHERES) {
    let best = -1, bestGain = 0;
    for (let c = 0; c < nc; c++) {
      let gain = 0;
      for (const i of reach[c]) gain += 1 - covered[i];
      // Ties go to the bigger sphere (it also keeps props off the body's inside).
      if (gain > bestGain || (gain === bestGain && gain > 0 && radius[c] > radius[best])) { best = c; bestGain = gain; }
    }
    if (best < 0) break;
    chosen.push(best);
    for (const i of reach[best]) covered[i] = 1;
  }
  const centres = new Float64Array(3 * chosen.length), radii = new Float64Array(chosen.length), weights = new Float64Array(chosen.length * h);
  chosen.forEach((c, k) => {
    for (let a = 0; a < 3; a++) centres[3 * k + a] = candidates[3 * c + a] * s;
    radii[k] = radius[c];
    weights.set(candidateWeights.subarray(c * h, (c + 1) * h), k * h);
  });
  return { centres, radii, weights };
}
