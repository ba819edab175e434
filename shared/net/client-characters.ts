// A client's view of the room's characters: their bakes (rig and clips inside), the snapshots of their soft part
// (a body's q under their index) and of their pose (clips, times, frame), and what is shown now, interpolated
// INTERPOLATION_DELAY_MS in the past between the snapshots around that time. Nobody predicts a character's reply to
// hands: the server's solver alone moves its flesh then, and a client shows it as the other bodies it does not
// predict. While nothing touches it and it has a secondary-motion network (the state's `flesh` is "rnn"), snapshots
// leave its flesh out: a client with a network loader runs the same network on the pose it shows, at the step the
// network was trained at, and crossfades between the two sources when the state switches. A character beyond the
// room's budget of flesh it moves itself (`flesh` "springs") is moved likewise by the client's own spring layer.

import { RigMotion, type Rig } from "../rig";
import { pageSpringModel, PageSprings, type PageSpringModel } from "../rig/page-springs";
import { RnnCharacter, type SecondaryNetwork } from "../rig/rnn-character";
import { TICK_RATE } from "./protocol";
import { decodeBakedBody, handleCount, rigOf, type BakedBody } from "../skinning";
import { basisRows, displacementAt } from "../sim/subspace";
import type { CharacterSnapshot } from "./snapshot";

/** What the room state says of a character (CharacterState). */
export interface CharacterInfo {
  id: string;
  index: number;
  bake: string;
  size: number;
  texture: string;
  clips: string;
  mode: string;
  /** Its secondary-motion network ("" when none), and where its flesh comes from now ("sim", "linear", "rnn" or "springs"). */
  network?: string;
  flesh?: string;
}

/** Loads a secondary-motion network by name (a fresh hidden state each call). */
export type NetworkLoader = (name: string) => Promise<SecondaryNetwork>;

/** Seconds a client takes to crossfade between the snapshots' flesh and its own network's. */
const FLESH_CROSSFADE_SECONDS = 0.3;
/** A network that fell further behind the shown time than this (a hidden tab) starts again from it, ms. */
const LEARNED_CATCH_UP_MS = 500;

/** How far past its newest pose a character's clips run on while snapshots are late, ms. */
const EXTRAPOLATE_MS = 250;

/**
 * A layer a client runs itself on the pose it shows, a step of `dt` at a time, each on the pose of its instant: the
 * network, or the spring layer.
 */
interface OwnFlesh {
  readonly motion: RigMotion;
  readonly dt: number;
  /** The soft part after the last step answered (3m), and whether one has been since the layer was made. */
  readonly q: Float64Array;
  readonly answered: boolean;
  /** The shown time of its last step (ms; NaN before the first). */
  clock: number;
  /** One step on the pose and frame set in `motion` now (the network answers later). */
  step(): void;
  /** Forget the motion (after a jump). */
  restart(): void;
}

/** The network as a client runs it. */
class OwnNetwork implements OwnFlesh {
  clock = NaN;
  constructor(readonly character: RnnCharacter) {}
  get motion(): RigMotion { return this.character.motion; }
  get dt(): number { return this.character.dt; }
  get q(): Float64Array { return this.character.q; }
  get answered(): boolean { return this.character.answeredSteps > 0; }
  step(): void { this.character.queueStep(); }
  restart(): void { this.character.restart(); }
}

/** The spring layer as a client runs it (page-springs.ts), at the room's tick. */
class OwnSprings implements OwnFlesh {
  clock = NaN;
  readonly dt = 1 / TICK_RATE;
  constructor(readonly page: PageSprings) {}
  get motion(): RigMotion { return this.page.motion; }
  get q(): Float64Array { return this.page.q; }
  get answered(): boolean { return this.page.steps > 0; }
  step(): void { this.page.step(this.dt); }
  restart(): void { this.page.restart(); }
}

/**
 * Finds a character's spring model (what takes a fifth of a second: a page does it on a worker); by default here,
 * as a bot or a test in Node does.
 */
export type SpringModelFinder = (baked: BakedBody, size: number) => Promise<PageSpringModel>;
const springModelHere: SpringModelFinder = async (baked, size) => pageSpringModel(baked, size);

interface CharacterFrame {
  at: number;
  tick: number;
  q: Float64Array | null;
  pose: CharacterSnapshot | null;
}

export class ClientCharacter {
  readonly rig: Rig;
  /** The pose and frame shown now (sample with `show`). */
  readonly motion: RigMotion;
  /** The soft part shown now (3m). */
  readonly displayQ: Float64Array;
  /** Whether a pose has arrived yet (nothing is drawn before). */
  shown = false;
  private readonly surface: Float64Array;
  /** Whether the pose shown changed since its joints, and its surface, were last worked out. */
  private jointsStale = false;
  private surfaceStale = false;
  readonly surfaceRows: Float64Array;
  readonly frames: CharacterFrame[] = [];
  readonly clipNames: string[];
  private readonly local = new Float64Array(3);
  private readonly soft = new Float64Array(3);
  /** The snapshots' flesh at the shown time. */
  private readonly snapshotQ: Float64Array;
  /** Where the state says the flesh comes from, this client's run of the network (once loaded) and of the springs (once needed). */
  flesh = "sim";
  private learned: OwnNetwork | null = null;
  private springs: OwnSprings | null = null;
  private springsAsked = false;
  /** Who finds its spring model (ClientCharacters sets it). */
  findSpringModel: SpringModelFinder = springModelHere;
  /** The layer of its own this client shows (kept while it fades out), and its weight in what is shown (0..1). */
  private own: OwnFlesh | null = null;
  learnedWeight = 0;
  /** The shown time the weight was last moved at (ms). */
  private weightAt = NaN;

  constructor(readonly id: string, readonly index: number, readonly baked: BakedBody, readonly size: number, readonly texture: string, clips: string) {
    const rig = rigOf(baked);
    if (!rig) throw new Error(`character ${id}: its bake has no rig`);
    this.rig = rig;
    this.motion = new RigMotion(rig, baked, size);
    this.displayQ = new Float64Array(3 * 4 * handleCount(baked));
    this.snapshotQ = new Float64Array(this.displayQ.length);
    this.surface = new Float64Array(baked.surfacePositions.length);
    this.surfaceRows = basisRows({ positions: baked.surfacePositions.map((v) => (v * size) / 2), weights: baked.surfaceWeights }, handleCount(baked));
    this.clipNames = clips.split(",");
  }

  /** The surface samples where they are shown now, world metres: for picking and fingertips (worked out on demand). */
  get surfaceWorld(): Float64Array {
    this.posed();
    if (this.surfaceStale) {
      this.motion.poseSurface();
      this.placeSurface();
      this.surfaceStale = false;
    }
    return this.surface;
  }

  /**
   * Works out the shown pose's joint matrices (motion.jointMatrices), once per pose shown: a page that draws it calls
   * this; a client nobody looks at never pays for it.
   */
  posed(): void {
    if (!this.jointsStale) return;
    this.motion.poseJoints();
    this.jointsStale = false;
  }

  /** Bounding radius about the frame's origin, m. */
  get radius(): number {
    return 0.6 * this.size;
  }

  /** Runs its flesh with a network (the client's own copy: its own hidden state). */
  attachNetwork(network: SecondaryNetwork): void {
    this.learned = new OwnNetwork(new RnnCharacter(this.baked, this.size, network));
  }

  /** The network's run on this client, if one was attached (its q, its steps). */
  get learnedFlesh(): RnnCharacter | null {
    return this.learned?.character ?? null;
  }

  /** The spring layer's run on this client (its steps and their milliseconds), once its model has come. */
  get ownSprings(): PageSprings | null {
    return this.springs?.page ?? null;
  }

  /** Shows the character as it was at `at` (ms, Date.now clock): its pose, frame and soft part (see posed). */
  show(at: number): void {
    const q = this.pick(at, "q");
    if (q) interpolateInto(q.a.q!, q.b.q!, q.t, this.snapshotQ);
    if (!this.poseAt(at, this.motion)) return;
    this.jointsStale = this.surfaceStale = true;
    this.shown = true;
    const wanted = this.flesh === "rnn" ? this.learned : this.flesh === "springs" ? this.askForSprings() : null;
    // A layer of its own comes in from the snapshots' flesh, and goes back to it before another comes in.
    if (wanted && (this.learnedWeight === 0 || !this.own)) this.own = wanted;
    // The network runs all along (its hidden state stays warm); the springs from when they are first wanted for as
    // long as they are the layer shown or faded out (so through a touch's solver too: warm when they come back).
    if (this.learned) this.runOwn(this.learned, at);
    if (this.springs && (this.springs === wanted || this.springs === this.own)) this.runOwn(this.springs, at);
    const target = wanted && wanted === this.own && wanted.answered ? 1 : 0;
    const elapsed = Number.isFinite(this.weightAt) ? Math.max(0, at - this.weightAt) / 1000 : Infinity;
    this.weightAt = at;
    const change = Math.min(1, elapsed / FLESH_CROSSFADE_SECONDS);
    this.learnedWeight += Math.max(-change, Math.min(change, target - this.learnedWeight));
    const w = this.learnedWeight, own = this.own?.q;
    for (let k = 0; k < this.displayQ.length; k++) this.displayQ[k] = w > 0 && own ? this.snapshotQ[k] + w * (own[k] - this.snapshotQ[k]) : this.snapshotQ[k];
  }

  /**
   * The springs once their model has come (null until then, and for good if it cannot be made for this bake); the
   * first call asks for the model (the state hands them the flesh, or it arrived so).
   */
  askForSprings(): OwnSprings | null {
    if (!this.springsAsked) {
      this.springsAsked = true;
      this.findSpringModel(this.baked, this.size).then((model) => new PageSprings(this.baked, this.size, model)).then((springs) => {
        this.springs = new OwnSprings(springs);
      }, (error: unknown) => console.warn(`character ${this.id}: its springs could not be made (${error instanceof Error ? error.message : String(error)}); its flesh is shown as snapshots have it, at rest while pages are to move it`));
    }
    return this.springs;
  }

  /** Steps a layer of this client's own up to the shown time, at its step, each on the pose of its instant. */
  private runOwn(own: OwnFlesh, at: number): void {
    const stepMs = 1000 * own.dt;
    if (!(at - own.clock < LEARNED_CATCH_UP_MS)) {
      own.clock = at - stepMs;
      own.restart();
    }
    try {
      while (own.clock + stepMs <= at) {
        own.clock += stepMs;
        if (this.poseAt(own.clock, own.motion)) own.step();
      }
    } catch {
      // A layer that failed to run is dropped for good: the snapshots' flesh is shown (rest, while pages were to move it).
      if (own === this.learned) this.learned = null;
      else this.springs = null;
      if (own === this.own) this.own = null;
    }
  }

  /** Samples the pose and frame shown at `at` into `motion`; false before any pose arrived. */
  private poseAt(at: number, motion: RigMotion): boolean {
    const pose = this.pick(at, "pose");
    if (!pose) return false;
    const a = pose.a.pose!, b = pose.b.pose!, t = pose.t, clips = this.rig.clips;
    // Between two snapshots of the same clips, times run on from the older at the clock's pace (a held pose's do
    // not); past the newest, for at most EXTRAPOLATE_MS. Across a change of clips, the newer snapshot's pose.
    const seconds = Math.min(at - pose.a.at, EXTRAPOLATE_MS) / 1000;
    const same = a.clip === b.clip && a.clip2 === b.clip2, from = same ? a : b;
    const time = from.time + (same && from.running ? seconds : 0), time2 = from.time2 + (same && from.running2 ? seconds : 0);
    const blend = same ? a.blend + t * (b.blend - a.blend) : b.blend;
    const first = clips[from.clip] ?? clips[0], second = clips[from.clip2] ?? clips[0];
    motion.pose.sampleBlend(first, wrap(time, first.duration), second, wrap(time2, second.duration), blend);
    const yaw = a.yaw + t * angleBetween(a.yaw, b.yaw);
    motion.setFrame(a.position[0] + t * (b.position[0] - a.position[0]), a.position[1] + t * (b.position[1] - a.position[1]), a.position[2] + t * (b.position[2] - a.position[2]), yaw);
    return true;
  }

  /** The newest frame holding `what` at or before `at` and the next one after it, and how far between them. */
  private pick(at: number, what: "q" | "pose"): { a: CharacterFrame; b: CharacterFrame; t: number } | null {
    let a: CharacterFrame | null = null, b: CharacterFrame | null = null;
    for (const frame of this.frames) {
      if (!frame[what]) continue;
      if (frame.at <= at) a = frame;
      else if (!b) b = frame;
    }
    if (!a && !b) return null;
    if (!a) return { a: b!, b: b!, t: 0 };
    if (!b) return { a, b: a, t: 0 };
    return { a, b, t: Math.max(0, Math.min(1, (at - a.at) / Math.max(1, b.at - a.at))) };
  }

  private placeSurface(): void {
    const q = this.displayQ, rows = this.surfaceRows, posed = this.motion.posedSurface, out = this.surface, p = this.local, u = this.soft;
    for (let i = 0; i < posed.length / 3; i++) {
      displacementAt(rows, q, i, u);
      this.motion.toWorld(posed[3 * i] + u[0], posed[3 * i + 1] + u[1], posed[3 * i + 2] + u[2], p);
      out[3 * i] = p[0]; out[3 * i + 1] = p[1]; out[3 * i + 2] = p[2];
    }
  }
}

export class ClientCharacters {
  readonly all = new Map<string, ClientCharacter>();
  private readonly byIndex = new Map<number, ClientCharacter>();
  private readonly arriving = new Set<string>();
  private readonly failedAt = new Map<string, number>();
  /**
   * What snapshots said of characters the state announced but this client has not built yet (their bakes are on
   * the way): a joiner's full snapshot is all it gets of a character standing still.
   */
  private readonly early = new Map<number, CharacterFrame>();
  /** The room's list as last synced (the SDK updates it in place): a character built later reads what it says then. */
  private state: Map<string, CharacterInfo> | undefined;

  /** Who finds characters' spring models (a page's worker; here by default). */
  findSpringModel: SpringModelFinder = springModelHere;

  constructor(private readonly fetchBake: (hash: string) => Promise<Uint8Array>, private readonly changed: () => void, private readonly loadNetwork?: NetworkLoader) {}

  /** Whether a snapshot index is a character's (built, or announced and on its way). */
  owns(index: number): boolean {
    return this.byIndex.has(index) || this.early.has(index);
  }

  /** Builds the characters the state has and this client lacks; drops the ones it no longer has. */
  sync(state: Map<string, CharacterInfo> | undefined, now: number): void {
    if (!state) return;
    this.state = state;
    for (const info of state.values()) {
      const built = this.all.get(info.id);
      if (built) {
        built.flesh = info.flesh ?? "sim";
        continue;
      }
      if (!this.early.has(info.index)) this.early.set(info.index, { at: now, tick: -1, q: null, pose: null });
      if (this.arriving.has(info.id) || now - (this.failedAt.get(info.id) ?? -Infinity) < 3000) continue;
      // The fields are read again from the state once the bake is here (a schema object does not spread).
      void this.add({ id: info.id, bake: info.bake });
    }
    const announced = new Set([...state.values()].map((info) => info.index));
    for (const index of this.early.keys()) if (!announced.has(index)) this.early.delete(index);
    for (const character of [...this.all.values()]) {
      if (state.has(character.id)) continue;
      this.all.delete(character.id);
      this.byIndex.delete(character.index);
      this.changed();
    }
  }

  /** A snapshot's body entry under a character's index: its soft part. */
  soft(index: number, tick: number, q: Float64Array, at: number): void {
    const character = this.byIndex.get(index);
    if (character && q.length !== character.displayQ.length) return;
    const frame = character ? frameAt(character.frames, tick, at) : this.earlyFrame(index, tick, at);
    if (frame) frame.q = q;
  }

  pose(entry: CharacterSnapshot, tick: number, at: number): void {
    const character = this.byIndex.get(entry.index);
    const frame = character ? frameAt(character.frames, tick, at) : this.earlyFrame(entry.index, tick, at);
    if (frame) frame.pose = entry;
  }

  /** The latest of what arrived for a character not built yet (its latest q and pose, whatever their ticks). */
  private earlyFrame(index: number, tick: number, at: number): CharacterFrame | null {
    const frame = this.early.get(index);
    if (!frame) return null;
    frame.tick = tick;
    frame.at = at;
    return frame;
  }

  /** Shows every character as it was at `at` (ms). */
  show(at: number): void {
    for (const character of this.all.values()) character.show(at);
  }

  private async add(wanted: Pick<CharacterInfo, "id" | "bake">): Promise<void> {
    this.arriving.add(wanted.id);
    try {
      const baked = decodeBakedBody(await this.fetchBake(wanted.bake));
      // What the state says now: its flesh may have changed while the bake came, and nothing else may change for long.
      const info = this.state?.get(wanted.id);
      if (!info || info.bake !== wanted.bake) return;
      const character = new ClientCharacter(info.id, info.index, baked, info.size, info.texture, info.clips);
      character.flesh = info.flesh ?? "sim";
      character.findSpringModel = this.findSpringModel;
      if (character.flesh === "springs") character.askForSprings();
      if (info.network && this.loadNetwork) {
        // Without its network the client shows the snapshots' flesh, which the server sends again once a hand is on it.
        this.loadNetwork(info.network).then((network) => character.attachNetwork(network), () => {});
      }
      const early = this.early.get(info.index);
      this.early.delete(info.index);
      if (early && (early.q || early.pose) && (!early.q || early.q.length === character.displayQ.length)) character.frames.push(early);
      this.all.set(info.id, character);
      this.byIndex.set(info.index, character);
      this.failedAt.delete(info.id);
      this.changed();
    } catch {
      this.failedAt.set(wanted.id, Date.now());
    } finally {
      this.arriving.delete(wanted.id);
    }
  }
}

/**
 * The frame of `tick` (a snapshot's) in a character's frames, added when new; the last 8 are kept. A new frame
 * starts with the last soft part and pose: the server leaves out what did not change (a standing character's pose
 * is sent once), and without them a character would stop being shown once they fell out of the 8.
 */
function frameAt(frames: CharacterFrame[], tick: number, at: number): CharacterFrame {
  const last = frames[frames.length - 1];
  if (last && last.tick === tick) return last;
  const frame: CharacterFrame = { at, tick, q: last?.q ?? null, pose: last?.pose ?? null };
  frames.push(frame);
  if (frames.length > 8) frames.shift();
  return frame;
}

function interpolateInto(a: Float64Array, b: Float64Array, t: number, out: Float64Array): void {
  for (let k = 0; k < out.length; k++) out[k] = a[k] + t * (b[k] - a[k]);
}

function wrap(time: number, duration: number): number {
  return duration > 0 ? ((time % duration) + duration) % duration : 0;
}

/** b - a as the shorter turn (rad). */
function angleBetween(a: number, b: number): number {
  let d = (b - a) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d < -Math.PI) d += 2 * Math.PI;
  return d;
}
