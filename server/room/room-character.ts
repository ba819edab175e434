// A character in a room: its director (what it plays, where it walks), its flesh (complementary dynamics, stepped
// with the room's ticks), the room's obstacles as it feels them (floor, table legs, walls, props and fingertips,
// seen from its frame), hands holding it, and what of it goes into snapshots. With its untouched layers on, the
// linearised flesh, or a trained secondary-motion network on the clips it learned, or (beyond the room's budget)
// every page's springs, moves its flesh while nothing touches it (flesh-switch.ts): "touches" is a prop or fingertip
// within a few centimetres of its surface, not of its bounding sphere, so a fox walking past the props on the floor
// keeps its network's flesh (and snapshots carry only its pose). Standing still, it falls silent: its pose
// is sent when it changes, and the solver's soft part when it moved visibly since last sent, as bodies are.

import { LIMITS, type CharacterMode, type SnapshotWriter } from "../../shared/net";
import { grabRadius, type Subspace } from "../../shared/sim";
import { CharacterBody, FramedSurface, LinearFlesh } from "../../shared/rig";
import { displacementAt } from "../../shared/sim";
import { saturate } from "../../shared/rig/flesh-limit";
import { CHARACTER_MAX_ITERATIONS, fleshFor } from "../../shared/rig/character-defaults";
import { BoxObstacle, NearbyObstacles, type BoundedObstacle, type SceneObstacles } from "../../shared/scene";
import type { CharacterSpec } from "../../shared/scene/layout";
import type { BakedBody } from "../../shared/skinning";
import { CharacterDirector, type CharacterPose } from "../characters/character-director";
import { FleshSwitch, type FleshSource } from "../characters/flesh-switch";
import { RnnCharacter, type SecondaryNetwork } from "../../shared/rig/rnn-character";
import { length3 } from "../../shared/linalg/vector-length";

/**
 * A soft part none of whose surface samples moved more than this (m) since it was last sent is left out of
 * snapshots: below what anyone can see, above the 0.1-0.2 mm the solver's flesh still stirs standing still.
 */
export const IDLE_SOFT_DISTANCE = 1e-3;
/** Obstacles within this of the character's bounding sphere are felt (m). */
const REACH = 0.1;
/**
 * A prop or fingertip this near (m) a surface sample where the rig put it hands the flesh to the solver: it may touch
 * by the next tick. It covers what the test leaves out: the soft part (millimetres) and a tick of the pose (the
 * samples are the last tick's, ~2.5 cm for the walk's fastest paw). The walking fox passes the floor's props by 20 cm.
 */
const TOUCH_MARGIN = 0.05;
/** Poses of its clips sampled this often (s) to find how far its body reaches, at most so many a clip. */
const REACH_SAMPLE_SECONDS = 1 / 30;
const MAX_REACH_SAMPLES = 300;
/** Its bounding sphere's radius, as a share of its size (m). */
export const CHARACTER_BOUND_SHARE = 0.6;
/** A static box whose top is this little above the ground it stands on (m) is that ground, or below it. */
const GROUND_TOP = 1e-3;

interface HeldCharacterGrab {
  grab: number;
  /** The surface samples it holds. */
  samples: Int32Array;
  /** The grabbed point from the held samples' centroid where the rig put them when grabbed (the frame's axes). */
  offset: Float64Array;
  /** Where the hand is, world metres (the frame moves under it: re-aimed every tick). */
  target: Float64Array;
}

export class RoomCharacter {
  readonly character: CharacterBody;
  readonly director: CharacterDirector;
  readonly pose: CharacterPose = { clip: 0, time: 0, clip2: 0, time2: 0, blend: 1, running: true, running2: true, x: 0, z: 0, yaw: 0 };
  /** World bounding sphere (x, y, z, r) as of the last step. */
  readonly bound = new Float64Array(4);
  private readonly nearby: NearbyObstacles;
  private readonly grabs = new Map<string, HeldCharacterGrab>();
  /** The file's origin (where the clips put the feet, at the floor) in the body's metres. */
  private readonly root = new Float64Array(3);
  private readonly point = new Float64Array(3);
  /** A grabbed point where the rig carries it (frame metres). */
  private readonly anchor = new Float64Array(3);
  private readonly normal = new Float64Array(3);
  private readonly lastSentQ: Float64Array;
  /** The soft part's change since last sent (3m). */
  private readonly sentChange: Float64Array;
  private readonly lastSentPose: CharacterPose = { clip: -1, time: NaN, clip2: -1, time2: NaN, blend: NaN, running: false, running2: false, x: NaN, z: NaN, yaw: NaN };
  private readonly radius: number;
  /** Its height in its clips (m): props whose bounding sphere is all above it are not in its way. */
  private readonly height: number;
  private readonly floorProps: readonly BoundedObstacle[];
  /** The props in its way this tick, (x, z, radius) each (director.avoid). */
  private readonly floorObstacles: Float64Array;
  private readonly sphere = new Float64Array(4);
  /** softQ. */
  private readonly shownQ: Float64Array;
  /** Things that touch without holding: fingertips and props (the floor and the room's statics do not count). */
  private readonly touching: NearbyObstacles;
  private flesh: FleshSwitch | null = null;
  /** Per clip: whether the network learned it (a clip it never saw is left to the other layers: it extrapolates badly). */
  private learnedClips: boolean[] = [];

  /**
   * `name`: what people are told it is (an upload's name; the room's own: its id). `subspace`: its bake's at its size,
   * built on the upload's bake thread (else here: a tenth of a second on the room's thread).
   */
  constructor(readonly id: string, readonly index: number, readonly spec: CharacterSpec, private readonly baked: BakedBody, obstacles: SceneObstacles, readonly dt: number, readonly name = id, subspace?: Subspace) {
    const flesh = fleshFor(spec.size);
    this.character = new CharacterBody(baked, spec.size, flesh, { dt, damping: flesh.damping, maxIterations: CHARACTER_MAX_ITERATIONS }, subspace);
    const motion = this.character.motion;
    for (let a = 0; a < 3; a++) this.root[a] = -motion.unitScale * motion.unitCentre[a];
    const reach = this.bodyReach();
    this.height = reach.height;
    this.director = new CharacterDirector(spec, this.character.rig.clips, reach);
    this.floorProps = obstacles.props;
    this.floorObstacles = new Float64Array(3 * obstacles.props.length);
    // Not the floor: its clips put its paws up to 1 cm into it walking and 2 cm running, and the flesh pressed out
    // of the floor squashed the paws' triangles by 1.5x (its network, moving it most of the time, feels no floor).
    // Nor, for one standing on the table, the table and what is below its top.
    const ground = spec.ground ?? 0;
    const statics = obstacles.statics.filter((o) => !(o instanceof BoxObstacle && o.center[1] + o.half[1] <= ground + GROUND_TOP));
    this.nearby = new NearbyObstacles([...statics, ...obstacles.props, ...obstacles.pokes]);
    this.touching = new NearbyObstacles([...obstacles.props, ...obstacles.pokes]);
    this.character.body.addContactSurface(new FramedSurface(this.nearby, motion));
    this.shownQ = new Float64Array(this.character.body.n);
    this.lastSentQ = new Float64Array(this.character.body.n).fill(NaN);
    this.sentChange = new Float64Array(this.character.body.n);
    this.radius = CHARACTER_BOUND_SHARE * spec.size;
    this.place();
  }

  get mode(): CharacterMode {
    return this.director.mode;
  }

  setMode(mode: CharacterMode): void {
    this.director.setMode(mode);
  }

  /**
   * Moves its untouched flesh by layers cheaper than the solver (flesh-switch.ts): the linearised flesh, and on the
   * clips it learned a trained secondary-motion network (its own hidden state), when there is one.
   */
  useUntouchedLayers(network: SecondaryNetwork | null = null): void {
    const body = this.character.body;
    this.flesh ??= new FleshSwitch(this.character, new LinearFlesh(this.character.subspace, body.material, body.options.damping, this.dt), this.dt);
    this.flesh.setNetwork(network ? new RnnCharacter(this.baked, this.spec.size, network, this.character.motion) : null);
    this.learnedClips = this.character.rig.clips.map((clip) => network?.info.clips.includes(clip.name) ?? false);
  }

  /**
   * Whether pages move its untouched flesh off its network's clips (their springs) instead of the room's linearised
   * flesh: a character beyond the room's budget (SERVER_FLESH_CHARACTERS). Needs the untouched layers.
   */
  set pagesMoveFlesh(on: boolean) {
    if (this.flesh) this.flesh.pagesMoveFlesh = on;
  }

  get pagesMoveFlesh(): boolean {
    return this.flesh?.pagesMoveFlesh ?? false;
  }

  /** Where its soft part comes from now: "rnn" or "springs" while pages work it out themselves (snapshots leave it out). */
  get fleshSource(): FleshSource {
    return this.flesh?.source ?? "sim";
  }

  /**
   * The soft part shown and sent (3m): the solver's, the linearised flesh's, the network's, or the last two
   * crossfading, within the flesh's limits (the network's answers come limited; the others' states are not, so that
   * they settle as they would); rest while the pages' springs move it.
   */
  get softQ(): Float64Array {
    return this.shownQ;
  }

  /** One tick: the director's clock, the pose and frame, the hands re-aimed, the obstacles near it, the flesh. */
  step(): void {
    this.walk();
    const body = this.character.body, motion = this.character.motion, p = this.point, anchor = this.anchor, reach = this.character.limit.reach;
    for (const held of this.grabs.values()) {
      // The hand pulls the flesh towards itself, but no further than the flesh may go: a saturating pull, smooth
      // in the hand's distance (the hand lets go at CHARACTER_GRAB_SLIP, further out).
      this.grabbedPoint(held, anchor);
      motion.toFrame(held.target[0], held.target[1], held.target[2], p);
      const dx = p[0] - anchor[0], dy = p[1] - anchor[1], dz = p[2] - anchor[2], distance = length3(dx, dy, dz);
      const pull = distance > 0 ? (reach * saturate(distance / reach)) / distance : 0;
      body.moveGrab(held.grab, anchor[0] + pull * dx, anchor[1] + pull * dy, anchor[2] + pull * dz);
    }
    this.nearby.select(this.bound[0], this.bound[1], this.bound[2], this.bound[3], REACH);
    if (this.flesh) {
      const pose = this.pose, learned = this.learnedClips;
      this.flesh.step(this.grabs.size > 0 || this.touched(), learned[pose.clip2] && (pose.blend === 1 || learned[pose.clip]));
    } else {
      this.character.step();
    }
    this.shownQ.set(this.flesh?.q ?? body.q);
    // (The network's answers come limited; the pages' springs are at rest here.)
    if (this.fleshSource === "sim" || this.fleshSource === "linear") this.character.limit.apply(this.shownQ);
  }

  /**
   * The director's tick (round the props on the floor where they are now) and the pose and frame it sets; the
   * posed surface follows on the flesh's step (or motion.poseSurface()).
   */
  walk(): void {
    this.director.avoid(this.floorObstacles, this.propsOnTheFloor());
    this.director.advance(this.dt);
    this.place();
  }

  /**
   * How far its body reaches from where it stands (the file's origin, between its feet) in any pose of its clips:
   * to either side, ahead or behind, and up (m). Its pose is left as the last clip's.
   */
  private bodyReach(): { halfWidth: number; halfLength: number; height: number } {
    const motion = this.character.motion, posed = motion.posedSurface, r = this.root;
    let halfWidth = 0, halfLength = 0, height = 0;
    for (const clip of this.character.rig.clips) {
      // A long clip (an upload's may last minutes) is sampled as evenly, but no more than MAX_REACH_SAMPLES times.
      const samples = Math.min(MAX_REACH_SAMPLES, Math.ceil(clip.duration / REACH_SAMPLE_SECONDS));
      for (let k = 0; k <= samples; k++) {
        const t = samples > 0 ? (k * clip.duration) / samples : 0;
        motion.pose.sampleBlend(clip, t, clip, t, 1);
        motion.poseJoints();
        motion.poseSurface();
        for (let i = 0; i < posed.length; i += 3) {
          halfWidth = Math.max(halfWidth, Math.abs(posed[i] - r[0]));
          height = Math.max(height, posed[i + 1] - r[1]);
          halfLength = Math.max(halfLength, Math.abs(posed[i + 2] - r[2]));
        }
      }
    }
    return { halfWidth, halfLength, height };
  }

  /** Writes the props lower than its height into floorObstacles, (x, z, radius) each; returns how many. */
  private propsOnTheFloor(): number {
    const sphere = this.sphere, out = this.floorObstacles;
    let count = 0;
    for (const prop of this.floorProps) {
      prop.boundingSphere(sphere);
      if (sphere[1] - sphere[3] > this.height) continue;
      out[3 * count] = sphere[0]; out[3 * count + 1] = sphere[2]; out[3 * count + 2] = sphere[3];
      count++;
    }
    return count;
  }

  /** Whether a prop or fingertip comes within TOUCH_MARGIN of its surface (the samples where the rig put them). */
  private touched(): boolean {
    const bound = this.bound, touching = this.touching;
    touching.select(bound[0], bound[1], bound[2], bound[3], REACH);
    if (touching.selected === 0) return false;
    const motion = this.character.motion, p = motion.posedSurface, f = motion.framePosition;
    const c = Math.cos(motion.frameYaw), s = Math.sin(motion.frameYaw);
    for (let i = 0; i < p.length; i += 3) {
      // RigMotion.toWorld, with the turn's sine and cosine taken once.
      const x = f[0] + c * p[i] + s * p[i + 2], y = f[1] + p[i + 1], z = f[2] - s * p[i] + c * p[i + 2];
      if (touching.signedDistance(x, y, z, TOUCH_MARGIN, this.normal) <= TOUCH_MARGIN) return true;
    }
    return false;
  }

  /**
   * Takes hold of the surface near a world point for the hand `key`: the grab's id, or a reason it could not.
   * Grabbing with a hand that already holds it lets go first.
   */
  grab(key: string, point: readonly [number, number, number]): string | null {
    this.release(key);
    const p = this.point, motion = this.character.motion;
    if (length3(point[0] - this.bound[0], point[1] - this.bound[1], point[2] - this.bound[2]) > this.bound[3] + LIMITS.grabSlack) return `the point is not on the ${this.name}`;
    motion.toFrame(point[0], point[1], point[2], p);
    const grab = this.character.body.grab(p[0], p[1], p[2], { radius: grabRadius(this.spec.size) });
    if (grab < 0) return `the point is not on the ${this.name}'s surface`;
    const held: HeldCharacterGrab = { grab, samples: Int32Array.from(this.character.body.grabbedSamples(grab).samples), offset: new Float64Array(3), target: Float64Array.from(point) };
    this.grabbedPoint(held, this.anchor);
    for (let a = 0; a < 3; a++) held.offset[a] = p[a] - this.anchor[a];
    this.grabs.set(key, held);
    return null;
  }

  /** Where the rig carries a grab's grabbed point now, in the character's frame (the flesh left out). */
  private grabbedPoint(held: HeldCharacterGrab, out: Float64Array): void {
    const posed = this.character.motion.posedSurface, samples = held.samples;
    out[0] = held.offset[0]; out[1] = held.offset[1]; out[2] = held.offset[2];
    for (let j = 0; j < samples.length; j++) {
      const s = 3 * samples[j];
      out[0] += posed[s] / samples.length; out[1] += posed[s + 1] / samples.length; out[2] += posed[s + 2] / samples.length;
    }
  }

  /**
   * How far (m) a hand is from the point it grabbed, where the rig carries that point now: the room lets go past
   * CHARACTER_GRAB_SLIP.
   */
  stretch(key: string): number {
    const held = this.grabs.get(key);
    if (!held) return 0;
    const anchor = this.anchor, world = this.point;
    this.grabbedPoint(held, anchor);
    this.character.motion.toWorld(anchor[0], anchor[1], anchor[2], world);
    return length3(held.target[0] - world[0], held.target[1] - world[1], held.target[2] - world[2]);
  }

  /**
   * Moves a hand's target (world metres). False when the target is further from the character than a hand on a body
   * may pull (LIMITS.grabStretch beyond its bounding sphere): it has walked away from the hand, which must let go.
   */
  moveGrab(key: string, target: readonly [number, number, number]): boolean {
    const held = this.grabs.get(key);
    if (!held) return true;
    if (length3(target[0] - this.bound[0], target[1] - this.bound[1], target[2] - this.bound[2]) > LIMITS.grabStretch + this.bound[3]) return false;
    held.target.set(target);
    return true;
  }

  release(key: string): void {
    const held = this.grabs.get(key);
    if (!held) return;
    this.character.body.release(held.grab);
    this.grabs.delete(key);
  }

  /**
   * Its soft part as a body and its pose as a character, when they changed since last sent (`full`: regardless).
   * Bodies' section first: call `body` in the bodies section and `entry` in the characters section.
   */
  writeBody(writer: SnapshotWriter, full: boolean): void {
    const q = this.softQ, last = this.lastSentQ;
    // Pages work out the network's flesh and the springs themselves; when the solver takes over again, they need all of it.
    if (this.fleshSource === "rnn" || this.fleshSource === "springs") {
      last.fill(NaN);
      return;
    }
    if (!full && !this.softMoved(q)) return;
    writer.body(this.index, q);
    if (!full) last.set(q);
  }

  /** Whether a surface sample's soft displacement changed by more than IDLE_SOFT_DISTANCE since q was last sent. */
  private softMoved(q: Float64Array): boolean {
    const last = this.lastSentQ, change = this.sentChange, u = this.point;
    // Not sent since the network's flesh was shown (or ever): pages need all of it.
    if (Number.isNaN(last[0])) return true;
    for (let i = 0; i < q.length; i++) change[i] = q[i] - last[i];
    const rows = this.character.subspace.surfaceRows, samples = this.character.subspace.surfaceCount;
    for (let j = 0; j < samples; j++) {
      displacementAt(rows, change, j, u);
      if (u[0] * u[0] + u[1] * u[1] + u[2] * u[2] > IDLE_SOFT_DISTANCE * IDLE_SOFT_DISTANCE) return true;
    }
    return false;
  }

  writeEntry(writer: SnapshotWriter, full: boolean): void {
    const p = this.pose, last = this.lastSentPose;
    const changed = full || p.clip !== last.clip || p.time !== last.time || p.clip2 !== last.clip2 || p.time2 !== last.time2 || p.blend !== last.blend
      || p.running !== last.running || p.running2 !== last.running2 || p.x !== last.x || p.z !== last.z || p.yaw !== last.yaw;
    if (!changed) return;
    const f = this.character.motion.framePosition;
    writer.character(this.index, p, f[0], f[1], f[2], this.character.motion.frameYaw);
    if (!full) Object.assign(last, p);
  }

  /** Samples the director's pose into the rig and puts the frame where the pose stands. */
  private place(): void {
    const pose = this.pose, motion = this.character.motion, clips = this.character.rig.clips;
    this.director.pose(pose);
    motion.pose.sampleBlend(clips[pose.clip], pose.time, clips[pose.clip2], pose.time2, pose.blend);
    // The frame's origin goes where the file's origin (between the feet, on the ground) lands on its ground.
    const c = Math.cos(pose.yaw), s = Math.sin(pose.yaw), r = this.root;
    motion.setFrame(pose.x - (c * r[0] + s * r[2]), (this.spec.ground ?? 0) - r[1], pose.z - (-s * r[0] + c * r[2]), pose.yaw);
    motion.toWorld(0, 0, 0, this.point);
    this.bound[0] = this.point[0]; this.bound[1] = this.point[1]; this.bound[2] = this.point[2]; this.bound[3] = this.radius;
  }
}
