// The room's obstacles as a predicting client knows them: the same static boxes as the server's world, the rigid
// props where the snapshots put them, every soft body's proxy spheres (from its snapshot q, or from the local
// prediction while it is predicted) and this client's own fingertips. The bodies are wired to them with
// SoftEntity.attachObstacles, exactly as SceneWorld wires the server's, so a predicted step meets what the
// server's step meets (other players' fingertips excepted: snapshots do not carry them).
//
// A predicted step runs ahead of the latest snapshot (by the round trip and the server's input queue), so props
// and bodies known from snapshots are carried forward to the step's tick on the velocity of their last two
// snapshots (for at most MAX_AHEAD ticks). A prop that a predicted body runs into is pushed out of its proxies, as
// the server's Rapier pushes a prop out of the (kinematic) proxies before the soft bodies step: the predicted body
// meets the prop where it will be, not a prop that stands still until the next snapshot says it moved.

import { BoxObstacle, PARKED, placeFingertip, SphereObstacle, propObstacle, staticObstacle, type BoundedObstacle } from "./obstacles";
import type { PropSpec, SceneLayout } from "./layout";
import type { SoftEntity } from "./soft-entity";
import { length3 } from "../linalg/vector-length";

/** Most ticks a snapshot state is carried forward; snapshots further apart than VELOCITY_SPAN give no velocity. */
const MAX_AHEAD = 15;
const VELOCITY_SPAN = 12;
/** Bodies known from snapshots are carried forward only within this distance (m) of the stepped body's bound. */
const NEAR = 0.3;

export interface PredictedProp {
  /** PropState.index: the prop's number in snapshots. */
  index: number;
  shape: PropSpec["shape"];
  size: number;
}

interface Motion {
  /** Tick of the latest state, and its velocity per tick (NaN tick: none yet). */
  tick: number;
  state: Float64Array;
  perTick: Float64Array;
  /** Whether the obstacle is where `state` puts it (no carrying forward applied). */
  placed: boolean;
}

export class PredictedScene {
  readonly statics: BoxObstacle[];
  /** By PropState.index (parked until the first snapshot places them). */
  readonly props: (BoxObstacle | SphereObstacle)[] = [];
  /** This client's fingertips, one per poke slot. */
  readonly pokes: SphereObstacle[] = [];
  private readonly propMotion: Motion[] = [];
  /** How far each prop has been pushed out of predicted bodies since the prediction's last reset. */
  private readonly propPush: Float64Array[] = [];
  private readonly normal = new Float64Array(3);
  private readonly sphere = new Float64Array(4);
  private readonly bodyMotion = new Map<SoftEntity, Motion>();
  /** Bodies whose proxies follow the local prediction. */
  private readonly predicted = new Set<SoftEntity>();
  private qScratch: Float64Array;
  private readonly obstacles: { statics: BoundedObstacle[]; props: BoundedObstacle[]; pokes: SphereObstacle[] };
  readonly entities: SoftEntity[];

  constructor(layout: SceneLayout, props: readonly PredictedProp[], entities: readonly SoftEntity[], pokeSlots: number) {
    this.entities = [...entities];
    this.statics = layout.statics.map(staticObstacle);
    for (const prop of [...props].sort((a, b) => a.index - b.index)) {
      this.props[prop.index] = propObstacle(prop.shape, prop.size, [PARKED, PARKED, PARKED]);
      this.propMotion[prop.index] = { tick: NaN, state: new Float64Array(7), perTick: new Float64Array(3), placed: true };
      this.propPush[prop.index] = new Float64Array(3);
    }
    for (let i = 0; i < pokeSlots; i++) this.pokes.push(new SphereObstacle(0.01, [PARKED, PARKED, PARKED]));
    const scene = { statics: this.statics, props: this.props.filter((p) => p !== undefined) as BoundedObstacle[], pokes: this.pokes };
    this.obstacles = scene;
    for (const entity of entities) {
      entity.attachObstacles(scene, entities);
      this.bodyMotion.set(entity, { tick: NaN, state: new Float64Array(entity.body.n), perTick: new Float64Array(entity.body.n), placed: true });
    }
    this.qScratch = new Float64Array(Math.max(0, ...entities.map((e) => e.body.n)));
  }

  /** A body that joined the room after this client built its scene (an upload), wired as SceneWorld.addBody wires it. */
  addEntity(entity: SoftEntity): void {
    this.entities.push(entity);
    entity.attachObstacles(this.obstacles, this.entities);
    for (const other of this.entities) other.meet(entity);
    this.bodyMotion.set(entity, { tick: NaN, state: new Float64Array(entity.body.n), perTick: new Float64Array(entity.body.n), placed: true });
    if (this.qScratch.length < entity.body.n) this.qScratch = new Float64Array(entity.body.n);
  }

  /** A body that left the room. */
  removeEntity(entity: SoftEntity): void {
    const i = this.entities.indexOf(entity);
    if (i < 0) return;
    this.entities.splice(i, 1);
    for (const other of this.entities) other.forget(entity);
    this.bodyMotion.delete(entity);
    this.predicted.delete(entity);
  }

  /**
   * A snapshot arrived. It leaves out what has not moved visibly since the server last sent it, so from now on
   * whatever it leaves out stands still: without this, a prop that stopped against something (or a body that came to
   * rest) was carried forward on the speed of its last two snapshots for good, MAX_AHEAD ticks past where it lies.
   * What the snapshot does carry gets its speed again from setPropPose and setBodyState.
   */
  snapshotArrived(): void {
    for (const motion of this.propMotion) motion?.perTick.fill(0);
    for (const motion of this.bodyMotion.values()) motion.perTick.fill(0);
  }

  /** A prop's pose from the snapshot of `tick`: position then unit quaternion (x, y, z, w). */
  setPropPose(index: number, pose: ArrayLike<number>, tick: number): void {
    const prop = this.props[index], motion = this.propMotion[index];
    if (!prop || !motion) return;
    const span = tick - motion.tick;
    for (let a = 0; a < 3; a++) motion.perTick[a] = span >= 1 && span <= VELOCITY_SPAN ? (pose[a] - motion.state[a]) / span : 0;
    for (let k = 0; k < 7; k++) motion.state[k] = pose[k];
    motion.tick = tick;
    prop.setPose(pose[0], pose[1], pose[2], pose[3], pose[4], pose[5], pose[6]);
    motion.placed = true;
  }

  /** A body known from snapshots: its q at `tick` (its proxies follow it, carried forward by `prepare`). */
  setBodyState(entity: SoftEntity, q: Float64Array, tick: number): void {
    const motion = this.bodyMotion.get(entity);
    if (!motion) return;
    const span = tick - motion.tick;
    for (let i = 0; i < q.length; i++) motion.perTick[i] = span >= 1 && span <= VELOCITY_SPAN ? (q[i] - motion.state[i]) / span : 0;
    motion.state.set(q);
    motion.tick = tick;
    if (!this.predicted.has(entity)) {
      entity.proxiesAt(q);
      motion.placed = true;
    }
  }

  /** Whether a body's proxies follow the local prediction (true) or its snapshots (false). */
  setPredicted(entity: SoftEntity, predicted: boolean): void {
    if (predicted) {
      this.predicted.add(entity);
      return;
    }
    this.predicted.delete(entity);
    const motion = this.bodyMotion.get(entity);
    if (motion && Number.isFinite(motion.tick)) {
      entity.proxiesAt(motion.state);
      motion.placed = true;
    }
  }

  /**
   * Before a predicted step of `entity` to server tick `tick` (NaN when unknown: the latest states as they are):
   * props and nearby bodies known from snapshots go where they are expected then.
   */
  prepare(entity: SoftEntity, tick: number): void {
    for (let p = 0; p < this.props.length; p++) {
      const prop = this.props[p], motion = this.propMotion[p];
      if (!prop || !motion || !Number.isFinite(motion.tick)) continue;
      const ahead = Number.isFinite(tick) ? Math.max(0, Math.min(MAX_AHEAD, tick - motion.tick)) : 0;
      const push = this.propPush[p];
      if (ahead === 0 && motion.placed && push[0] === 0 && push[1] === 0 && push[2] === 0) continue;
      const s = motion.state, v = motion.perTick;
      prop.setPose(s[0] + ahead * v[0] + push[0], s[1] + ahead * v[1] + push[1], s[2] + ahead * v[2] + push[2], s[3], s[4], s[5], s[6]);
      motion.placed = ahead === 0 && push[0] === 0 && push[1] === 0 && push[2] === 0;
    }
    const bound = entity.proxies.bound;
    for (const other of this.entities) {
      if (other === entity || this.predicted.has(other)) continue;
      const motion = this.bodyMotion.get(other)!;
      if (!Number.isFinite(motion.tick)) continue;
      const ahead = Number.isFinite(tick) ? Math.max(0, Math.min(MAX_AHEAD, tick - motion.tick)) : 0;
      if (ahead === 0 && motion.placed) continue;
      const b = other.proxies.bound;
      if (length3(b[0] - bound[0], b[1] - bound[1], b[2] - bound[2]) > b[3] + bound[3] + NEAR) continue;
      const q = this.qScratch.subarray(0, motion.state.length);
      for (let i = 0; i < q.length; i++) q[i] = motion.state[i] + ahead * motion.perTick[i];
      other.proxiesAt(q);
      motion.placed = ahead === 0;
    }
  }

  /** After a predicted step of `entity`: props inside its proxies are pushed out of them. */
  pushProps(entity: SoftEntity): void {
    const bound = entity.proxies.bound, centers = entity.proxies.centers, radii = entity.proxies.radii, n = this.normal;
    for (let p = 0; p < this.props.length; p++) {
      const prop = this.props[p];
      if (!prop) continue;
      prop.boundingSphere(this.sphere);
      if (length3(this.sphere[0] - bound[0], this.sphere[1] - bound[1], this.sphere[2] - bound[2]) > this.sphere[3] + bound[3]) continue;
      const push = this.propPush[p];
      let moved = false;
      for (let i = 0; i < radii.length; i++) {
        // The prop's signed distance at the proxy's centre, less its radius: how deep the proxy is in the prop.
        const depth = radii[i] - prop.signedDistance(centers[3 * i], centers[3 * i + 1], centers[3 * i + 2], radii[i], n);
        if (!(depth > 0)) continue;
        // Away from the proxy, along the prop's surface normal there (the normal points from the prop to the proxy).
        for (let a = 0; a < 3; a++) {
          push[a] -= depth * n[a];
          prop.center[a] -= depth * n[a];
        }
        moved = true;
      }
      if (moved) this.propMotion[p].placed = false;
    }
  }

  /** The prediction went back to a server state: props are where the snapshots say (and carried forward) again. */
  resetPushes(): void {
    for (const push of this.propPush) push?.fill(0);
  }

  /** Length of the props' pushes as copyPushes writes them (3 a prop). */
  get pushLength(): number {
    return 3 * this.propPush.length;
  }

  /** The props' pushes into `out` (pushLength): a replay spread over frames keeps its own beside the live steps'. */
  copyPushes(out: Float64Array): void {
    for (let p = 0; p < this.propPush.length; p++) {
      const push = this.propPush[p];
      for (let a = 0; a < 3; a++) out[3 * p + a] = push ? push[a] : 0;
    }
  }

  /** Sets the props' pushes from `from` (as copyPushes wrote them). */
  setPushes(from: Float64Array): void {
    for (let p = 0; p < this.propPush.length; p++) {
      const push = this.propPush[p];
      if (push) for (let a = 0; a < 3; a++) push[a] = from[3 * p + a];
    }
  }

  /** Places fingertip `slot` (radius > 0) or parks it. */
  setPoke(slot: number, x: number, y: number, z: number, radius: number): void {
    placeFingertip(this.pokes[slot], x, y, z, radius);
  }
}
