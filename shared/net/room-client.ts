// The client side of a Pliant room, for the browser app and for tests in Node: joins (client/joining.ts),
// keeps the room's bodies as the server builds them (client/room-bodies.ts: every body a SoftEntity, in one world
// wired to the same obstacles as on the server), predicts the bodies this client holds with the same solver the
// server runs and reconciles them with the server's snapshots (client/body-predictor.ts), and interpolates
// everything else. Every frame's grab inputs are sent with the frame's number (client/input-clock.ts keeps this
// client in step with the server, which applies one frame of them per tick and acknowledges the last frame its
// snapshot includes); other players' grabs are mirrored on the predicted bodies (client/grab-mirror.ts).
//
// Grabs end without a rubber band: the prediction applies the server's slip rule (and lets go before a flick's
// target could throw the body), obeys a grab-result that ends a grab, and never replays a pull the server no
// longer applies. Remote bodies are shown INTERPOLATION_DELAY_MS in the past, between the two snapshots around
// that time.

import { PLAYGROUND, isMaterialName, type MaterialName } from "../scene";
import { prepareSolverKernels } from "../sim/kernels/solver-kernels";
import { ClientCharacters, type NetworkLoader } from "./client-characters";
import { BodyPredictor, INTERPOLATION_DELAY_MS, type PredictionStats, type ReconcileEvent } from "./client/body-predictor";
import { fetchBakeFrom, type ClientBody } from "./client/client-body";
import { Fingertips } from "./client/fingertips";
import { GrabMirror } from "./client/grab-mirror";
import { InputClock } from "./client/input-clock";
import { roomState, takeSeat, type JoinSettings } from "./client/joining";
import { deactivateGrab, limitTarget, OwnGrabs } from "./client/own-grabs";
import { RoomBodies } from "./client/room-bodies";
import { UploadTickets, type UploadTicket } from "./client/upload-tickets";
import { SEAT_DEADLINE_MS } from "./join-attempts";
import { NetworkSimulator, PERFECT_NETWORK, type NetworkConditions } from "./network-conditions";
import { networkLoader } from "./network-loader";
import { LIMITS, MESSAGES, SEQ_MODULUS, type AckMessage, type GrabHeldMessage, type GrabResultMessage, type Hand, type NoticeMessage, type Pose, type SetMaterialMessage, type UploadTicketMessage } from "./protocol";
import { RoundTrips } from "./round-trips";
import { decodeSnapshot, type DecodedSnapshot } from "./snapshot";
import type { PliantRoom } from "./state";

export { HANDOVER_FADE_MS, INTERPOLATION_DELAY_MS, PREDICTION_MS_BUDGET, PREDICTION_MS_PER_FRAME, SLOW_PAGE_MS_PER_FRAME, type PredictionStats, type ReconcileEvent } from "./client/body-predictor";
export type { ClientBody } from "./client/client-body";
export type { JoinSettings } from "./client/joining";

/** How long a room must have been joined before a dropped connection is reconnected by the SDK, ms. */
const RECONNECT_AFTER_MS = 1000;
/** While it holds something, a client says it is still there this often (a quarter of the server's silent hold: one lost costs no grab), ms. */
export const KEEPALIVE_MS = (LIMITS.silentHoldSeconds * 1000) / 4;

/** Notices a client keeps (PliantRoomClient.notices). */
const MAX_NOTICES_KEPT = 100;

export class PliantRoomClient {
  readonly notices: NoticeMessage[] = [];
  /** Latest pose of every rigid prop that has moved, by PropState.index: position (3) then quaternion (4). */
  readonly props = new Map<number, Float64Array>();
  /** Latest head and hand poses of every player, by PlayerState.slot (mask: 1 head, 2 left, 4 right). */
  readonly avatars = new Map<number, { mask: number; poses: Float64Array }>();
  /** Called for each notice from the server (the page shows them). */
  onNotice: ((notice: NoticeMessage) => void) | undefined;
  /** Called when the server ends one of this client's grabs (it slipped, the body was put back, an admin said so). */
  onGrabEnded: ((result: GrabResultMessage) => void) | undefined;
  /** Round-trip time, ms (refreshed every second). */
  rtt = 0;
  /** The room's soft bodies as built here, and the scene they are predicted in. */
  private readonly roomBodies = new RoomBodies({
    state: () => this.room.state, closed: () => this.closed, fetchBake: (hash) => this.fetchBake(hash),
    added: (body) => this.predictor.growScratch(body.body.n),
    leaving: (body) => {
      for (const [hand, held] of [...this.grabs.held]) if (held.body === body) this.releaseLocal(hand);
      this.predictor.forget(body);
    },
  });
  private fetchBake: (hash: string) => Promise<Uint8Array> = async () => new Uint8Array(0);
  /** The room's characters as shown (client-characters.ts); nobody predicts them. */
  readonly characters = new ClientCharacters((hash) => this.fetchBake(hash), () => this.roomBodies.changed(), (name) => this.loadNetwork(name));
  private loadNetwork: NetworkLoader = async () => { throw new Error("no onnxruntime to run networks with"); };
  private readonly tickets = new UploadTickets();
  private readonly network: NetworkSimulator;
  /** This client's grabs (bodies and characters) and their targets. */
  private readonly grabs = new OwnGrabs();
  private readonly pendingGrabs = new Map<Hand, (result: GrabResultMessage) => void>();
  /** Other people's grabs, mirrored on the bodies this client predicts. */
  private readonly mirror = new GrabMirror(() => this.room.state, () => this.sessionId);
  private readonly predictor = new BodyPredictor({ scene: () => this.roomBodies.scene, grabs: this.grabs, mirror: this.mirror, slipped: (hand) => this.queued.push({ kind: "end", hand }), now: () => this.predictionClock(), stepDeadlines: () => this.stepDeadlines });
  private readonly clock = new InputClock(this.predictor.stats);
  private readonly fingertips = new Fingertips();
  private readonly queued: ({ kind: "start"; hand: Hand; body: string; point: [number, number, number] } | { kind: "end"; hand: Hand })[] = [];
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  /** When this client last sent the room a message (Date.now clock). */
  private lastSentAt = 0;
  private readonly roundTrips: RoundTrips;
  private closed = false;

  private constructor(readonly room: PliantRoom, network: NetworkConditions, private readonly predictionClock: () => number, private readonly stepDeadlines: boolean) {
    this.network = new NetworkSimulator(network);
    this.roundTrips = new RoundTrips(room);
  }

  static async join(settings: JoinSettings): Promise<PliantRoomClient> {
    const http = settings.endpoint.replace(/^ws/, "http");
    // From the seat request until the room's state is in (see whileSeating), at most the seat deadline.
    const release = settings.whileSeating?.();
    let seating = true;
    const seated = () => {
      if (seating) release?.();
      seating = false;
      clearTimeout(seatingTimer);
    };
    const seatingTimer = setTimeout(seated, settings.seatDeadlineMs ?? SEAT_DEADLINE_MS);
    let room: PliantRoom;
    try {
      room = await takeSeat(settings);
    } catch (error) {
      seated();
      throw error;
    }
    // The SDK reconnects only rooms joined this long ago (its default, 5 s, would leave a headset that drops soon
    // after joining, or a slow page that drops while it loads the room, without its seat); a room that drops us at
    // once is still retried a bounded number of times.
    room.reconnection.minUptime = RECONNECT_AFTER_MS;
    settings.onSeated?.();
    const self = new PliantRoomClient(room, settings.network ?? PERFECT_NETWORK, settings.predictionClock ?? (() => performance.now()), Boolean(settings.stepDeadlines) && !settings.predictionClock);
    // Messages can arrive before the bodies are built: hold snapshots until then.
    const early: Uint8Array[] = [];
    let ready = false;
    room.onMessage(MESSAGES.snapshot, (bytes: Uint8Array) => {
      self.network.schedule(true, () => (ready ? self.applySnapshot(bytes) : early.push(bytes)));
    });
    room.onMessage(MESSAGES.grabResult, (result: GrabResultMessage) => self.network.schedule(false, () => self.onGrabResult(result)));
    room.onMessage(MESSAGES.grabHeld, (held: GrabHeldMessage) => self.network.schedule(false, () => self.mirror.onGrabHeld(held)));
    room.onMessage(MESSAGES.notice, (notice: NoticeMessage) => {
      // The latest ones only: resets and refusals keep coming for as long as a page stays open.
      if (self.notices.push(notice) > MAX_NOTICES_KEPT) self.notices.shift();
      self.onNotice?.(notice);
    });
    room.onMessage(MESSAGES.ack, (ack: AckMessage) => self.network.schedule(true, () => self.clock.onAck(ack, self.grabs.held.size > 0)));
    room.onMessage(MESSAGES.uploadTicket, (answer: UploadTicketMessage) => self.tickets.answered(answer));
    if (settings.ort) self.loadNetwork = networkLoader(settings.ort, http, settings.executionProviders);
    if (settings.findSpringModel) self.characters.findSpringModel = settings.findSpringModel;
    const fetchBake = settings.fetchBake ?? ((hash: string) => fetchBakeFrom(http, hash));
    try {
      await roomState(room).finally(seated);
      await prepareSolverKernels();
      self.fetchBake = fetchBake;
      await self.roomBodies.build(settings.layout ?? PLAYGROUND);
    } catch (error) {
      await self.leave();
      throw error;
    }
    // The characters first: the held snapshots carry theirs, which they keep while their bakes arrive.
    const syncCharacters = () => self.characters.sync(room.state?.characters, Date.now());
    syncCharacters();
    ready = true;
    for (const bytes of early) self.applySnapshot(bytes);
    // Bodies come and go (uploads): follow the room's list from now on.
    room.onStateChange(() => {
      self.roomBodies.sync();
      syncCharacters();
    });
    self.roomBodies.sync();
    const measureRtt = () => self.roundTrips.measure().then((ms) => (self.rtt = ms + 2 * (settings.network?.latencyMs ?? 0)), () => undefined);
    self.pingTimer = setInterval(measureRtt, 1000);
    void measureRtt();
    room.onLeave(() => {
      self.stopTimers();
      self.roundTrips.close("left the room");
    });
    // A dropped connection: the server lets go of this client's grabs at once, so the prediction does too; the SDK
    // reconnects (the server keeps the seat for a while) and the server then sends the whole room again.
    room.onDrop(() => {
      for (const hand of [...self.grabs.held.keys()]) self.releaseLocal(hand);
      self.roundTrips.dropped();
    });
    room.onReconnect(() => self.roundTrips.reconnected());
    return self;
  }

  get sessionId(): string {
    return this.room.sessionId;
  }

  /** The room's soft bodies, by id. */
  get bodies(): ReadonlyMap<string, ClientBody> {
    return this.roomBodies.bodies;
  }

  /** Counts changes of `bodies` (a body added or gone) and of the characters: pages re-render their meshes when it moves. */
  get bodiesVersion(): number {
    return this.roomBodies.version;
  }

  /** What the prediction did so far (benchmarks and tests). */
  get predictionStats(): PredictionStats {
    return this.predictor.stats;
  }

  /** Called after each reconciliation of a predicted body with a server state (tests, diagnostics). */
  get onReconcile(): ((event: ReconcileEvent) => void) | undefined {
    return this.predictor.onReconcile;
  }

  set onReconcile(listener: ((event: ReconcileEvent) => void) | undefined) {
    this.predictor.onReconcile = listener;
  }

  /** This client's 60 Hz frame number (frames run so far). */
  get frameNumber(): number {
    return this.clock.frame;
  }

  /** The latest of this client's frames the server has said it applied (-1: none yet). */
  get lastAcknowledgedFrame(): number {
    return this.clock.lastAck?.seq ?? -1;
  }

  get roomId(): string {
    return this.room.roomId;
  }

  /** Hands of this client that hold a body now (predicted; the server may still refuse a fresh grab). */
  heldBody(hand: Hand): string | undefined {
    return this.grabs.held.get(hand)?.body.id;
  }

  /**
   * How far a hand's grab is pulled from the material it holds, as a share of the distance at which it would slip
   * (0 when nothing is held): haptics and sounds scale with it.
   */
  grabStrain(hand: Hand): number {
    const held = this.grabs.held.get(hand);
    if (!held || held.grab < 0) return 0;
    return Math.min(1, held.body.entity.grabStrain(held.grab));
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
    if (!this.bodies.has(bodyId) && !this.characters.all.has(bodyId)) return Promise.resolve({ hand, body: bodyId, ok: false, reason: `unknown body "${bodyId}"` });
    return new Promise<GrabResultMessage>((resolve) => {
      this.pendingGrabs.get(hand)?.({ hand, body: bodyId, ok: false, reason: "replaced by a newer grab" });
      this.pendingGrabs.set(hand, resolve);
      this.queued.push({ kind: "start", hand, body: bodyId, point });
    });
  }

  /** Where a held grab should go (world m): applied, and sent, once per frame. */
  moveGrab(hand: Hand, target: [number, number, number]): void {
    this.grabs.targets.set(hand, [target[0], target[1], target[2]]);
  }

  release(hand: Hand): void {
    this.queued.push({ kind: "end", hand });
  }

  /** A fingertip near a body (radius 0 ends it): sent to the server, and felt at once by the bodies this client predicts. */
  poke(hand: Hand, center: [number, number, number], radius: number): void {
    // A refresh may be lost (the next one replaces it); an end may not.
    this.send(radius > 0, MESSAGES.poke, { hand, center: [center[0], center[1], center[2]], radius });
    this.fingertips.touch(this.roomBodies.scene, hand, center, radius, this.clock.frame);
  }

  /**
   * Tells the room this client is still there, when it holds something and has sent nothing for KEEPALIVE_MS (at
   * most one per KEEPALIVE_MS). Call it from a timer, off the render loop: a page drawing a frame every few seconds
   * keeps its grabs, while a page whose main thread is frozen cannot call it and is let go after
   * LIMITS.silentHoldSeconds. Returns whether one was sent.
   */
  keepAlive(now = Date.now()): boolean {
    if (this.closed || now - this.lastSentAt < KEEPALIVE_MS) return false;
    if (!this.grabs.holdingAnything && this.pendingGrabs.size === 0) return false;
    this.send(false, MESSAGES.keepalive, {});
    return true;
  }

  /** Any message, as is (admin actions; tests of hostile input). */
  sendRaw(type: string, payload: unknown): void {
    this.room.send(type, payload);
  }

  // ----- per frame --------------------------------------------------------------------------------------

  /** Advances prediction and interpolation to `now` (ms, Date.now clock). Call once per rendered frame. */
  update(now = Date.now()): void {
    const { frames, skipped, elapsed } = this.clock.advance(now);
    // Server states first (replays that fit beside this update's new frames), then the new frames.
    this.predictor.beginUpdate(frames, skipped);
    for (let f = 0; f < frames; f++) this.runFrame(frames - 1 - f);
    this.predictor.endUpdate();
    this.characters.show(now - INTERPOLATION_DELAY_MS);
    for (const body of this.bodies.values()) this.predictor.show(body, now, elapsed);
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

  /**
   * Resolves with the round trip (ms) once the server has answered a ping sent after this call: everything this
   * client sent before has been handled, and everything the server sent before has arrived.
   */
  roundTrip(): Promise<number> {
    return this.roundTrips.measure();
  }

  async leave(): Promise<void> {
    this.stopTimers();
    this.roundTrips.close("left the room");
    if (!this.closed) {
      this.closed = true;
      // A connection that already dropped never answers the goodbye: do not wait for it.
      await Promise.race([this.room.leave(true).catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000))]);
    }
  }

  // ----- internals --------------------------------------------------------------------------------------

  private send(droppable: boolean, type: string, payload: unknown): void {
    this.lastSentAt = Date.now();
    this.network.schedule(droppable, () => {
      if (!this.closed) this.room.send(type, payload);
    });
  }

  private stopTimers(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }

  /** Calls `listener` whenever a body joins or leaves; returns the unsubscribe. */
  subscribeBodies = (listener: () => void): (() => void) => this.roomBodies.subscribe(listener);

  private applySnapshot(bytes: Uint8Array): void {
    let snapshot: DecodedSnapshot;
    try {
      snapshot = decodeSnapshot(bytes);
    } catch {
      return; // a damaged snapshot is skipped; the next one carries the state again
    }
    const now = Date.now();
    // One not newer than a snapshot already here (reordered on the way) is stale: it would put props back, and a held
    // body's replay would meet a ball that jumped back (33 mm in test/net/body-predictor.test.ts).
    if (!this.clock.snapshotArrived(snapshot.tick, now)) return;
    for (const grab of snapshot.grabs) this.mirror.targets.set(grab.slot, grab.target);
    this.roomBodies.scene.snapshotArrived();
    for (const prop of snapshot.props) {
      const pose = this.props.get(prop.index) ?? new Float64Array(7);
      pose.set(prop.position, 0);
      pose.set(prop.quaternion, 3);
      this.props.set(prop.index, pose);
      this.roomBodies.scene.setPropPose(prop.index, pose, snapshot.tick);
    }
    for (const avatar of snapshot.avatars) this.avatars.set(avatar.slot, { mask: avatar.mask, poses: avatar.poses });
    this.roomBodies.syncMaterials();
    for (const body of this.bodies.values()) if (body.predicting) this.mirror.sync(body);
    const lastAck = this.clock.lastAck, ack = lastAck && lastAck.tick === snapshot.tick ? lastAck : null;
    for (const entry of snapshot.characters) this.characters.pose(entry, snapshot.tick, now);
    for (const state of snapshot.bodies) {
      if (this.characters.owns(state.index)) {
        this.characters.soft(state.index, snapshot.tick, state.q, now);
        continue;
      }
      const body = this.roomBodies.serverState(state.index, snapshot.tick, state.q, now);
      if (!body) continue;
      // Reconciled in the next update(), within its budget.
      this.predictor.serverState(body, snapshot.tick, state.q, ack ? ack.seq : null);
    }
  }

  /**
   * One 60 Hz frame: this frame's grab inputs (applied locally and sent with its number), then the predicted
   * bodies. `later` frames of this update() follow it: a body steps only in the frames its share of the budget
   * covers (the last ones), and coasts before them.
   */
  private runFrame(later: number): void {
    const seq = this.clock.nextFrame(), grabs = this.grabs;
    for (const input of this.queued.splice(0)) {
      if (input.kind === "start" && this.characters.all.has(input.body)) {
        // A character: only the server moves it, so the hand's target is all there is to send.
        this.releaseLocal(input.hand);
        grabs.characters.set(input.hand, input.body);
        grabs.targets.set(input.hand, input.point);
        this.send(false, MESSAGES.grabStart, { hand: input.hand, body: input.body, point: input.point, seq: seq % SEQ_MODULUS });
      } else if (input.kind === "start") {
        const body = this.bodies.get(input.body)!;
        this.releaseLocal(input.hand);
        this.predictor.start(body);
        let grab = -1;
        try {
          grab = body.entity.grabAt(input.point[0], input.point[1], input.point[2]);
        } catch {
          // No free grab slot in the solver: the server's state will show the grab.
        }
        if (grab >= 0) grabs.hold(input.hand, body, grab, input.point);
        grabs.targets.set(input.hand, input.point);
        this.send(false, MESSAGES.grabStart, { hand: input.hand, body: input.body, point: input.point, seq: seq % SEQ_MODULUS });
      } else {
        this.releaseLocal(input.hand);
        this.send(false, MESSAGES.grabEnd, { hand: input.hand, seq: seq % SEQ_MODULUS });
      }
    }
    for (const hand of grabs.characters.keys()) {
      const target = grabs.targets.get(hand);
      if (target) this.send(true, MESSAGES.grabMove, { hand, target: [target[0], target[1], target[2]], seq: seq % SEQ_MODULUS, earlier: [] });
    }
    for (const [hand, held] of grabs.held) {
      const target = grabs.targets.get(hand);
      if (!target) continue;
      limitTarget(held.body, target);
      if (held.grab >= 0) {
        held.body.entity.moveGrab(held.grab, target[0], target[1], target[2]);
        // A target further from the material than the server lets a grab stretch (a flick) would throw the body
        // in the step before the server's slip check let go: the hand lets go now instead, and the body keeps the
        // velocity the hand gave it.
        if (held.body.entity.slipping(held.grab)) {
          this.predictionStats.predictedSlips++;
          this.releaseLocal(hand);
          this.send(false, MESSAGES.grabEnd, { hand, seq: seq % SEQ_MODULUS });
          continue;
        }
      }
      // The two previous frames' targets of this grab ride along: a lost message costs the server nothing.
      this.send(true, MESSAGES.grabMove, { hand, target: [target[0], target[1], target[2]], seq: seq % SEQ_MODULUS, earlier: held.recent.flat() });
      held.recent.unshift([target[0], target[1], target[2]]);
      if (held.recent.length > 2) held.recent.pop();
    }
    this.fingertips.expire(this.roomBodies.scene, seq);
    this.predictor.frame(seq, later);
  }

  /** A client-side grab ends: the solver lets go, history keeps it (a replay of earlier frames still holds it). */
  private releaseLocal(hand: Hand): void {
    const held = this.grabs.held.get(hand);
    this.grabs.targets.delete(hand);
    this.grabs.characters.delete(hand);
    if (!held) return;
    this.grabs.held.delete(hand);
    deactivateGrab(held);
    this.predictor.grabEnded(held);
  }

  /** Where grab `slot` (GrabState.slot) pulls now, as the latest snapshot says; undefined before any. */
  grabTarget(slot: number): readonly [number, number, number] | undefined {
    return this.mirror.targets.get(slot);
  }

  /**
   * An upload ticket for POST /meshes (see uploadMesh), or the room's reason for none (spectators in a room that
   * does not let them play).
   */
  requestUploadTicket(timeoutMs = 10_000): Promise<UploadTicket> {
    return this.tickets.request(() => this.room.send(MESSAGES.uploadTicket, {}), timeoutMs);
  }

  /** Asks the server to put the table back as it started (players; refused within its cooldown, with a notice). */
  resetTable(): void {
    this.room.send(MESSAGES.resetTable, {});
  }

  /** Asks the server to turn a body into another material (players; everyone gets a notice). */
  setMaterial(body: string, material: MaterialName): void {
    this.room.send(MESSAGES.setMaterial, { body, material } satisfies SetMaterialMessage);
  }

  /** A body's material as the room state has it now ("jelly" for a body it does not know). */
  materialOf(body: string): MaterialName {
    const material = this.room.state?.bodies?.get(body)?.material;
    return isMaterialName(material) ? material : "jelly";
  }

  private onGrabResult(result: GrabResultMessage): void {
    const resolve = this.pendingGrabs.get(result.hand);
    this.pendingGrabs.delete(result.hand);
    if (result.ok) this.grabs.confirmed(result);
    else {
      if (!resolve) this.onGrabEnded?.(result);
      if (this.grabs.characters.get(result.hand) === result.body) this.releaseLocal(result.hand);
      // Refused, or ended by the server (slipped, or the body was put back): every snapshot from now on is after
      // that, so no frame may replay this grab's pull again.
      const held = this.grabs.held.get(result.hand);
      if (held && held.body.id === result.body) {
        this.releaseLocal(result.hand);
        this.predictor.grabRefused(held);
      }
    }
    resolve?.(result);
  }
}
