// The room's physical world, one fixed step at a time: Rapier for the static scene and the rigid props, the
// reduced solver for the soft bodies, coupled both ways. Rigid props collide with kinematic proxy spheres that
// follow each soft body's deformed shape; soft bodies feel the static boxes, the props, each other's proxies and
// fingertip pokes as penalty contacts (signed distances written in place: no allocation in the step).

import RAPIER from "@dimforge/rapier3d-compat";
import { Matrix4, Quaternion } from "three";
import { Homecoming, rigidCoordinates } from "./homecoming";
import { BoxObstacle, PARKED, placeFingertip, SphereObstacle, propObstacle, staticObstacle, type BoundedObstacle } from "./obstacles";
import type { PropSpec, SceneLayout } from "./layout";
import { PropReactions } from "./prop-reactions";
import type { SceneObstacles, SoftEntity } from "./soft-entity";
import { spliced } from "./spliced";
import { FOLD_FIRST_JUDGED, FOLD_JUDGED_EVERY, FOLD_SPEED } from "../sim";
import { length3 } from "../linalg/vector-length";

export type Rapier = typeof RAPIER;

let rapierReady: Promise<Rapier> | undefined;

/** Rapier's wasm, initialised once per process or page. */
export function loadRapier(): Promise<Rapier> {
  rapierReady ??= RAPIER.init().then(() => RAPIER);
  return rapierReady;
}

/** Most fingertip pokes at once (two hands for 16 players). */
export const MAX_POKES = 32;
/** Most steps a soft body may owe the world's tick (it waited for the budget): one snapshot's worth. */
const MAX_OWED_STEPS = 3;
/**
 * Per tick, how much of a body's costliest recent step its expected cost keeps: a one-off slow step (a GC pause,
 * a refactor) stops counting within a few ticks instead of holding the body back for a third of a second.
 */
const STEP_COST_DECAY = 0.5;
/** A body whose proxies spread over this many times their rest radius is put back at its spawn. */
const EXPLODED_BOUND = 4;
/**
 * Wall time a tick may spend stepping soft bodies (ms): a body whose step would end past it (judged by its recent
 * steps) waits for the next tick, and a step still running then stops after its first iteration (SoftBody.step's
 * deadline). A room counts it from its tick's start, so that inputs and Rapier count too: with the characters and
 * the snapshot's encoding after the soft bodies, bench:server measured a tick p99 of 7.3-8.1 ms at 16 players and
 * 100 watchers (about half the 16.7 ms period; the send after the tick and the garbage collector have the rest),
 * and as many body steps as with 6 ms counted after Rapier; 6 ms from the tick's start cost a fifth of them.
 */
export const SOLVER_BUDGET_MS = 6.5;
/**
 * A soft body whose material moves slower than this (mass-weighted RMS, m/s) for SLEEP_AFTER_TICKS in a row falls
 * asleep: smooth static friction lets a resting body creep by a millimetre a second, which would keep it (and its
 * snapshots) alive for ever. Anything within WAKE_MARGIN (m) of it wakes it. The speed is the one at which a body
 * is judged for a fold, and the ticks leave room for three judgements (FOLD_FIRST_JUDGED, FOLD_JUDGED_EVERY): a
 * body asleep in a fold would never be judged again.
 */
const SLEEP_SPEED = FOLD_SPEED;
const SLEEP_AFTER_TICKS = FOLD_FIRST_JUDGED + 2 * FOLD_JUDGED_EVERY + 5;
const WAKE_MARGIN = 0.05;

/** Whether two bounding spheres (x, y, z, r) come within `margin` of each other. */
function spheresWithin(a: ArrayLike<number>, b: ArrayLike<number>, margin: number): boolean {
  return length3(a[0] - b[0], a[1] - b[1], a[2] - b[2]) <= a[3] + b[3] + margin;
}

interface Prop {
  spec: PropSpec;
  body: RAPIER.RigidBody;
  collider: RAPIER.Collider;
  obstacle: BoxObstacle | SphereObstacle;
}

/** Props' angular damping (1/s): a ball rolling at 0.5 m/s on the floor comes to rest in a few seconds. */
const PROP_ANGULAR_DAMPING = 1;

export class SceneWorld {
  readonly rapier: RAPIER.World;
  readonly props: Prop[] = [];
  readonly pokes: SphereObstacle[] = [];
  private readonly proxyBodies: RAPIER.RigidBody[][] = [];
  private readonly scratch = { x: 0, y: 0, z: 0 };
  /** What the props' contacts do to the soft bodies. */
  private readonly reactions: PropReactions;
  /** 1 for each body put back at its spawn by the last step (its grabs are gone): the room drops them too. */
  respawned: Uint8Array;
  /** Ticks each soft body has moved slower than SLEEP_SPEED in a row. */
  private slowTicks: Int32Array;
  /** What each soft body's next step is expected to cost (ms): its recent steps' decaying maximum. */
  private expectedStepMs: Float64Array;
  /** Steps each soft body owes the world's tick (it waited for the budget). */
  private lagTicks: Int32Array;
  private readonly otherBound = new Float64Array(4);
  tick = 0;
  /** Ticks whose solver budget ran out before every awake soft body had stepped (the rest went first next tick). */
  deferredTicks = 0;
  /**
   * Running counts of soft-body steps taken, of steps put off to a later tick by the solver's budget (owed until
   * caught up), and of steps given up because the body already owed MAX_OWED_STEPS: each of those left a body 1/60 s
   * behind real time. Steps forgiven when a body falls asleep, flies home or is put back are neither.
   */
  bodySteps = 0;
  putOffSteps = 0;
  droppedSteps = 0;
  /**
   * Quasi-Newton iterations those steps took, and how many of them ended without converging (their iteration or
   * evaluation budget spent, a line search that found no lower energy, or stopped at the tick's deadline): what a
   * step costs, and why, when a room is saturated.
   */
  bodyIterations = 0;
  unconvergedSteps = 0;
  /**
   * Of those, the steps stopped at the tick's deadline (StepStats.cutShort). A stopped step still did its setup
   * and first iteration after the deadline: that is how far past it a step can run.
   */
  cutSteps = 0;
  /** The body that steps first next tick (turns rotate when a budget runs out). */
  private firstBody = 0;
  /** Bodies and props put back at their spawn after leaving the room or going non-finite. */
  escapes = 0;
  /** Flies soft bodies (things 0 .. B-1) and props (B ..) that left the table back to their spawn. */
  readonly homecoming: Homecoming;
  /** Per soft body: its shape's departure from a rigid motion when its flight home began (fades on the way). */
  private readonly flightDeformation: Float64Array[];
  private readonly centre = new Float64Array(3);
  /** Scratch for a flight's starting rotation. */
  private readonly launchRotation = new Quaternion();
  private readonly rotationMatrix = new Matrix4();
  private readonly bodyTypes: { kinematic: RAPIER.RigidBodyType; dynamic: RAPIER.RigidBodyType };
  private readonly statics: BoundedObstacle[] = [];
  private readonly rapierModule: Rapier;

  /**
   * `solverBudgetMs`: wall time a tick may spend stepping soft bodies before the rest wait a tick (each body's
   * step is itself bounded; this keeps several bodies under rough play within the 16.7 ms tick).
   */
  constructor(rapier: Rapier, readonly layout: SceneLayout, readonly bodies: SoftEntity[], readonly dt = 1 / 60, readonly solverBudgetMs = SOLVER_BUDGET_MS) {
    this.respawned = new Uint8Array(bodies.length);
    this.slowTicks = new Int32Array(bodies.length);
    this.expectedStepMs = new Float64Array(bodies.length);
    this.lagTicks = new Int32Array(bodies.length);
    this.rapierModule = rapier;
    this.rapier = new rapier.World({ x: 0, y: -9.81, z: 0 });
    this.rapier.timestep = dt;
    this.reactions = new PropReactions(this.rapier, this.bodies, dt);
    const statics = this.statics;
    const ground = this.rapier.createRigidBody(rapier.RigidBodyDesc.fixed());
    for (const box of layout.statics) {
      this.rapier.createCollider(rapier.ColliderDesc.cuboid(...box.half).setTranslation(...box.center).setFriction(0.7), ground);
      statics.push(staticObstacle(box));
    }
    for (const spec of layout.props) {
      // Rolling resistance, which Rapier does not model: a ball on the floor would otherwise roll and bounce off the
      // walls for minutes, and an idle room would never fall silent.
      const body = this.rapier.createRigidBody(rapier.RigidBodyDesc.dynamic().setTranslation(...spec.position).setCcdEnabled(true)
        .setAngularDamping(PROP_ANGULAR_DAMPING));
      const collider = spec.shape === "ball" ? rapier.ColliderDesc.ball(spec.size) : rapier.ColliderDesc.cuboid(spec.size, spec.size, spec.size);
      const created = this.rapier.createCollider(collider.setDensity(spec.density).setRestitution(0.4).setFriction(0.6), body);
      const obstacle = propObstacle(spec.shape, spec.size, spec.position);
      this.props.push({ spec, body, collider: created, obstacle });
    }
    for (let i = 0; i < MAX_POKES; i++) this.pokes.push(new SphereObstacle(0.01, [PARKED, PARKED, PARKED]));
    this.bodyTypes = { kinematic: rapier.RigidBodyType.KinematicPositionBased, dynamic: rapier.RigidBodyType.Dynamic };
    const homes: number[] = [], lowest: number[] = [];
    bodies.forEach((entity, b) => {
      const rest = entity.subspace.restCentroid;
      homes.push(entity.spawn[0] + rest[0], entity.spawn[1] + rest[1], entity.spawn[2] + rest[2]);
      lowest.push(layout.bodies[b]?.position[1] ?? entity.spawn[1]);
    });
    for (const spec of layout.props) {
      homes.push(...spec.position);
      lowest.push(spec.position[1] - spec.size);
    }
    this.homecoming = new Homecoming(layout, homes, lowest, dt);
    this.flightDeformation = bodies.map((entity) => new Float64Array(entity.body.n));
    for (const entity of bodies) {
      this.proxyBodies.push(this.createProxyBodies(entity));
      entity.attachObstacles(this.sceneObstacles(), bodies);
    }
    this.numberProxies();
  }

  /** The room's obstacles other than soft bodies, as a soft body (or a character) feels them. */
  sceneObstacles(): SceneObstacles {
    return { statics: this.statics, props: this.props.map((p) => p.obstacle), pokes: this.pokes };
  }

  /** Kinematic Rapier spheres that follow a soft body's proxies, so that props meet it. */
  private createProxyBodies(entity: SoftEntity): RAPIER.RigidBody[] {
    const rapier = this.rapierModule, proxies: RAPIER.RigidBody[] = [], c = entity.proxies.centers;
    for (let p = 0; p < entity.proxies.radii.length; p++) {
      const body = this.rapier.createRigidBody(rapier.RigidBodyDesc.kinematicPositionBased().setTranslation(c[3 * p], c[3 * p + 1], c[3 * p + 2]));
      this.rapier.createCollider(rapier.ColliderDesc.ball(entity.proxies.radii[p]).setFriction(0.6), body);
      proxies.push(body);
    }
    return proxies;
  }

  /** Which body and proxy each proxy collider belongs to (again after a body joined or left). */
  private numberProxies(): void {
    this.reactions.numberProxies(this.proxyBodies);
  }

  /**
   * A soft body joins the room (an upload) as the last body: its proxies enter Rapier, and it and every other
   * body feel each other. `lowestPoint`: the height its lowest point starts at (which surface is its home).
   * Returns its index. Not for use within a step.
   */
  addBody(entity: SoftEntity, lowestPoint: number): number {
    const b = this.bodies.length;
    this.bodies.push(entity);
    this.respawned = spliced(this.respawned, b, 1, [0]);
    this.slowTicks = spliced(this.slowTicks, b, 1, [0]);
    this.expectedStepMs = spliced(this.expectedStepMs, b, 1, [0]);
    this.lagTicks = spliced(this.lagTicks, b, 1, [0]);
    this.reactions.bodyAdded(b);
    this.flightDeformation.push(new Float64Array(entity.body.n));
    const rest = entity.subspace.restCentroid, spawn = entity.spawn;
    this.homecoming.insert(b, [spawn[0] + rest[0], spawn[1] + rest[1], spawn[2] + rest[2]], lowestPoint);
    this.proxyBodies.push(this.createProxyBodies(entity));
    this.numberProxies();
    entity.attachObstacles(this.sceneObstacles(), this.bodies);
    for (const other of this.bodies) if (other !== entity) other.meet(entity);
    return b;
  }

  /** Soft body b leaves the room; the bodies after it move down one index. Not for use within a step. */
  removeBody(b: number): void {
    const entity = this.bodies[b];
    if (!entity) return;
    this.bodies.splice(b, 1);
    for (const other of this.bodies) other.forget(entity);
    for (const body of this.proxyBodies[b]) this.rapier.removeRigidBody(body);
    this.proxyBodies.splice(b, 1);
    this.numberProxies();
    this.respawned = spliced(this.respawned, b, 1);
    this.slowTicks = spliced(this.slowTicks, b, 1);
    this.expectedStepMs = spliced(this.expectedStepMs, b, 1);
    this.lagTicks = spliced(this.lagTicks, b, 1);
    this.reactions.bodyRemoved(b);
    this.flightDeformation.splice(b, 1);
    this.homecoming.remove(b);
    // The same body goes first next tick (those after b moved down one).
    if (b < this.firstBody) this.firstBody--;
    if (this.firstBody >= this.bodies.length) this.firstBody = 0;
  }

  /** Whether soft body b is asleep (resting: not stepped until something touches it). */
  isAsleep(b: number): boolean {
    return this.slowTicks[b] >= SLEEP_AFTER_TICKS;
  }

  /**
   * Something may move body b this tick: a grab, a pending push, a fingertip, an awake body or a moving prop
   * within reach of it.
   */
  private disturbed(b: number): boolean {
    const entity = this.bodies[b], body = entity.body, bound = entity.proxies.bound, other = this.otherBound;
    if (body.activeGrabs() > 0 || body.hasPendingForce()) return true;
    for (let p = 0; p < this.pokes.length; p++) {
      this.pokes[p].boundingSphere(other);
      if (spheresWithin(bound, other, WAKE_MARGIN)) return true;
    }
    for (let o = 0; o < this.bodies.length; o++) {
      if (o === b || this.isAsleep(o)) continue;
      if (spheresWithin(bound, this.bodies[o].proxies.bound, WAKE_MARGIN)) return true;
    }
    for (let p = 0; p < this.props.length; p++) {
      const prop = this.props[p];
      if (prop.body.isSleeping()) continue;
      prop.obstacle.boundingSphere(other);
      if (spheresWithin(bound, other, WAKE_MARGIN)) return true;
    }
    return false;
  }

  /** Places fingertip sphere `slot` (or parks it with radius 0). */
  setPoke(slot: number, x: number, y: number, z: number, radius: number): void {
    placeFingertip(this.pokes[slot], x, y, z, radius);
  }

  /**
   * One fixed step: props and proxies in Rapier, then every soft body within `solverBudgetMs` (a caller with other
   * work this tick passes less). The budget counts from `since` (performance.now, ms; by default when the soft
   * bodies start): a room passes its tick's start, so that its inputs and Rapier count too. A step still running at
   * the budget's end stops after its first iteration, unconverged (SoftBody.step's deadline); the body first in
   * turn always steps, so it may run past the budget by its setup and one iteration.
   */
  step(solverBudgetMs = this.solverBudgetMs, since?: number): void {
    const s = this.scratch;
    for (let b = 0; b < this.bodies.length; b++) {
      const centers = this.bodies[b].proxies.centers, proxies = this.proxyBodies[b];
      for (let p = 0; p < proxies.length; p++) {
        s.x = centers[3 * p]; s.y = centers[3 * p + 1]; s.z = centers[3 * p + 2];
        proxies[p].setNextKinematicTranslation(s);
      }
    }
    this.flyPropsHome();
    stepRapier(this.rapier);
    this.reactions.apply(this.props);
    for (let p = 0; p < this.props.length; p++) {
      const prop = this.props[p], t = prop.body.translation(), r = prop.body.rotation();
      if (!Number.isFinite(t.x + t.y + t.z) || Math.abs(t.x) > this.layout.roomHalfExtent + 1 || Math.abs(t.z) > this.layout.roomHalfExtent + 1 || t.y < -1) {
        this.escapes++;
        this.respawnProp(prop);
        continue;
      }
      if (prop.obstacle instanceof BoxObstacle) prop.obstacle.setPose(t.x, t.y, t.z, r.x, r.y, r.z, r.w);
      else {
        const c = prop.obstacle.center;
        c[0] = t.x; c[1] = t.y; c[2] = t.z;
      }
      // A prop that lay off the table long enough flies home as a kinematic body (flyPropsHome).
      const thing = this.bodies.length + p;
      if (this.homecoming.hasHome(thing) && !this.homecoming.flying(thing) && this.homecoming.watch(thing, t.x, t.y, t.z, false)) {
        this.homecoming.launch(thing, t.x, t.y, t.z, this.launchRotation.set(r.x, r.y, r.z, r.w));
        prop.body.setBodyType(this.bodyTypes.kinematic, true);
      }
    }
    this.respawned.fill(0);
    // Bodies take turns to go first: a body whose step would run past the tick's solver budget waits for the next
    // tick (it moves at a lower rate for a moment) instead of the whole room slowing down. The first in turn
    // always steps, so every body keeps moving.
    const started = since ?? performance.now(), count = this.bodies.length, first = this.firstBody;
    let deferred = false;
    for (let k = 0; k < count; k++) {
      const b = (first + k) % count;
      if (this.homecoming.flying(b) && this.flyBodyHome(b)) continue;
      if (this.disturbed(b)) this.slowTicks[b] = 0;
      else if (this.slowTicks[b] >= SLEEP_AFTER_TICKS) {
        this.lagTicks[b] = 0; // asleep: nothing to step, nothing moves, nothing to catch up
        continue;
      }
      if (deferred || (k > 0 && performance.now() - started + this.expectedStepMs[b] > solverBudgetMs)) {
        if (!deferred) {
          this.deferredTicks++;
          this.firstBody = b;
          deferred = true;
        }
        // Owed steps are capped: after a long overload a body resumes where it is instead of fast-forwarding.
        if (this.lagTicks[b] >= MAX_OWED_STEPS) this.droppedSteps++;
        else this.putOffSteps++;
        this.lagTicks[b] = Math.min(MAX_OWED_STEPS, this.lagTicks[b] + 1);
        continue;
      }
      this.stepBody(b, started + solverBudgetMs);
    }
    // Bodies that waited catch up, a step more each per tick, while the budget allows: a body's state then keeps
    // to the world's tick, which snapshots carry and predicting clients reconcile against.
    for (let k = 0; k < count && !deferred; k++) {
      const b = (first + k) % count;
      if (this.lagTicks[b] === 0 || this.slowTicks[b] >= SLEEP_AFTER_TICKS) continue;
      if (performance.now() - started + this.expectedStepMs[b] > solverBudgetMs) break;
      this.lagTicks[b]--;
      this.stepBody(b, started + solverBudgetMs);
    }
    this.watchBodiesForAway();
    this.tick++;
  }

  /**
   * One tick of soft body b's flight home: placed on its path, not simulated. False when someone grabbed it: the
   * flight ends where it is and the body is simulated again from rest.
   */
  private flyBodyHome(b: number): boolean {
    const entity = this.bodies[b], body = entity.body;
    if (body.activeGrabs() > 0) {
      this.homecoming.land(b);
      body.stopMotion();
      return false;
    }
    const pose = this.homecoming.advance(b);
    if (!this.homecoming.flying(b)) entity.respawn();
    else {
      rigidCoordinates(body.q, body.m, body.origin, entity.subspace.restCentroid, pose.centre, pose.rotation);
      const deformation = this.flightDeformation[b], keep = 1 - pose.progress;
      for (let i = 0; i < deformation.length; i++) body.q[i] += keep * deformation[i];
    }
    body.stopMotion();
    entity.updateProxies();
    this.slowTicks[b] = 0;
    this.lagTicks[b] = 0;
    return true;
  }

  /** Props in flight home move as kinematic bodies along their path; at its end they are dynamic again. */
  private flyPropsHome(): void {
    const offset = this.bodies.length;
    for (let p = 0; p < this.props.length; p++) {
      if (!this.homecoming.flying(offset + p)) continue;
      const prop = this.props[p], pose = this.homecoming.advance(offset + p);
      if (this.homecoming.flying(offset + p)) {
        const c = pose.centre, r = pose.rotation;
        const s = this.scratch;
        s.x = c[0]; s.y = c[1]; s.z = c[2];
        prop.body.setNextKinematicTranslation(s);
        prop.body.setNextKinematicRotation(r);
      } else {
        prop.body.setBodyType(this.bodyTypes.dynamic, true);
        this.respawnProp(prop);
      }
    }
  }

  /** Counts how long each soft body on the ground has been off its surface, and sends the long-away ones home. */
  private watchBodiesForAway(): void {
    const centre = this.centre, m = this.rotationMatrix;
    for (let b = 0; b < this.bodies.length; b++) {
      if (!this.homecoming.hasHome(b) || this.homecoming.flying(b)) continue;
      const entity = this.bodies[b], body = entity.body;
      body.centroid(centre);
      if (!this.homecoming.watch(b, centre[0], centre[1], centre[2], body.activeGrabs() > 0)) continue;
      const r = body.rotation;
      m.set(r[0], r[1], r[2], 0, r[3], r[4], r[5], 0, r[6], r[7], r[8], 0, 0, 0, 0, 1);
      const rotation = this.launchRotation.setFromRotationMatrix(m);
      this.homecoming.launch(b, centre[0], centre[1], centre[2], rotation);
      // The shape's departure from the rigid motion it starts the flight in fades out on the way.
      const deformation = this.flightDeformation[b];
      rigidCoordinates(deformation, body.m, body.origin, entity.subspace.restCentroid, centre, rotation);
      for (let i = 0; i < deformation.length; i++) deformation[i] = body.q[i] - deformation[i];
    }
  }

  /** Steps soft body b once, within `deadline` (performance.now, ms), and puts it back at its spawn if it left the room. */
  private stepBody(b: number, deadline: number): void {
    const entity = this.bodies[b], before = performance.now();
    this.bodySteps++;
    entity.selectObstacles();
    const stats = entity.body.step(deadline);
    this.bodyIterations += stats.iterations;
    if (!stats.converged) this.unconvergedSteps++;
    if (stats.cutShort) this.cutSteps++;
    this.expectedStepMs[b] = Math.max(performance.now() - before, STEP_COST_DECAY * this.expectedStepMs[b]);
    if (!this.insideRoom(entity)) {
      this.escapes++;
      this.respawned[b] = 1;
      entity.respawn();
      this.slowTicks[b] = 0;
      this.lagTicks[b] = 0;
    } else {
      entity.updateProxies();
      this.slowTicks[b] = entity.body.rmsSpeed() < SLEEP_SPEED ? this.slowTicks[b] + 1 : 0;
      if (this.slowTicks[b] === SLEEP_AFTER_TICKS) entity.body.stopMotion();
    }
  }

  /** Steps soft body b is behind the world's tick (it waited for the budget and has not caught up yet). */
  lag(b: number): number {
    return this.lagTicks[b];
  }

  private insideRoom(entity: SoftEntity): boolean {
    const q = entity.body.q;
    for (let i = 0; i < q.length; i++) if (!Number.isFinite(q[i])) return false;
    const b = entity.proxies.bound, limit = this.layout.roomHalfExtent + 0.5;
    // Stretched to several times its size, a body has left physics (the solver lost it): treat it as gone too.
    const intact = b[3] < EXPLODED_BOUND * entity.restBoundRadius;
    return intact && Math.abs(b[0]) < limit && Math.abs(b[2]) < limit && b[1] > -0.5 && b[1] < this.layout.roomHeight + 0.5;
  }

  respawnProp(prop: Prop): void {
    prop.body.setTranslation({ x: prop.spec.position[0], y: prop.spec.position[1], z: prop.spec.position[2] }, true);
    prop.body.setRotation({ x: 0, y: 0, z: 0, w: 1 }, true);
    prop.body.setLinvel({ x: 0, y: 0, z: 0 }, true);
    prop.body.setAngvel({ x: 0, y: 0, z: 0 }, true);
  }

  /** Everything back to its spawn. */
  reset(): void {
    for (let i = 0; i < this.bodies.length + this.props.length; i++) this.homecoming.land(i);
    for (const prop of this.props) {
      prop.body.setBodyType(this.bodyTypes.dynamic, true);
      this.respawnProp(prop);
    }
    for (const entity of this.bodies) entity.respawn();
    this.slowTicks.fill(0);
    this.lagTicks.fill(0);
    for (let i = 0; i < MAX_POKES; i++) this.setPoke(i, 0, 0, 0, 0);
  }

  /** Wakes soft body b (its material changed, say). */
  wake(b: number): void {
    this.slowTicks[b] = 0;
  }

  dispose(): void {
    this.rapier.free();
  }
}

/**
 * World.step without what it does after the physics: walking every body and collider handle back into its JS maps
 * (for the soft bodies and joints Rapier may make inside a step; this world makes none). On the playground's 227
 * bodies that walk took 60 us a step, more than the step, and made garbage for every handle. Bodies and colliders
 * made by the World's methods are mapped when made, and removeRigidBody unmaps its own.
 */
function stepRapier(w: RAPIER.World): void {
  w.physicsPipeline.step(w.gravity, w.integrationParameters, w.islands, w.broadPhase, w.narrowPhase, w.bodies, w.colliders, w.softBodies, w.impulseJoints, w.multibodyJoints, w.ccdSolver);
}
