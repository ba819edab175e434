// What the rigid props do to the soft bodies. Rapier stops a prop at a soft body's (kinematic) proxy spheres; the
// impulses it used there push the soft body back, applied on its next step at the proxies' points. Only the props'
// actual contact pairs are visited, through callbacks made once (nothing is allocated per pair).

import type RAPIER from "@dimforge/rapier3d-compat";
import type { BoxObstacle, SphereObstacle } from "./obstacles";
import { PROXY_SPHERES, type SoftEntity } from "./soft-entity";
import { spliced } from "./spliced";
import { length3 } from "../linalg/vector-length";

/** A rigid prop as the reactions see it: its Rapier body and collider, and its obstacle's bounding sphere. */
export interface ReactingProp {
  body: RAPIER.RigidBody;
  collider: RAPIER.Collider;
  obstacle: BoxObstacle | SphereObstacle;
}

export class PropReactions {
  /** Proxy collider handle -> body index * PROXY_SPHERES + proxy index. */
  private readonly proxyOwner = new Map<number, number>();
  private readonly propSphere = new Float64Array(4);
  /** Per body: contact impulse of each proxy with the prop being visited, and their sum. */
  private readonly proxyImpulse: Float64Array[];
  private bodyImpulse: Float64Array;
  private currentProp: ReactingProp | undefined;
  private pairImpulse = 0;

  /** `bodies`: the world's soft bodies (the same array, as bodies join and leave). */
  constructor(private readonly rapier: RAPIER.World, private readonly bodies: readonly SoftEntity[], private readonly dt: number) {
    this.proxyImpulse = bodies.map(() => new Float64Array(PROXY_SPHERES));
    this.bodyImpulse = new Float64Array(bodies.length);
  }

  /** Which body and proxy each proxy collider belongs to (again after a body joined or left). */
  numberProxies(proxyBodies: readonly RAPIER.RigidBody[][]): void {
    this.proxyOwner.clear();
    proxyBodies.forEach((proxies, b) => proxies.forEach((body, p) => this.proxyOwner.set(body.collider(0).handle, b * PROXY_SPHERES + p)));
  }

  /** A soft body joined as body `b` (the last), or body `b` left. */
  bodyAdded(b: number): void {
    this.bodyImpulse = spliced(this.bodyImpulse, b, 1, [0]);
    this.proxyImpulse.push(new Float64Array(PROXY_SPHERES));
  }

  bodyRemoved(b: number): void {
    this.bodyImpulse = spliced(this.bodyImpulse, b, 1);
    this.proxyImpulse.splice(b, 1);
  }

  /** Pushes the soft bodies back with what the last Rapier step's contacts with the props cost. */
  apply(props: readonly ReactingProp[]): void {
    const sphere = this.propSphere;
    for (const prop of props) {
      if (prop.body.isSleeping()) continue;
      this.bodyImpulse.fill(0);
      for (const impulses of this.proxyImpulse) impulses.fill(0);
      this.currentProp = prop;
      this.rapier.contactPairsWith(prop.collider, this.collectProxyContact);
      prop.obstacle.boundingSphere(sphere);
      for (let b = 0; b < this.bodies.length; b++) {
        const total = this.bodyImpulse[b];
        if (!(total > 0)) continue;
        // A prop caught between a body's (kinematic, unyielding) proxies and the scene can take any impulse Rapier
        // needs; what it can really pass on is bounded by its own momentum and weight (x2 for a bounce).
        const v = prop.body.linvel();
        const limit = prop.body.mass() * (2 * length3(v.x, v.y, v.z) + 2 * 9.81 * this.dt);
        const scale = total > limit ? limit / total : 1;
        const entity = this.bodies[b], centres = entity.proxies.centers, impulses = this.proxyImpulse[b];
        for (let p = 0; p < impulses.length; p++) {
          if (impulses[p] <= 0) continue;
          // Along the line from the prop's centre to the proxy's: exact for balls, close enough for blocks.
          const dx = centres[3 * p] - sphere[0], dy = centres[3 * p + 1] - sphere[1], dz = centres[3 * p + 2] - sphere[2];
          const length = length3(dx, dy, dz) || 1, force = (scale * impulses[p]) / this.dt / length;
          entity.body.applyForceAt(entity.proxyRows, p, force * dx, force * dy, force * dz);
        }
      }
    }
  }

  /** contactPairsWith callback: adds a proxy's contact impulse with the current prop to its body's tally. */
  private readonly collectProxyContact = (other: RAPIER.Collider): void => {
    const owner = this.proxyOwner.get(other.handle);
    if (owner === undefined) return;
    this.pairImpulse = 0;
    this.rapier.contactPair(other, this.currentProp!.collider, this.addManifoldImpulse);
    if (!(this.pairImpulse > 0)) return;
    const b = Math.floor(owner / PROXY_SPHERES), p = owner % PROXY_SPHERES;
    this.proxyImpulse[b][p] += this.pairImpulse;
    this.bodyImpulse[b] += this.pairImpulse;
  };

  private readonly addManifoldImpulse = (manifold: RAPIER.TempContactManifold): void => {
    for (let k = 0; k < manifold.numContacts(); k++) this.pairImpulse += manifold.contactImpulse(k);
  };
}
