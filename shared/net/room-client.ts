// The client side of a Pliant room, for the browser app and for tests in Node: joins, keeps every body's
// server states, predicts the bodies this client holds with the same solver the server runs, reconciles them
// with the server's snapshots, and interpolates everything else.
//
// Prediction with rollback: a held body is stepped locally at 60 Hz with this client's grabs applied at once,
// and every frame's grab inputs are sent with the frame's number. The server applies one frame of them per tick
// and acknowledges which frame its snapshot includes; the local body is reset to the snapshot's q at that frame
// (with the velocity the prediction had then) and the frames since are replayed with their recorded targets. Other
// players' grabs on the body are mirrored from the room state, so their pulls are predicted too. Remote bodies
// are shown INTERPOLATION_DELAY_MS in the past, between the two snapshots around that time.

import { Client, type Room } from "@colyseus/sdk";
import { MATERIALS, PLAYGROUND, BoxObstacle, isMaterialName, type SceneLayout } from "../scene";
import { SoftBody, Subspace } from "../sim";
import { decodeBakedBody, toSubspaceSource, type BakedBody } from "../skinning";
import { NetworkSimulator, PERFECT_NETWORK, type NetworkConditions } from "./network-conditions";
import { MESSAGES, ROOM_NAME, TICK_RATE, type AckMessage, type GrabResultMessage, type Hand, type JoinOptions, type NoticeMessage, type Pose } from "./protocol";
import { decodeSnapshot, type DecodedSnapshot } from "./snapshot";

export const INTERPOLATION_DELAY_MS = 100;
/** Local prediction history kept for reconciliation, frames (2 s: round trips beyond that are not replayed). */
const HISTORY = 120;
const DT = 1 / TICK_RATE;
const HAND_SLOTS: readonly Hand[] = ["left", "right", "pointer"];
/** Most frames one reconciliation replays; a server further behind (overloaded) is adopted as is instead. */
const MAX_REPLAY = 60;

export interface ClientBody {
  id: string;
  index: number;
  baked: BakedBody;
  /** The local solver body: predicted while held, otherwise only used to evaluate positions. */
  body: SoftBody;
  /** Latest server states (time received, q), oldest first. */
  snapshots: { at: number; tick: number; q: Float64Array }[];
  /** q shown now. */
  displayQ: Float64Array;
  predicting: boolean;
  /** Largest reconciliation error seen at the last snapshot, m (a grab point's distance), or NaN. */
  lastReconcileError: number;
  /** The material the local body simulates (follows the room's admin changes). */
  material: string;
}

/** One predicted frame: the state after it and the grab targets it was stepped with. */
interface HistoryEntry {
  /** The frame number (the seq its inputs were sent with). */
  seq: number;
  q: Float64Array;
  v: Float64Array;
  /** 3 per hand slot (HAND_SLOTS order); NaN where that hand held nothing on this body. */
  targets: Float64Array;
}

export interface JoinSettings {
  /** ws://host:port of the server (http URLs work too). */
  endpoint: string;
  options?: JoinOptions;
  /** Returns the BakedBody bytes of a hash (GET /bakes/<hash> in the app). Defaults to fetch on the endpoint. */
  fetchBake?: (hash: string) => Promise<Uint8Array>;
  network?: NetworkConditions;
  layout?: SceneLayout;
  /** Join this room id instead of joinOrCreate. */
  roomId?: string;
  /** Create a new room instead of joinOrCreate (tests, private sessions). */
  create?: boolean;
}

export class PliantRoomClient {
  readonly bodies = new Map<string, ClientBody>();
  readonly notices: NoticeMessage[] = [];
  /** Latest pose of every rigid prop that has moved, by PropState.index: position (3) then quaternion (4). */
  readonly props = new Map<number, Float64Array>();
  /** Latest head and hand poses of every player, by PlayerState.slot (mask: 1 head, 2 left, 4 right). */
  readonly avatars = new Map<number, { mask: number; poses: Float64Array }>();
  /** Round-trip time, ms (refreshed every second). */
  rtt = 0;
  private readonly network: NetworkSimulator;
  /** This client's grabs in the prediction; `exact` once they use the server's samples. */
  private readonly held = new Map<Hand, { body: ClientBody; grab: number; point: [number, number, number]; exact: boolean; recent: [number, number, number][] }>();
  private readonly pendingGrabs = new Map<Hand, (result: GrabResultMessage) => void>();
  private readonly history = new Map<string, HistoryEntry[]>();
  /** Current grab target per hand (world m). */
  private readonly targets = new Map<Hand, [number, number, number]>();
  /** Latest target of every grab in the room, by GrabState.slot. */
  private readonly grabTargets = new Map<number, [number, number, number]>();
  /** Other people's grabs replicated on bodies this client predicts, by "sessionId:hand". */
  private readonly replicas = new Map<string, { body: ClientBody; grab: number; slot: number }>();
  private lastFrame = 0;
  private readonly pointScratch = new Float64Array(3);
  private readonly otherPointScratch = new Float64Array(3);
  /** This client's frame number: grab inputs are sent with it. */
  private frame = 0;
  private lastAck: AckMessage | null = null;
  private readonly queued: ({ kind: "start"; hand: Hand; body: string; point: [number, number, number] } | { kind: "end"; hand: Hand })[] = [];
  private accumulator = 0;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  private byIndex: ClientBody[] = [];

  private constructor(readonly room: Room, network: NetworkConditions) {
    this.network = new NetworkSimulator(network);
  }

  static async join(settings: JoinSettings): Promise<PliantRoomClient> {
    const http = settings.endpoint.replace(/^ws/, "http");
    const client = new Client(settings.endpoint);
    const options = settings.options ?? {};
    const room = settings.roomId ? await client.joinById(settings.roomId, options) : settings.create ? await client.create(ROOM_NAME, options) : await client.joinOrCreate(ROOM_NAME, options);
    const self = new PliantRoomClient(room, settings.network ?? PERFECT_NETWORK);
    // Messages can arrive before the bodies are built: hold snapshots until then.
    const early: Uint8Array[] = [];
    let ready = false;
    room.onMessage(MESSAGES.snapshot, (bytes: Uint8Array) => {
      self.network.schedule(true, () => (ready ? self.applySnapshot(bytes) : early.push(bytes)));
    });
    room.onMessage(MESSAGES.grabResult, (result: GrabResultMessage) => self.network.schedule(false, () => self.onGrabResult(result)));
    room.onMessage(MESSAGES.notice, (notice: NoticeMessage) => self.notices.push(notice));
    room.onMessage(MESSAGES.ack, (ack: AckMessage) => self.network.schedule(true, () => (self.lastAck = ack)));
    const fetchBake = settings.fetchBake ?? (async (hash: string) => {
      const response = await fetch(`${http}/bakes/${hash}`);
      if (!response.ok) throw new Error(`bake ${hash}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    });
    try {
      await self.waitForState();
      await self.buildBodies(fetchBake, settings.layout ?? PLAYGROUND);
    } catch (error) {
      await self.leave();
      throw error;
    }
    ready = true;
    for (const bytes of early) self.applySnapshot(bytes);
    self.pingTimer = setInterval(() => room.ping((ms) => (self.rtt = ms + 2 * (settings.network?.latencyMs ?? 0))), 1000);
    room.ping((ms) => (self.rtt = ms + 2 * (settings.network?.latencyMs ?? 0)));
    room.onLeave(() => self.stopTimers());
    return self;
  }

  get sessionId(): string {
    return this.room.sessionId;
  }

  /** This client's 60 Hz frame number (frames run so far). */
  get frameNumber(): number {
    return this.frame;
  }

  get roomId(): string {
    return this.room.roomId;
  }

  /** Hands of this client that hold a body now (predicted; the server may still refuse a fresh grab). */
  heldBody(hand: Hand): string | undefined {
    return this.held.get(hand)?.body.id;
  }

  // ----- inputs -----------------------------------------------------------------------------------------

  sendPose(head: Pose, left?: Pose | null, right?: Pose | null): void {
    // Copies: callers reuse their arrays frame to frame, and a simulated network delivers later.
    this.send(true, MESSAGES.pose, { head: head.slice(), left: left ? left.slice() : null, right: right ? right.slice() : null });
  }

  /**
   * Grabs a body at a surface point. It applies to the prediction in the next frame and is confirmed (or undone)
   * by the server: the promise resolves with the server's answer.
   */
  grab(hand: Hand, bodyId: string, point: [number, number, number]): Promise<GrabResultMessage> {
    if (!this.bodies.has(bodyId)) return Promise.resolve({ hand, body: bodyId, ok: false, reason: `unknown body "${bodyId}"` });
    return new Promise<GrabResultMessage>((resolve) => {
      this.pendingGrabs.get(hand)?.({ hand, body: bodyId, ok: false, reason: "replaced by a newer grab" });
      this.pendingGrabs.set(hand, resolve);
      this.queued.push({ kind: "start", hand, body: bodyId, point });
    });
  }

  /** Where a held grab should go (world m): applied, and sent, once per frame. */
  moveGrab(hand: Hand, target: [number, number, number]): void {
    this.targets.set(hand, [target[0], target[1], target[2]]);
  }

  release(hand: Hand): void {
    this.queued.push({ kind: "end", hand });
  }

  poke(hand: Hand, center: [number, number, number], radius: number): void {
    this.send(true, MESSAGES.poke, { hand, center: [center[0], center[1], center[2]], radius });
  }

  /** Any message, as is (admin actions; tests of hostile input). */
  sendRaw(type: string, payload: unknown): void {
    this.room.send(type, payload);
  }

  // ----- per frame --------------------------------------------------------------------------------------

  /** Advances prediction and interpolation to `now` (ms, Date.now clock). Call once per rendered frame. */
  update(now = Date.now()): void {
    if (this.lastFrame === 0) this.lastFrame = now;
    this.accumulator = Math.min(this.accumulator + (now - this.lastFrame) / 1000, 0.25);
    this.lastFrame = now;
    while (this.accumulator >= DT) {
      this.accumulator -= DT;
      this.runFrame();
    }
    for (const body of this.bodies.values()) {
      if (body.predicting) body.displayQ.set(body.body.q);
      else this.interpolate(body, now - INTERPOLATION_DELAY_MS);
    }
  }

  /** World positions of points (rest positions in body metres + their basis rows) for the shown state. */
  positions(bodyId: string, rows: Float64Array, rest: Float64Array, out: Float64Array): void {
    const body = this.bodies.get(bodyId);
    if (!body) throw new Error(`unknown body "${bodyId}"`);
    for (let i = 0; i < rest.length / 3; i++) body.body.positionAt(body.displayQ, rows, rest, i, out, 3 * i);
  }

  /** The latest server q of a body (as received), or undefined before any. */
  serverQ(bodyId: string): Float64Array | undefined {
    const s = this.bodies.get(bodyId)?.snapshots;
    return s && s.length ? s[s.length - 1].q : undefined;
  }

  async leave(): Promise<void> {
    this.stopTimers();
    if (!this.closed) {
      this.closed = true;
      // A connection that already dropped never answers the goodbye: do not wait for it.
      await Promise.race([this.room.leave(true).catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000))]);
    }
  }

  // ----- internals --------------------------------------------------------------------------------------

  private send(droppable: boolean, type: string, payload: unknown): void {
    this.network.schedule(droppable, () => {
      if (!this.closed) this.room.send(type, payload);
    });
  }

  private stopTimers(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }

  private waitForState(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error("no room state within 10 s")), 10_000);
      const check = () => {
        const state = this.room.state as { bodies?: { size: number } } | undefined;
        if (state?.bodies && state.bodies.size > 0) {
          clearTimeout(timeout);
          resolve();
          return true;
        }
        return false;
      };
      if (!check()) this.room.onStateChange(() => void check());
    });
  }

  private async buildBodies(fetchBake: (hash: string) => Promise<Uint8Array>, layout: SceneLayout): Promise<void> {
    const statics = layout.statics.map((box) => new BoxObstacle(box.half, box.center));
    const state = this.room.state as { bodies: Map<string, { id: string; index: number; bake: string; size: number; material: string; spawnX: number; spawnY: number; spawnZ: number }> };
    const entries = [...state.bodies.values()];
    for (const info of entries) {
      const baked = decodeBakedBody(await fetchBake(info.bake));
      const material = isMaterialName(info.material) ? MATERIALS[info.material] : MATERIALS.jelly;
      const body = new SoftBody(new Subspace(toSubspaceSource(baked, info.size)), material, { damping: material.damping }, [info.spawnX, info.spawnY, info.spawnZ]);
      for (const s of statics) body.addContactSurface(s);
      const entry: ClientBody = {
        id: info.id, index: info.index, baked, body, snapshots: [], displayQ: new Float64Array(body.n), predicting: false, lastReconcileError: NaN,
        material: isMaterialName(info.material) ? info.material : "jelly",
      };
      this.bodies.set(info.id, entry);
      this.byIndex[info.index] = entry;
      this.history.set(info.id, []);
    }
  }

  private applySnapshot(bytes: Uint8Array): void {
    let snapshot: DecodedSnapshot;
    try {
      snapshot = decodeSnapshot(bytes);
    } catch {
      return; // a damaged snapshot is skipped; the next one carries the state again
    }
    const now = Date.now();
    for (const grab of snapshot.grabs) this.grabTargets.set(grab.slot, grab.target);
    for (const prop of snapshot.props) {
      const pose = this.props.get(prop.index) ?? new Float64Array(7);
      pose.set(prop.position, 0);
      pose.set(prop.quaternion, 3);
      this.props.set(prop.index, pose);
    }
    for (const avatar of snapshot.avatars) this.avatars.set(avatar.slot, { mask: avatar.mask, poses: avatar.poses });
    this.syncMaterials();
    for (const body of this.bodies.values()) if (body.predicting) this.syncReplicas(body);
    for (const state of snapshot.bodies) {
      const body = this.byIndex[state.index];
      if (!body || state.q.length !== body.body.n) continue;
      body.snapshots.push({ at: now, tick: snapshot.tick, q: state.q });
      if (body.snapshots.length > 8) body.snapshots.shift();
      const ack = this.lastAck;
      if (body.predicting && ack && ack.tick === snapshot.tick) this.reconcile(body, state.q, ack.seq + ack.lag);
    }
  }

  /** An admin changed a body's material: predict with the new one. */
  private syncMaterials(): void {
    const states = (this.room.state as { bodies?: Map<string, { material: string }> }).bodies;
    for (const body of this.bodies.values()) {
      const material = states?.get(body.id)?.material;
      if (!material || material === body.material || !isMaterialName(material)) continue;
      body.material = material;
      body.body.setMaterial(MATERIALS[material]);
      body.body.setDamping(MATERIALS[material].damping);
    }
  }

  private startPredicting(body: ClientBody): void {
    if (body.predicting) return;
    body.predicting = true;
    // Start from the state shown now, moving as the last two snapshots did.
    const s = body.snapshots;
    const velocity = new Float64Array(body.body.n);
    if (s.length >= 2) {
      const a = s[s.length - 2], b = s[s.length - 1], dt = Math.max((b.tick - a.tick) * DT, DT);
      for (let i = 0; i < velocity.length; i++) velocity[i] = (b.q[i] - a.q[i]) / dt;
    }
    body.body.setState(s.length ? s[s.length - 1].q : body.displayQ, velocity);
    this.history.set(body.id, []);
    this.syncReplicas(body);
  }

  private stopPredicting(body: ClientBody): void {
    body.predicting = false;
    for (const [key, replica] of this.replicas) {
      if (replica.body !== body) continue;
      body.body.release(replica.grab);
      this.replicas.delete(key);
    }
  }

  /** Mirrors other people's grabs on a predicted body: created where their hand is now, moved with it, dropped when they let go. */
  private syncReplicas(body: ClientBody): void {
    type GrabInfo = { slot: number; body: string; owner: string; x: number; y: number; z: number; samples: ArrayLike<number>; offsets: ArrayLike<number> };
    const grabs = (this.room.state as { grabs?: Map<string, GrabInfo> }).grabs;
    if (!grabs) return;
    // Our own grabs: once the server says which samples it holds, hold exactly those.
    for (const [hand, held] of this.held) {
      if (held.body !== body || held.exact) continue;
      const state = grabs.get(`${this.sessionId}:${hand}`);
      if (!state || state.samples.length === 0 || Math.hypot(state.x - held.point[0], state.y - held.point[1], state.z - held.point[2]) > 1e-4) continue;
      const target = this.targets.get(hand) ?? held.point;
      body.body.release(held.grab);
      held.grab = body.body.grabExactly(Array.from(state.samples), Array.from(state.offsets), target[0], target[1], target[2]);
      held.exact = true;
    }
    for (const [key, replica] of this.replicas) {
      const state = grabs.get(key);
      if (replica.body === body && (!state || state.body !== body.id)) {
        body.body.release(replica.grab);
        this.replicas.delete(key);
      }
    }
    for (const [key, state] of grabs) {
      if (state.owner === this.sessionId || state.body !== body.id) continue;
      const target = this.grabTargets.get(state.slot) ?? [state.x, state.y, state.z];
      const replica = this.replicas.get(key);
      if (replica) {
        body.body.moveGrab(replica.grab, target[0], target[1], target[2]);
        continue;
      }
      try {
        const grab = state.samples.length > 0
          ? body.body.grabExactly(Array.from(state.samples), Array.from(state.offsets), target[0], target[1], target[2])
          : body.body.grab(target[0], target[1], target[2], { radius: Math.max(0.1, 0.08 * body.body.size) });
        if (grab >= 0) this.replicas.set(key, { body, grab, slot: state.slot });
      } catch {
        // The solver's grab slots are full: this pull is left to the server's corrections.
      }
    }
  }

  /** One 60 Hz frame: this frame's grab inputs (applied locally and sent with its number), then the predicted bodies. */
  private runFrame(): void {
    const seq = ++this.frame;
    for (const input of this.queued.splice(0)) {
      if (input.kind === "start") {
        const body = this.bodies.get(input.body)!;
        this.releaseLocal(input.hand);
        this.startPredicting(body);
        const grab = body.body.grab(input.point[0], input.point[1], input.point[2], { radius: Math.max(0.1, 0.08 * body.body.size) });
        if (grab >= 0) this.held.set(input.hand, { body, grab, point: input.point, exact: false, recent: [] });
        this.targets.set(input.hand, input.point);
        this.send(false, MESSAGES.grabStart, { hand: input.hand, body: input.body, point: input.point, seq });
      } else {
        this.releaseLocal(input.hand);
        this.send(false, MESSAGES.grabEnd, { hand: input.hand, seq });
      }
    }
    for (const [hand, held] of this.held) {
      const target = this.targets.get(hand);
      if (!target) continue;
      held.body.body.moveGrab(held.grab, target[0], target[1], target[2]);
      // The two previous frames' targets of this grab ride along: a lost message costs the server nothing.
      this.send(true, MESSAGES.grabMove, { hand, target, seq, earlier: held.recent.flat() });
      held.recent.unshift([target[0], target[1], target[2]]);
      if (held.recent.length > 2) held.recent.pop();
    }
    for (const body of this.bodies.values()) if (body.predicting) this.predictStep(body, seq);
  }

  private releaseLocal(hand: Hand): void {
    const held = this.held.get(hand);
    this.targets.delete(hand);
    if (!held) return;
    held.body.body.release(held.grab);
    this.held.delete(hand);
    if (![...this.held.values()].some((h) => h.body === held.body)) this.stopPredicting(held.body);
  }

  private predictStep(body: ClientBody, seq: number): void {
    body.body.step();
    const history = this.history.get(body.id)!;
    const n = body.body.n;
    const entry = history.length >= HISTORY ? history.shift()! : { seq: 0, q: new Float64Array(n), v: new Float64Array(n), targets: new Float64Array(3 * HAND_SLOTS.length) };
    entry.seq = seq;
    entry.q.set(body.body.q);
    entry.v.set(body.body.velocity);
    entry.targets.fill(NaN);
    HAND_SLOTS.forEach((hand, k) => {
      const target = this.targets.get(hand);
      if (target && this.held.get(hand)?.body === body) entry.targets.set(target, 3 * k);
    });
    history.push(entry);
  }

  /** Rolls the prediction back to the server's q at the frame the server has reached and replays the frames since. */
  private reconcile(body: ClientBody, serverQ: Float64Array, frame: number): void {
    const history = this.history.get(body.id)!;
    let k = history.length - 1;
    while (k >= 0 && history[k].seq > frame) k--;
    if (k < 0 || history[k].seq !== frame) return; // before this prediction started, or already forgotten
    if (history.length - 1 - k > MAX_REPLAY) {
      // Too far behind to replay every frame: adopt the server's state now and predict on from there.
      body.body.setState(serverQ, history[k].v);
      history.length = 0;
      body.lastReconcileError = NaN;
      return;
    }
    const base = history[k];
    // Report the error where it matters: at the body's surface samples.
    const s = body.body.subspace, p = this.pointScratch, r = this.otherPointScratch;
    let worst = 0;
    for (let i = 0; i < s.surfaceCount; i += 4) {
      body.body.positionAt(serverQ, s.surfaceRows, s.surfaceRest, i, p, 0);
      body.body.positionAt(base.q, s.surfaceRows, s.surfaceRest, i, r, 0);
      worst = Math.max(worst, Math.hypot(p[0] - r[0], p[1] - r[1], p[2] - r[2]));
    }
    body.lastReconcileError = worst;
    // Rollback and replay.
    body.body.setState(serverQ, base.v);
    base.q.set(serverQ);
    for (let i = k + 1; i < history.length; i++) {
      const entry = history[i];
      HAND_SLOTS.forEach((hand, slot) => {
        const held = this.held.get(hand);
        const x = entry.targets[3 * slot];
        if (held && held.body === body && !Number.isNaN(x)) body.body.moveGrab(held.grab, x, entry.targets[3 * slot + 1], entry.targets[3 * slot + 2]);
      });
      body.body.step();
      entry.q.set(body.body.q);
      entry.v.set(body.body.velocity);
    }
    // Back to the current targets.
    for (const [hand, held] of this.held) {
      const t = this.targets.get(hand);
      if (held.body === body && t) body.body.moveGrab(held.grab, t[0], t[1], t[2]);
    }
  }

  private interpolate(body: ClientBody, at: number): void {
    const s = body.snapshots;
    if (s.length === 0) return;
    let i = s.length - 1;
    while (i > 0 && s[i - 1].at > at) i--;
    const b = s[i], a = i > 0 ? s[i - 1] : b;
    if (at >= b.at || a === b) {
      body.displayQ.set(b.q);
      return;
    }
    const t = Math.max(0, Math.min(1, (at - a.at) / Math.max(1, b.at - a.at)));
    for (let k = 0; k < b.q.length; k++) body.displayQ[k] = a.q[k] + t * (b.q[k] - a.q[k]);
  }

  private onGrabResult(result: GrabResultMessage): void {
    const resolve = this.pendingGrabs.get(result.hand);
    this.pendingGrabs.delete(result.hand);
    if (!result.ok) this.releaseLocal(result.hand);
    resolve?.(result);
  }
}
