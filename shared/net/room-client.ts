// The client side of a Pliant room, for the browser app and for tests in Node: joins, keeps every body's
// server states, predicts the bodies this client holds with the same solver the server runs, reconciles them
// with the server's snapshots, and interpolates everything else.
//
// One world: every body is a SoftEntity (the server's recipe: solver body and proxy spheres), wired to the same
// obstacles as on the server (shared/scene/predicted-scene.ts): the static boxes, the props at their latest
// snapshot poses, the other bodies' proxies at their latest snapshot q, and this client's fingertips.
//
// Prediction with rollback: a held body is stepped locally at 60 Hz with this client's grabs applied at once,
// and every frame's grab inputs are sent with the frame's number. The server applies one frame of them per tick
// and acknowledges the last frame its snapshot includes. The local body is reset to the snapshot's q after the
// acknowledged frame (with the velocity predicted for it, corrected by the error over the time since the last
// reset when the server kept one frame per tick), and the frames since are replayed with their recorded grabs.
// The error is measured against the prediction of that same frame. Other players' grabs on the body are
// mirrored from the room state, so their pulls are predicted too.
//
// Bounded work: update() spends at most PREDICTION_STEP_BUDGET solver steps, replays first; a replay that does
// not fit is cut short (the rest shifted by its correction) or left to the next snapshot, and new frames beyond
// the budget coast. Corrections are shown gradually. The client keeps in step with the server (follows a slow
// server's pace, runs ahead of its own slow frames, trims the server's input queue when it grows), so that the
// server applies exactly one of its frames per tick, as predicted.
//
// Grabs end without a rubber band: the prediction applies the server's slip rule (and lets go before a flick's
// target could throw the body), obeys a grab-result that ends a grab, and never replays a pull the server no
// longer applies. A body no longer held is predicted on, free, until it settles; then it is shown from snapshots
// again, fading over. Remote bodies are shown INTERPOLATION_DELAY_MS in the past, between the two snapshots
// around that time.

import { Client, type FetchFn } from "@colyseus/sdk";
import { MATERIALS, PLAYGROUND, SoftEntity, grabSlipLimit, isMaterialName, type MaterialName, type SceneLayout } from "../scene";
import { PredictedScene } from "../scene/predicted-scene";
import type { SoftBody } from "../sim";
import { prepareSolverKernels } from "../sim/kernels/solver-kernels";
import { decodeBakedBody, type BakedBody } from "../skinning";
import { NetworkSimulator, PERFECT_NETWORK, type NetworkConditions } from "./network-conditions";
import { RoundTrips } from "./round-trips";
import { SEAT_DEADLINE_MS } from "./join-attempts";
import { grabRadius, HANDS, LIMITS, MESSAGES, ROOM_NAME, SEQ_MODULUS, TICK_RATE, unwrapSeq, type AckMessage, type GrabHeldMessage, type GrabResultMessage, type Hand, type JoinOptions, type NoticeMessage, type Pose, type SetMaterialMessage, type UploadTicketMessage } from "./protocol";

/** An upload ticket the room handed out (the answer to `upload-ticket` without an error). */
type UploadTicket = Extract<UploadTicketMessage, { ticket: string }>;
import { decodeSnapshot, type DecodedSnapshot } from "./snapshot";
import type { PliantRoom, RoomState } from "./state";
import { ClientCharacters, type CharacterInfo, type NetworkLoader } from "./client-characters";
import { networkLoader } from "./network-loader";
import type { OrtModule } from "../skinning/onnx-provider";

export const INTERPOLATION_DELAY_MS = 100;
/** Local prediction history kept for reconciliation, frames (2 s: round trips beyond that are not replayed). */
const HISTORY = 120;
const DT = 1 / TICK_RATE;
/**
 * Most 60 Hz frames one update() catches up: twice the usual interval between updates, from MIN_CATCH_UP_FRAMES to
 * MAX_CATCH_UP_FRAMES. A longer stall is skipped, not simulated: the server held this client's grabs where they were
 * meanwhile (it steps on with the last target when no input waits), which the next reconciliation takes in.
 */
const MIN_CATCH_UP_FRAMES = 4;
const MAX_CATCH_UP_FRAMES = 15;
/**
 * Most solver steps one update() spends on prediction: replays and new frames of every predicted body together.
 * Replays come first (they correct every frame since the server's state), keeping NEW_FRAME_RESERVE steps for
 * the new frames; frames a replay cannot reach keep their prediction, shifted by the correction. New frames
 * step in what is left, the last ones of a long frame first; earlier ones coast on their velocity (the next
 * replay recomputes them).
 */
export const PREDICTION_STEP_BUDGET = 30;
/** Steps the budget gains per 60 Hz frame of time (so a client calling update() often cannot spend more). */
const STEPS_PER_FRAME = 10;
/** Steps of each update's new frames the budget keeps free of replays (per predicted body). */
const NEW_FRAME_RESERVE = 2;
/** Most frames beyond a (budget-limited) replay that are shifted by its correction, and snapshots left unreconciled in a row for want of budget. */
const SHIFT_LIMIT = 6;
const MAX_DEFERRED = 3;
/** A released body is predicted on until it moves slower than this (m/s, RMS) for SETTLED_FRAMES frames... */
const SETTLED_SPEED = 0.02;
const SETTLED_FRAMES = 12;
/** ...or for at most this many frames; then it is shown from snapshots again. */
const FREE_FRAMES = 150;
/** Corrections of a predicted body, and the hand-over to and from interpolation, fade with these time constants (ms). */
const CORRECTION_FADE_MS = 40;
export const HANDOVER_FADE_MS = 80;
/**
 * The velocity correction uses a server state at most this many ticks before the current one, and only errors
 * up to VELOCITY_CORRECTION_ERROR (m): a larger one comes from something the prediction did not know (a contact
 * it missed, inputs the server applied late), not from a velocity that was a little off.
 */
const VELOCITY_CORRECTION_TICKS = 12;
const VELOCITY_CORRECTION_ERROR = 0.01;
/** Grab targets stay this far inside the server's limit (LIMITS.grabStretch beyond the body's bounding sphere). */
const TARGET_MARGIN = 0.98;
/**
 * The server's queue of this client's grab inputs must not grow: when the server falls behind (a slow or
 * stalled server drops ticks; a client stalled and then caught up in a burst) it grows, and beyond
 * LIMITS.inputBacklog the server applies several frames in one tick, which no prediction can follow. The lead
 * (this client's frame minus the frame an acknowledgement says the server applied, at its arrival) measures it
 * but for the round trip: its least over QUEUE_WINDOW acknowledgements is compared with the least seen since the
 * grab began, and this client skips frames (runs slower) to take back any growth beyond QUEUE_SLACK frames.
 * Its clock follows the server's.
 */
const QUEUE_WINDOW = 4;
const QUEUE_SLACK = 3;
/**
 * A server that runs slower than TICK_RATE (overloaded, or catching up less than it fell behind) is followed:
 * its tick rate, measured over the snapshots of the last RATE_WINDOW_MS, sets this client's frame rate when it is
 * below RATE_FOLLOW_BELOW of the nominal rate (and never below a quarter of it).
 */
const RATE_WINDOW_MS = 1000;
const RATE_FOLLOW_BELOW = 0.9;
/**
 * A client whose frames come far apart (a slow renderer: update() every 50 ms) sends its inputs in bursts, and the
 * server's queue would run dry between them (it then steps with a stale target). So such a client runs ahead by
 * its update interval less one frame (at most MAX_LOOKAHEAD frames): the queue holds what the next burst brings.
 */
const MAX_LOOKAHEAD = 6;
/** The lead is measured once the server's queue has settled after the grab began (its jitter buffer filled). */
const QUEUE_SETTLE_FRAMES = 30;

export interface ClientBody {
  id: string;
  index: number;
  baked: BakedBody;
  /** The body as the server builds it: solver body, proxy spheres, contacts. */
  entity: SoftEntity;
  /** The local solver body (entity.body): predicted while held, otherwise only used to evaluate positions. */
  body: SoftBody;
  /** Latest server states (time received, q), oldest first. */
  snapshots: { at: number; tick: number; q: Float64Array }[];
  /** q shown now. */
  displayQ: Float64Array;
  predicting: boolean;
  /**
   * Prediction error at the last snapshot it was measured at, m: the largest distance between the server's and
   * the predicted surface (every 4th sample) for the same (acknowledged) frame, before the correction. NaN before any.
   */
  lastReconcileError: number;
  /** Snapshots at which lastReconcileError was measured, so far. */
  reconciles: number;
  /** How far the last reconciliation moved the prediction of now (m, surface as for lastReconcileError), before the fade. */
  lastCorrection: number;
  /** The material the local body simulates (follows the room's admin changes). */
  material: string;
}

/** One predicted frame: the state after it, the server tick it predicts, and this client's grabs in it. */
interface HistoryEntry {
  /** The frame number (the seq its inputs were sent with). */
  seq: number;
  /** The server tick whose state this predicts (NaN until the first acknowledged snapshot). */
  tick: number;
  q: Float64Array;
  v: Float64Array;
  /** Per hand slot (HANDS order): the serial of this client's grab on the body in this frame, or -1, and its target. */
  serials: Int32Array;
  targets: Float64Array;
}

/** A grab of this client's on a body: live while held; kept after it ends while history frames may replay it. */
interface OwnGrab {
  hand: Hand;
  serial: number;
  body: ClientBody;
  /** Solver grab id, or -1 while not in the solver. */
  grab: number;
  /** Where it was grabbed (the grab-start point). */
  point: [number, number, number];
  /** The samples held and their offsets (to recreate it in a replay). */
  samples: number[];
  offsets: number[];
  /** Holds the server's samples (from its grab-result). */
  exact: boolean;
  /** The targets of the last two frames, newest first (sent along with each move). */
  recent: [number, number, number][];
  /** A grab-end is queued for it (the prediction saw it slip). */
  ending: boolean;
}

/** Per body prediction state. */
interface Prediction {
  /** Consecutive frames, oldest first; the first is the last server state the prediction was reset to. */
  history: HistoryEntry[];
  spare: HistoryEntry[];
  /** Latest server state not reconciled yet, and the frame the server acknowledged with it (or null). */
  pending: { tick: number; q: Float64Array; frame: number | null } | null;
  /** Tick of the server state the prediction was last reset to (-1: none). */
  baseTick: number;
  /** Snapshots in a row not reconciled for want of budget. */
  deferred: number;
  /** Ended own grabs that history frames still hold, by serial. */
  ghosts: Map<number, OwnGrab>;
  /** Frames since the last own grab on the body ended (-1 while one is held), and frames it has been slow. */
  freeFrames: number;
  slowFrames: number;
  /** Coasting: the state being carried forward without the solver (set into the body before its next step). */
  coasting: boolean;
  coastQ: Float64Array;
}

export interface JoinSettings {
  /** ws://host:port of the server (http URLs work too). */
  endpoint: string;
  options?: JoinOptions;
  /** Returns the BakedBody bytes of a hash (GET /bakes/<hash> in the app). Defaults to fetch on the endpoint. */
  fetchBake?: (hash: string) => Promise<Uint8Array>;
  network?: NetworkConditions;
  layout?: SceneLayout;
  /** Join this room id instead of the server's public room. */
  roomId?: string;
  /** Create a new room instead of joining the public one (private sessions; the server asks for the admin token in the options). */
  create?: boolean;
  /**
   * An onnxruntime (web in pages, node in tests) to run characters' secondary-motion networks with, fetched from the
   * endpoint's /models/; without one, a character's flesh shows only while the server's solver moves it.
   */
  ort?: () => Promise<OrtModule>;
  /**
   * Execution providers for those networks, tried in order (default onnxruntime's own), or how to choose them once a
   * network is first needed (a page asks the browser for a WebGPU adapter then, not while it joins).
   */
  executionProviders?: string[] | (() => Promise<string[]>);
  /** Most time the room may take to answer the seat request, ms (SEAT_DEADLINE_MS); then the join fails. */
  seatDeadlineMs?: number;
  /**
   * Called as the seat is asked for; what it returns is called once the room has let this client in and its state has
   * arrived, or the attempt failed, or after the seat deadline. A page stops drawing meanwhile: a slow page's frames
   * can keep its main thread from taking up the seat (opening the socket, reading the room's handshake) before the
   * server gives it up.
   */
  whileSeating?: () => () => void;
  /** Called once the room has let this client in, before its bodies are loaded. */
  onSeated?: () => void;
}

/** How long a room must have been joined before a dropped connection is reconnected by the SDK, ms. */
const RECONNECT_AFTER_MS = 1000;
/**
 * While it holds something, a client says it is still there at least this often (a quarter of the server's silent
 * hold: a late or lost keepalive does not cost a grab), ms.
 */
export const KEEPALIVE_MS = (LIMITS.silentHoldSeconds * 1000) / 4;

export interface PredictionStats {
  /** Solver steps run by the prediction: new frames, and frames replayed. */
  steps: number;
  replayed: number;
  /** Frames carried forward without the solver (over budget). */
  coasted: number;
  /** Reconciliations done by replaying, by shifting (over budget), and snapshots left for a later one (over budget). */
  replays: number;
  shifts: number;
  deferred: number;
  /** Most solver steps one update() spent. */
  mostStepsInUpdate: number;
  /** Own grabs the prediction saw slip. */
  predictedSlips: number;
  /** Frames skipped to let a server that fell behind catch up. */
  skippedFrames: number;
}

export interface ReconcileEvent {
  body: string;
  /** The server tick of the state, and the frame of this client's it follows. */
  tick: number;
  frame: number;
  /** ClientBody.lastReconcileError (NaN when not measured) and lastCorrection, m. */
  error: number;
  correction: number;
  /** Frames after the server's state, and whether they were replayed (true) or shifted (over budget). */
  frames: number;
  replayed: boolean;
}

type BodyInfo = { id: string; index: number; bake: string; size: number; material: string; spawnX: number; spawnY: number; spawnZ: number };

/** How long a client waits before fetching a body's bake again after a failure, ms. */
const BAKE_RETRY_MS = 3000;
/** Notices a client keeps (PliantRoomClient.notices). */
const MAX_NOTICES_KEPT = 100;

export class PliantRoomClient {
  readonly bodies = new Map<string, ClientBody>();
  readonly notices: NoticeMessage[] = [];
  /** Latest pose of every rigid prop that has moved, by PropState.index: position (3) then quaternion (4). */
  readonly props = new Map<number, Float64Array>();
  /** Latest head and hand poses of every player, by PlayerState.slot (mask: 1 head, 2 left, 4 right). */
  readonly avatars = new Map<number, { mask: number; poses: Float64Array }>();
  /** What the prediction did so far (benchmarks and tests). */
  readonly predictionStats: PredictionStats = { steps: 0, replayed: 0, coasted: 0, replays: 0, shifts: 0, deferred: 0, mostStepsInUpdate: 0, predictedSlips: 0, skippedFrames: 0 };
  /** Called after each reconciliation of a predicted body with a server state (tests, diagnostics). */
  onReconcile: ((event: ReconcileEvent) => void) | undefined;
  /** Called for each notice from the server (the page shows them). */
  onNotice: ((notice: NoticeMessage) => void) | undefined;
  /** Called when the server ends one of this client's grabs (it slipped, the body was put back, an admin said so). */
  onGrabEnded: ((result: GrabResultMessage) => void) | undefined;
  /** Round-trip time, ms (refreshed every second). */
  rtt = 0;
  /** Counts changes of `bodies` (a body added or gone): pages re-render their meshes when it moves. */
  bodiesVersion = 0;
  private readonly bodyListeners = new Set<() => void>();
  /** Bodies the room added since this client built its scene, being fetched, by id. */
  private readonly arriving = new Set<string>();
  /** When a body whose bake failed to load may be tried again (ms since the epoch), by id. */
  private readonly retryAt = new Map<string, number>();
  /**
   * The latest snapshot state of each index no body has here yet (a body being fetched): applied when it is
   * built, so that one that falls asleep at once is not shown at its spawn until something moves it.
   */
  private readonly unknownStates = new Map<number, { tick: number; q: Float64Array }>();
  private fetchBake: (hash: string) => Promise<Uint8Array> = async () => new Uint8Array(0);
  /** The room's characters as shown (client-characters.ts); nobody predicts them. */
  readonly characters = new ClientCharacters((hash) => this.fetchBake(hash), () => this.bodiesChanged(), (name) => this.loadNetwork(name));
  private loadNetwork: NetworkLoader = async () => {
    throw new Error("no onnxruntime to run networks with");
  };
  /** Hands holding a character: its id. */
  private readonly heldCharacters = new Map<Hand, string>();
  /** Upload tickets asked for and not answered yet, oldest first. */
  private readonly ticketWaiters: { resolve(ticket: UploadTicket): void; reject(error: Error): void }[] = [];
  private readonly network: NetworkSimulator;
  private scene!: PredictedScene;
  /** This client's live grabs, by hand. */
  private readonly held = new Map<Hand, OwnGrab>();
  private grabSerial = 0;
  private readonly pendingGrabs = new Map<Hand, (result: GrabResultMessage) => void>();
  private readonly predictions = new Map<ClientBody, Prediction>();
  /** Current grab target per hand (world m). */
  private readonly targets = new Map<Hand, [number, number, number]>();
  /** Latest target of every grab in the room, by GrabState.slot. */
  private readonly grabTargets = new Map<number, [number, number, number]>();
  /** Other people's grabs replicated on bodies this client predicts, by "sessionId:hand". */
  private readonly replicas = new Map<string, { body: ClientBody; grab: number; slot: number; exact: boolean }>();
  /** The material other people's grabs hold on bodies this client holds too (grab-held), by "sessionId:hand". */
  private readonly heldMaterial = new Map<string, GrabHeldMessage>();
  /** This client's fingertips: when each was last refreshed (frame), by hand slot; -1 when idle. */
  private readonly pokeFrames = HANDS.map(() => -1);
  /** Shown correction still fading, per body (q-space; displayQ = prediction + offset), and its fade time constant. */
  private readonly shownOffsets = new Map<ClientBody, { q: Float64Array; fadeMs: number }>();
  private lastFrame = 0;
  private readonly pointScratch = new Float64Array(3);
  private readonly otherPointScratch = new Float64Array(3);
  /** This client's frame number: grab inputs are sent with it. */
  private frame = 0;
  private lastAck: AckMessage | null = null;
  private readonly queued: ({ kind: "start"; hand: Hand; body: string; point: [number, number, number] } | { kind: "end"; hand: Hand })[] = [];
  private accumulator = 0;
  /** Leads at recent acknowledgements, the least lead since the grab began, and frames still to skip. */
  private readonly leads: number[] = [];
  private leastLead = Infinity;
  /** Mean interval between update() calls (ms), and the frames this client runs ahead for it. */
  private updateInterval = 1000 / TICK_RATE;
  private lookahead = 0;
  /** When recent snapshots arrived and their ticks, oldest first (the server's pace). */
  private readonly snapshotArrivals: { at: number; tick: number }[] = [];
  private holdingSince = -1;
  private framesToSkip = 0;
  /** Solver steps left in this update(). */
  private budget = PREDICTION_STEP_BUDGET;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  /** When this client last sent the room a message (Date.now clock). */
  private lastSentAt = 0;
  private readonly roundTrips: RoundTrips;
  private closed = false;
  private byIndex: ClientBody[] = [];
  private vScratch = new Float64Array(0);
  private qScratch = new Float64Array(0);
  private dqScratch = new Float64Array(0);
  private dvScratch = new Float64Array(0);

  private constructor(readonly room: PliantRoom, network: NetworkConditions) {
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
      room = await PliantRoomClient.takeSeat(settings);
    } catch (error) {
      seated();
      throw error;
    }
    // The SDK reconnects only rooms joined this long ago (its default, 5 s, would leave a headset that drops soon
    // after joining, or a slow page that drops while it loads the room, without its seat); a room that drops us at
    // once is still retried a bounded number of times.
    room.reconnection.minUptime = RECONNECT_AFTER_MS;
    settings.onSeated?.();
    const self = new PliantRoomClient(room, settings.network ?? PERFECT_NETWORK);
    // Messages can arrive before the bodies are built: hold snapshots until then.
    const early: Uint8Array[] = [];
    let ready = false;
    room.onMessage(MESSAGES.snapshot, (bytes: Uint8Array) => {
      self.network.schedule(true, () => (ready ? self.applySnapshot(bytes) : early.push(bytes)));
    });
    room.onMessage(MESSAGES.grabResult, (result: GrabResultMessage) => self.network.schedule(false, () => self.onGrabResult(result)));
    room.onMessage(MESSAGES.grabHeld, (held: GrabHeldMessage) => self.network.schedule(false, () => self.onGrabHeld(held)));
    room.onMessage(MESSAGES.notice, (notice: NoticeMessage) => {
      // The latest ones only: resets and refusals keep coming for as long as a page stays open.
      if (self.notices.push(notice) > MAX_NOTICES_KEPT) self.notices.shift();
      self.onNotice?.(notice);
    });
    room.onMessage(MESSAGES.ack, (ack: AckMessage) => self.network.schedule(true, () => self.onAck(ack)));
    room.onMessage(MESSAGES.uploadTicket, (answer: UploadTicketMessage) => {
      const waiter = self.ticketWaiters.shift();
      if ("error" in answer) waiter?.reject(new Error(answer.error));
      else waiter?.resolve(answer);
    });
    if (settings.ort) self.loadNetwork = networkLoader(settings.ort, http, settings.executionProviders);
    const fetchBake = settings.fetchBake ?? ((hash: string) => fetchBakeFrom(http, hash));
    try {
      await self.waitForState().finally(seated);
      await prepareSolverKernels();
      self.fetchBake = fetchBake;
      await self.buildBodies(fetchBake, settings.layout ?? PLAYGROUND);
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
      self.syncBodies();
      syncCharacters();
    });
    self.syncBodies();
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
      for (const hand of [...self.held.keys()]) self.releaseLocal(hand);
      self.roundTrips.dropped();
    });
    room.onReconnect(() => self.roundTrips.reconnected());
    return self;
  }

  /**
   * The seat: the HTTP reservation and at once the socket that takes it up (the SDK opens it as the answer arrives;
   * everything heavy comes after). A room that does not answer the request within the seat deadline fails the join
   * (as a network error: the room is not answering).
   */
  private static takeSeat(settings: JoinSettings): Promise<PliantRoom> {
    const deadlineMs = settings.seatDeadlineMs ?? SEAT_DEADLINE_MS;
    const fetchFn: FetchFn = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(deadlineMs) }).catch((error: unknown) => {
      throw error instanceof DOMException && error.name === "TimeoutError" ? new TypeError(`no answer within ${deadlineMs} ms`) : error;
    });
    const client = new Client(settings.endpoint, { fetchFn });
    const options = settings.options ?? {};
    return settings.roomId ? client.joinById<RoomState>(settings.roomId, options) : settings.create ? client.create<RoomState>(ROOM_NAME, options) : client.join<RoomState>(ROOM_NAME, options);
  }

  get sessionId(): string {
    return this.room.sessionId;
  }

  /** This client's 60 Hz frame number (frames run so far). */
  get frameNumber(): number {
    return this.frame;
  }

  /** The latest of this client's frames the server has said it applied (-1: none yet). */
  get lastAcknowledgedFrame(): number {
    return this.lastAck?.seq ?? -1;
  }

  get roomId(): string {
    return this.room.roomId;
  }

  /** Hands of this client that hold a body now (predicted; the server may still refuse a fresh grab). */
  heldBody(hand: Hand): string | undefined {
    return this.held.get(hand)?.body.id;
  }

  /**
   * How far a hand's grab is pulled from the material it holds, as a share of the distance at which it would slip
   * (0 when nothing is held): haptics and sounds scale with it.
   */
  grabStrain(hand: Hand): number {
    const held = this.held.get(hand);
    if (!held || held.grab < 0) return 0;
    return Math.min(1, held.body.body.grabStretch(held.grab) / grabSlipLimit(held.body.entity.size));
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
    this.targets.set(hand, [target[0], target[1], target[2]]);
  }

  release(hand: Hand): void {
    this.queued.push({ kind: "end", hand });
  }

  /** A fingertip near a body (radius 0 ends it): sent to the server, and felt at once by the bodies this client predicts. */
  poke(hand: Hand, center: [number, number, number], radius: number): void {
    // A refresh may be lost (the next one replaces it); an end may not.
    this.send(radius > 0, MESSAGES.poke, { hand, center: [center[0], center[1], center[2]], radius });
    const slot = HANDS.indexOf(hand);
    // Only what the server accepts (it drops anything else).
    if (slot < 0 || !this.scene || !(radius >= 0 && radius <= LIMITS.pokeRadiusMax) || ![center[0], center[1], center[2]].every(Number.isFinite)) return;
    this.scene.setPoke(slot, center[0], center[1], center[2], radius);
    this.pokeFrames[slot] = radius > 0 ? this.frame : -1;
  }

  /**
   * Tells the room this client is still there, when it holds something and has sent nothing for KEEPALIVE_MS (at
   * most one per KEEPALIVE_MS). Call it from a timer, off the render loop: a page drawing a frame every few seconds
   * keeps its grabs, while a page whose main thread is frozen cannot call it and is let go after
   * LIMITS.silentHoldSeconds. Returns whether one was sent.
   */
  keepAlive(now = Date.now()): boolean {
    if (this.closed || now - this.lastSentAt < KEEPALIVE_MS) return false;
    if (this.held.size === 0 && this.heldCharacters.size === 0 && this.pendingGrabs.size === 0) return false;
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
    if (this.lastFrame === 0) this.lastFrame = now;
    const elapsed = Math.max(0, now - this.lastFrame);
    const catchUp = Math.max(MIN_CATCH_UP_FRAMES, Math.min(MAX_CATCH_UP_FRAMES, Math.ceil((2 * this.updateInterval * TICK_RATE) / 1000) + this.lookahead));
    this.accumulator = Math.min(this.accumulator + (elapsed / 1000) * this.serverPace(now), catchUp * DT);
    // Run ahead by the interval between updates (see MAX_LOOKAHEAD): a longer one adds frames now, a shorter one skips some.
    // (A one-off stall barely moves the mean; the lookahead shrinks only when the interval has clearly shrunk,
    // since each frame taken back is a tick the server's queue may run dry.)
    if (elapsed > 0) this.updateInterval += 0.1 * (Math.min(elapsed, 100) - this.updateInterval);
    const wanted = Math.max(0, Math.min(MAX_LOOKAHEAD, Math.ceil((this.updateInterval * TICK_RATE) / 1000 - 0.25) - 1));
    const lookahead = wanted > this.lookahead ? wanted : wanted < this.lookahead - 1 ? wanted + 1 : this.lookahead;
    if (lookahead > this.lookahead) this.accumulator += (lookahead - this.lookahead) * DT;
    else if (lookahead < this.lookahead) this.framesToSkip += this.lookahead - lookahead;
    this.lookahead = lookahead;
    this.lastFrame = now;
    let frames = 0;
    while (this.accumulator >= DT) {
      this.accumulator -= DT;
      frames++;
    }
    const skipped = Math.min(frames, this.framesToSkip);
    frames -= skipped;
    this.framesToSkip -= skipped;
    // Steps come at STEPS_PER_FRAME per 60 Hz frame of time passed, PREDICTION_STEP_BUDGET at most at once.
    this.budget = Math.min(PREDICTION_STEP_BUDGET, this.budget + (frames + skipped) * STEPS_PER_FRAME);
    const budgetAtStart = this.budget;
    // Server states first (replays that fit beside this update's new frames), then the new frames.
    const predicted = this.predictedCount();
    for (const [body, prediction] of this.predictions) {
      if (prediction.pending) this.reconcile(body, prediction, Math.min(frames, NEW_FRAME_RESERVE) * predicted);
    }
    for (let f = 0; f < frames; f++) this.runFrame(frames - 1 - f);
    for (const [body, prediction] of this.predictions) this.endCoasting(body, prediction);
    this.predictionStats.mostStepsInUpdate = Math.max(this.predictionStats.mostStepsInUpdate, budgetAtStart - this.budget);
    this.characters.show(now - INTERPOLATION_DELAY_MS);
    for (const body of this.bodies.values()) {
      if (body.predicting) body.displayQ.set(body.body.q);
      else this.interpolate(body, now - INTERPOLATION_DELAY_MS);
      const offset = this.shownOffsets.get(body);
      if (!offset) continue;
      const fade = Math.exp(-elapsed / offset.fadeMs);
      let largest = 0;
      for (let i = 0; i < offset.q.length; i++) {
        offset.q[i] *= fade;
        body.displayQ[i] += offset.q[i];
        largest = Math.max(largest, Math.abs(offset.q[i]));
      }
      if (largest < 1e-6) this.shownOffsets.delete(body);
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

  /**
   * Resolves once the room's state is in (it follows the room's handshake at once). No clock: on a slow page a timer
   * can fire before the message that has long arrived is read; a room that closes fails it.
   */
  private waitForState(): Promise<void> {
    return new Promise((resolve, reject) => {
      const left = (code: number) => reject(new Error(`the room closed before its state arrived (code ${code})`));
      const check = () => {
        const state = this.room.state;
        if (!state?.bodies || state.bodies.size === 0) return;
        this.room.onStateChange.remove(check);
        this.room.onLeave.remove(left);
        resolve();
      };
      this.room.onLeave(left);
      this.room.onStateChange(check);
      check();
    });
  }

  /** Calls `listener` whenever a body joins or leaves; returns the unsubscribe. */
  subscribeBodies = (listener: () => void): (() => void) => {
    this.bodyListeners.add(listener);
    return () => this.bodyListeners.delete(listener);
  };

  /** Builds the bodies the room has and this client lacks, and drops those the room no longer has. */
  private syncBodies(): void {
    if (this.closed) return;
    const state = this.room.state;
    if (!state?.bodies) return;
    const now = Date.now();
    for (const info of state.bodies.values()) {
      if (this.bodies.has(info.id) || this.arriving.has(info.id) || (this.retryAt.get(info.id) ?? 0) > now) continue;
      void this.addBody({ ...info });
    }
    for (const body of [...this.bodies.values()]) if (!state.bodies.has(body.id)) this.removeBody(body);
  }

  private async addBody(info: BodyInfo): Promise<void> {
    this.arriving.add(info.id);
    let baked: BakedBody;
    try {
      baked = decodeBakedBody(await this.fetchBake(info.bake));
    } catch {
      // Tried again after a while (a state change or the timer, whichever comes later).
      this.arriving.delete(info.id);
      this.retryAt.set(info.id, Date.now() + BAKE_RETRY_MS);
      setTimeout(() => this.syncBodies(), BAKE_RETRY_MS);
      return;
    }
    this.arriving.delete(info.id);
    this.retryAt.delete(info.id);
    const now = this.room.state?.bodies?.get(info.id);
    if (this.closed || !now || now.bake !== info.bake || this.bodies.has(info.id)) return;
    const entry = this.clientBody(info, baked);
    this.scene.addEntity(entry.entity);
    this.bodies.set(info.id, entry);
    this.byIndex[info.index] = entry;
    this.growScratch(entry.body.n);
    const early = this.unknownStates.get(info.index);
    this.unknownStates.delete(info.index);
    if (early && early.q.length === entry.body.n) {
      entry.snapshots.push({ at: Date.now(), tick: early.tick, q: early.q });
      this.scene.setBodyState(entry.entity, early.q, early.tick);
    }
    this.bodiesChanged();
  }

  /** A body left the room: this client's grabs on it end, its prediction stops, and it leaves the scene. */
  private removeBody(body: ClientBody): void {
    for (const [hand, held] of [...this.held]) if (held.body === body) this.releaseLocal(hand);
    this.stopPredicting(body);
    this.predictions.delete(body);
    this.shownOffsets.delete(body);
    this.scene.removeEntity(body.entity);
    this.bodies.delete(body.id);
    if (this.byIndex[body.index] === body) delete this.byIndex[body.index];
    this.unknownStates.delete(body.index);
    this.bodiesChanged();
  }

  private bodiesChanged(): void {
    this.bodiesVersion++;
    for (const listener of this.bodyListeners) listener();
  }

  private growScratch(n: number): void {
    if (this.vScratch.length >= n) return;
    this.vScratch = new Float64Array(n);
    this.qScratch = new Float64Array(n);
    this.dqScratch = new Float64Array(n);
    this.dvScratch = new Float64Array(n);
  }

  /** A body as the server builds it, placed at the spawn the room announces. */
  private clientBody(info: BodyInfo, baked: BakedBody): ClientBody {
    const material = isMaterialName(info.material) ? info.material : "jelly";
    const entity = new SoftEntity(info.id, baked, info.size, MATERIALS[material], [info.spawnX, info.spawnY, info.spawnZ], "origin");
    const body = entity.body;
    body.releasesFolds = false; // the server's snapshots bring a released fold (SoftBody.releasesFolds)
    return {
      id: info.id, index: info.index, baked, entity, body, snapshots: [], displayQ: new Float64Array(body.n), predicting: false, lastReconcileError: NaN, reconciles: 0, lastCorrection: NaN, material,
    };
  }

  private async buildBodies(fetchBake: (hash: string) => Promise<Uint8Array>, layout: SceneLayout): Promise<void> {
    const state = this.room.state;
    const entities: SoftEntity[] = [];
    for (const info of [...state.bodies.values()].sort((a, b) => a.index - b.index)) {
      const entry = this.clientBody(info, decodeBakedBody(await fetchBake(info.bake)));
      entities.push(entry.entity);
      this.bodies.set(info.id, entry);
      this.byIndex[info.index] = entry;
    }
    const props = [...(state.props?.values() ?? [])].map((p) => ({ index: p.index, shape: p.shape === "ball" ? ("ball" as const) : ("block" as const), size: p.size }));
    this.scene = new PredictedScene(layout, props, entities, HANDS.length);
    this.growScratch(Math.max(...entities.map((e) => e.body.n)));
  }

  private applySnapshot(bytes: Uint8Array): void {
    let snapshot: DecodedSnapshot;
    try {
      snapshot = decodeSnapshot(bytes);
    } catch {
      return; // a damaged snapshot is skipped; the next one carries the state again
    }
    const now = Date.now();
    const arrivals = this.snapshotArrivals;
    const newest = !arrivals.length || snapshot.tick > arrivals[arrivals.length - 1].tick;
    if (newest) arrivals.push({ at: now, tick: snapshot.tick });
    for (const grab of snapshot.grabs) this.grabTargets.set(grab.slot, grab.target);
    if (newest) this.scene.snapshotArrived();
    for (const prop of snapshot.props) {
      const pose = this.props.get(prop.index) ?? new Float64Array(7);
      pose.set(prop.position, 0);
      pose.set(prop.quaternion, 3);
      this.props.set(prop.index, pose);
      this.scene.setPropPose(prop.index, pose, snapshot.tick);
    }
    for (const avatar of snapshot.avatars) this.avatars.set(avatar.slot, { mask: avatar.mask, poses: avatar.poses });
    this.syncMaterials();
    for (const body of this.bodies.values()) if (body.predicting) this.syncReplicas(body);
    const ack = this.lastAck && this.lastAck.tick === snapshot.tick ? this.lastAck : null;
    for (const entry of snapshot.characters) this.characters.pose(entry, snapshot.tick, now);
    for (const state of snapshot.bodies) {
      if (this.characters.owns(state.index)) {
        this.characters.soft(state.index, snapshot.tick, state.q, now);
        continue;
      }
      const body = this.byIndex[state.index];
      if (!body) {
        const early = this.unknownStates.get(state.index);
        if (early) {
          early.tick = snapshot.tick;
          early.q = state.q;
        } else this.unknownStates.set(state.index, { tick: snapshot.tick, q: state.q });
        continue;
      }
      if (state.q.length !== body.body.n) continue;
      body.snapshots.push({ at: now, tick: snapshot.tick, q: state.q });
      if (body.snapshots.length > 8) body.snapshots.shift();
      // A body known only from snapshots meets predicted bodies where the server has it.
      this.scene.setBodyState(body.entity, state.q, snapshot.tick);
      // Reconciled in the next update(), within its budget; a newer state replaces one not reconciled yet.
      const prediction = this.predictions.get(body);
      if (prediction) prediction.pending = { tick: snapshot.tick, q: state.q, frame: ack ? ack.seq : null };
    }
  }

  /** A player or an admin changed a body's material: predict with the new one. */
  private syncMaterials(): void {
    const states = this.room.state?.bodies;
    for (const body of this.bodies.values()) {
      const material = states?.get(body.id)?.material;
      if (!material || material === body.material || !isMaterialName(material)) continue;
      body.material = material;
      body.entity.setMaterial(MATERIALS[material]);
    }
  }

  private predictedCount(): number {
    return this.predictions.size;
  }

  private startPredicting(body: ClientBody): Prediction {
    const existing = this.predictions.get(body);
    if (existing) {
      existing.freeFrames = -1;
      return existing;
    }
    // Start from the latest server state, moving as the last two snapshots did; the shown state fades over.
    const s = body.snapshots;
    const velocity = new Float64Array(body.body.n);
    if (s.length >= 2) {
      const a = s[s.length - 2], b = s[s.length - 1], dt = Math.max((b.tick - a.tick) * DT, DT);
      for (let i = 0; i < velocity.length; i++) velocity[i] = (b.q[i] - a.q[i]) / dt;
    }
    body.body.setState(s.length ? s[s.length - 1].q : body.displayQ, velocity);
    body.entity.updateProxies();
    this.scene.setPredicted(body.entity, true);
    this.addShownOffset(body, body.displayQ, body.body.q, HANDOVER_FADE_MS);
    body.predicting = true;
    const prediction: Prediction = {
      history: [], spare: [], pending: null, baseTick: -1, deferred: 0, ghosts: new Map(), freeFrames: -1, slowFrames: 0, coasting: false, coastQ: new Float64Array(body.body.n),
    };
    this.predictions.set(body, prediction);
    this.syncReplicas(body);
    return prediction;
  }

  /** Back to snapshots: the body is shown interpolated again, fading over from the prediction. */
  private stopPredicting(body: ClientBody): void {
    const prediction = this.predictions.get(body);
    if (!prediction) return;
    this.endCoasting(body, prediction);
    for (const [key, replica] of this.replicas) {
      if (replica.body !== body) continue;
      body.body.release(replica.grab);
      this.replicas.delete(key);
      // Told again (grab-held) when this client next takes hold of the body.
      this.heldMaterial.delete(key);
    }
    for (const ghost of prediction.ghosts.values()) this.deactivate(ghost);
    this.predictions.delete(body);
    body.predicting = false;
    const shown = Float64Array.from(body.body.q);
    const offset = this.shownOffsets.get(body);
    if (offset) for (let i = 0; i < shown.length; i++) shown[i] += offset.q[i];
    this.interpolate(body, Date.now() - INTERPOLATION_DELAY_MS);
    this.shownOffsets.delete(body);
    this.addShownOffset(body, shown, body.displayQ, HANDOVER_FADE_MS);
    this.scene.setPredicted(body.entity, false);
  }

  /** Shows `from` instead of `to` now, fading towards `to` (adds to a fade under way). */
  private addShownOffset(body: ClientBody, from: Float64Array, to: Float64Array, fadeMs: number): void {
    const offset = this.shownOffsets.get(body) ?? { q: new Float64Array(body.body.n), fadeMs };
    offset.fadeMs = Math.max(fadeMs, this.shownOffsets.has(body) ? offset.fadeMs : 0);
    let largest = 0;
    for (let i = 0; i < offset.q.length; i++) {
      offset.q[i] += from[i] - to[i];
      largest = Math.max(largest, Math.abs(offset.q[i]));
    }
    if (largest > 1e-6) this.shownOffsets.set(body, offset);
  }

  /** Mirrors other people's grabs on a predicted body: created where their hand is now, moved with it, dropped when they let go. */
  private syncReplicas(body: ClientBody): void {
    const grabs = this.room.state?.grabs;
    if (!grabs) return;
    for (const [key, replica] of this.replicas) {
      const state = grabs.get(key);
      if (replica.body === body && (!state || state.body !== body.id)) {
        body.body.release(replica.grab);
        this.replicas.delete(key);
        this.heldMaterial.delete(key);
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
      const material = this.heldMaterial.get(key);
      const exact = material?.body === body.id;
      try {
        // The server's material when it has said (grab-held); until then the samples nearest the hand, which settle a
        // little off where the server's do, and snapshots correct the difference.
        const grab = exact
          ? body.body.grabExactly(material.samples, material.offsets, target[0], target[1], target[2])
          : body.body.grab(target[0], target[1], target[2], { radius: grabRadius(body.entity.size) });
        if (grab >= 0) this.replicas.set(key, { body, grab, slot: state.slot, exact });
      } catch {
        // The solver's grab slots are full (or the samples do not fit the body): the server's corrections carry this pull.
      }
    }
  }

  /**
   * One 60 Hz frame: this frame's grab inputs (applied locally and sent with its number), then the predicted
   * bodies. `later` frames of this update() follow it: a body steps only in the frames its share of the budget
   * covers (the last ones), and coasts before them.
   */
  private runFrame(later: number): void {
    const seq = ++this.frame;
    for (const input of this.queued.splice(0)) {
      if (input.kind === "start" && this.characters.all.has(input.body)) {
        // A character: only the server moves it, so the hand's target is all there is to send.
        this.releaseLocal(input.hand);
        this.heldCharacters.set(input.hand, input.body);
        this.targets.set(input.hand, input.point);
        this.send(false, MESSAGES.grabStart, { hand: input.hand, body: input.body, point: input.point, seq: seq % SEQ_MODULUS });
      } else if (input.kind === "start") {
        const body = this.bodies.get(input.body)!;
        this.releaseLocal(input.hand);
        const prediction = this.startPredicting(body);
        this.endCoasting(body, prediction);
        let grab = -1;
        try {
          grab = body.body.grab(input.point[0], input.point[1], input.point[2], { radius: grabRadius(body.entity.size) });
        } catch {
          // No free grab slot in the solver: the server's state will show the grab.
        }
        if (grab >= 0) {
          const { samples, offsets } = body.body.grabbedSamples(grab);
          this.held.set(input.hand, { hand: input.hand, serial: ++this.grabSerial, body, grab, point: input.point, samples, offsets, exact: false, recent: [], ending: false });
        }
        this.targets.set(input.hand, input.point);
        this.send(false, MESSAGES.grabStart, { hand: input.hand, body: input.body, point: input.point, seq: seq % SEQ_MODULUS });
      } else {
        this.releaseLocal(input.hand);
        this.send(false, MESSAGES.grabEnd, { hand: input.hand, seq: seq % SEQ_MODULUS });
      }
    }
    for (const hand of this.heldCharacters.keys()) {
      const target = this.targets.get(hand);
      if (target) this.send(true, MESSAGES.grabMove, { hand, target: [target[0], target[1], target[2]], seq: seq % SEQ_MODULUS, earlier: [] });
    }
    for (const [hand, held] of this.held) {
      const target = this.targets.get(hand);
      if (!target) continue;
      this.limitTarget(held.body, target);
      if (held.grab >= 0) {
        held.body.body.moveGrab(held.grab, target[0], target[1], target[2]);
        // A target further from the material than the server lets a grab stretch (a flick) would throw the body
        // in the step before the server's slip check let go: the hand lets go now instead, and the body keeps the
        // velocity the hand gave it.
        if (held.body.body.grabStretch(held.grab) > grabSlipLimit(held.body.entity.size)) {
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
    // Fingertips not refreshed for a while end, as on the server.
    HANDS.forEach((_, slot) => {
      if (this.pokeFrames[slot] >= 0 && seq - this.pokeFrames[slot] > LIMITS.silentHoldSeconds * TICK_RATE) {
        this.scene.setPoke(slot, 0, 0, 0, 0);
        this.pokeFrames[slot] = -1;
      }
    });
    const share = Math.floor(this.budget / Math.max(1, this.predictedCount()));
    for (const [body, prediction] of [...this.predictions]) this.predictFrame(body, prediction, seq, later < share && this.budget > 0);
  }

  /** Keeps a target where the server accepts it: within LIMITS.grabStretch of the body's bounding sphere. */
  private limitTarget(body: ClientBody, target: [number, number, number]): void {
    const bound = body.entity.proxies.bound, limit = TARGET_MARGIN * (LIMITS.grabStretch + bound[3]);
    const dx = target[0] - bound[0], dy = target[1] - bound[1], dz = target[2] - bound[2], d = Math.hypot(dx, dy, dz);
    if (!(d > limit)) return;
    target[0] = bound[0] + (dx * limit) / d; target[1] = bound[1] + (dy * limit) / d; target[2] = bound[2] + (dz * limit) / d;
  }

  /** A client-side grab ends: the solver lets go, history keeps it (a replay of earlier frames still holds it). */
  private releaseLocal(hand: Hand): void {
    const held = this.held.get(hand);
    this.targets.delete(hand);
    this.heldCharacters.delete(hand);
    if (!held) return;
    this.held.delete(hand);
    const prediction = this.predictions.get(held.body);
    this.deactivate(held);
    if (prediction) {
      prediction.ghosts.set(held.serial, held);
      if (![...this.held.values()].some((h) => h.body === held.body)) {
        prediction.freeFrames = 0;
        prediction.slowFrames = 0;
      }
    }
  }

  /** Takes an own grab out of the solver, keeping what recreates it. */
  private deactivate(own: OwnGrab): void {
    if (own.grab < 0) return;
    own.body.body.release(own.grab);
    own.grab = -1;
  }

  private activate(own: OwnGrab, x: number, y: number, z: number): void {
    if (own.grab >= 0) {
      own.body.body.moveGrab(own.grab, x, y, z);
      return;
    }
    try {
      own.grab = own.body.body.grabExactly(own.samples, own.offsets, x, y, z);
    } catch {
      own.grab = -1; // no free slot: replayed without it
    }
  }

  private takeEntry(prediction: Prediction, n: number): HistoryEntry {
    if (prediction.history.length >= HISTORY) return prediction.history.shift()!;
    return prediction.spare.pop() ?? { seq: 0, tick: NaN, q: new Float64Array(n), v: new Float64Array(n), serials: new Int32Array(HANDS.length), targets: new Float64Array(3 * HANDS.length) };
  }

  private predictFrame(body: ClientBody, prediction: Prediction, seq: number, step: boolean): void {
    const solver = body.body, n = solver.n;
    const history = prediction.history;
    const last = history.length ? history[history.length - 1] : null;
    const tick = last ? last.tick + 1 : NaN;
    if (step) {
      this.endCoasting(body, prediction);
      this.scene.prepare(body.entity, tick);
      body.entity.step();
      this.scene.pushProps(body.entity);
      this.budget--;
      this.predictionStats.steps++;
      // The server lets a grab slip when it pulls too hard: so does the prediction, in the same step.
      const limit = grabSlipLimit(body.entity.size);
      for (const held of this.held.values()) {
        if (held.body !== body || held.grab < 0 || held.ending || !(solver.grabStretch(held.grab) > limit)) continue;
        held.ending = true;
        this.predictionStats.predictedSlips++;
        this.queued.push({ kind: "end", hand: held.hand });
      }
    } else {
      // Over budget: carried forward on its velocity, into the solver before its next step.
      if (!prediction.coasting) {
        prediction.coastQ.set(solver.q);
        prediction.coasting = true;
      }
      for (let i = 0; i < n; i++) prediction.coastQ[i] += DT * solver.velocity[i];
      this.predictionStats.coasted++;
    }
    const entry = this.takeEntry(prediction, n);
    entry.seq = seq;
    entry.tick = tick;
    entry.q.set(prediction.coasting ? prediction.coastQ : solver.q);
    entry.v.set(solver.velocity);
    entry.serials.fill(-1);
    entry.targets.fill(NaN);
    HANDS.forEach((hand, k) => {
      const held = this.held.get(hand), target = this.targets.get(hand);
      if (!held || held.body !== body || !target) return;
      entry.serials[k] = held.serial;
      entry.targets.set(target, 3 * k);
    });
    history.push(entry);
    // A body no longer held is predicted on until it settles (or for FREE_FRAMES), then shown from snapshots.
    if (prediction.freeFrames >= 0) {
      prediction.freeFrames++;
      prediction.slowFrames = solver.rmsSpeed() < SETTLED_SPEED ? prediction.slowFrames + 1 : 0;
      if (prediction.slowFrames >= SETTLED_FRAMES || prediction.freeFrames >= FREE_FRAMES) this.stopPredicting(body);
    }
  }

  private endCoasting(body: ClientBody, prediction: Prediction): void {
    if (!prediction.coasting) return;
    prediction.coasting = false;
    body.body.setState(prediction.coastQ, body.body.velocity);
    body.entity.updateProxies();
  }

  /**
   * Rolls the prediction back to the latest server state and replays the frames since (or, when that does not
   * fit in the budget beside `reserve` steps, shifts them by the correction).
   */
  private reconcile(body: ClientBody, prediction: Prediction, reserve: number): void {
    const pending = prediction.pending!;
    prediction.pending = null;
    const history = prediction.history;
    if (history.length === 0) return;
    const first = history[0].seq, newest = history.length - 1;
    const tick = pending.tick, serverQ = pending.q;
    let byTick = -1;
    for (let i = newest; i >= 0; i--) if (history[i].tick === tick) { byTick = i; break; }
    // The server state follows the acknowledged frame. Without an acknowledgement (lost, or none sent since this
    // client holds nothing), a body free of own grabs goes by the tick alone.
    const ownGrabs = [...this.held.values()].some((h) => h.body === body);
    const base = pending.frame !== null ? pending.frame - first : ownGrabs ? -1 : byTick;
    if (base < 0 || base > newest) return; // before this prediction started, or already forgotten
    // The error: the server's state against the prediction of the same frame (the acknowledged one).
    const compare = base;
    if (compare >= 0) {
      body.lastReconcileError = this.surfaceDistance(body, serverQ, history[compare].q);
      body.reconciles++;
    }
    this.endCoasting(body, prediction);
    const solver = body.body, n = solver.n, baseEntry = history[base];
    // Velocity: the prediction's, corrected by the error over the time since the last reset when the server has
    // kept to one frame per tick since (the tick and the acknowledged frame agree): what the server really did
    // includes its velocity.
    const v = this.vScratch.subarray(0, n);
    v.set(baseEntry.v);
    const since = tick - prediction.baseTick;
    if (byTick === base && prediction.baseTick >= 0 && since >= 1 && since <= VELOCITY_CORRECTION_TICKS && body.lastReconcileError <= VELOCITY_CORRECTION_ERROR) {
      const gain = 1 / (since * DT);
      for (let i = 0; i < n; i++) v[i] += gain * (serverQ[i] - baseEntry.q[i]);
    }
    // Replay the frames since from the server's state when the budget allows; when it falls short by a little,
    // replay what it allows and shift the rest by the correction at the last frame replayed (exact for a rigid
    // translation; the next snapshot corrects the rest). Further short, keep the prediction (the next snapshot
    // comes soon, with the budget refilled), and after MAX_DEFERRED such snapshots in a row shift every frame by
    // the correction, leaving velocities as they are: it can move the body, never launch it.
    const replay = newest - base, available = Math.max(0, this.budget - reserve);
    let count = replay, shiftOnly = false;
    if (replay > available) {
      if (replay - available <= SHIFT_LIMIT) count = available;
      else if (prediction.deferred < MAX_DEFERRED) {
        prediction.deferred++;
        this.predictionStats.deferred++;
        this.onReconcile?.({ body: body.id, tick, frame: baseEntry.seq, error: body.lastReconcileError, correction: 0, frames: replay, replayed: false });
        return;
      } else {
        count = 0;
        shiftOnly = true;
      }
    }
    prediction.deferred = 0;
    prediction.baseTick = tick;
    const before = this.qScratch.subarray(0, n);
    before.set(solver.q);
    const dq = this.dqScratch.subarray(0, n), dv = this.dvScratch.subarray(0, n);
    if (shiftOnly) {
      for (let i = 0; i < n; i++) dq[i] = serverQ[i] - baseEntry.q[i];
      dv.fill(0);
    } else {
      const last = history[base + count];
      dq.set(last.q);
      dv.set(last.v);
      solver.setState(serverQ, v);
      body.entity.updateProxies();
      this.scene.resetPushes();
      baseEntry.q.set(solver.q);
      baseEntry.v.set(solver.velocity);
      baseEntry.tick = tick;
      this.replay(body, prediction, base, count);
      this.budget -= count;
      this.predictionStats.replayed += count;
      this.predictionStats.steps += count;
      for (let i = 0; i < n; i++) { dq[i] = last.q[i] - dq[i]; dv[i] = last.v[i] - dv[i]; }
    }
    if (count === replay) this.predictionStats.replays++;
    else {
      for (let k = shiftOnly ? base : base + count + 1; k <= newest; k++) {
        const entry = history[k];
        for (let i = 0; i < n; i++) { entry.q[i] += dq[i]; entry.v[i] += dv[i]; }
        entry.tick = tick + (k - base);
      }
      solver.setState(history[newest].q, history[newest].v);
      body.entity.updateProxies();
      this.predictionStats.shifts++;
    }
    // The state shown moves smoothly from the old prediction to the new one.
    body.lastCorrection = this.surfaceDistance(body, before, solver.q);
    this.onReconcile?.({ body: body.id, tick, frame: history[base].seq, error: body.lastReconcileError, correction: body.lastCorrection, frames: replay, replayed: count === replay });
    this.addShownOffset(body, before, solver.q, CORRECTION_FADE_MS);
    // Frames before the base are done with; ended grabs that no remaining frame holds are forgotten.
    for (const entry of history.splice(0, base)) prediction.spare.push(entry);
    for (const [serial, ghost] of prediction.ghosts) {
      if (!history.some((e) => e.serials.includes(serial))) prediction.ghosts.delete(serial);
      else this.deactivate(ghost);
    }
  }

  /** Replays `count` frames after history[base] from the state now in the solver, with the grabs each frame had. */
  private replay(body: ClientBody, prediction: Prediction, base: number, count: number): void {
    const history = prediction.history, solver = body.body;
    const own = [...[...this.held.values()].filter((h) => h.body === body), ...prediction.ghosts.values()];
    for (let k = base + 1; k <= base + count; k++) {
      const entry = history[k];
      for (const grab of own) {
        const slot = entry.serials.indexOf(grab.serial);
        if (slot < 0) this.deactivate(grab);
        else this.activate(grab, entry.targets[3 * slot], entry.targets[3 * slot + 1], entry.targets[3 * slot + 2]);
      }
      entry.tick = history[base].tick + (k - base);
      this.scene.prepare(body.entity, entry.tick);
      body.entity.step();
      this.scene.pushProps(body.entity);
      entry.q.set(solver.q);
      entry.v.set(solver.velocity);
    }
    // Back to now: the live grabs at their current targets, the ended ones out.
    for (const grab of own) {
      const target = this.targets.get(grab.hand);
      if (this.held.get(grab.hand) === grab && target) this.activate(grab, target[0], target[1], target[2]);
      else this.deactivate(grab);
    }
  }

  /** Largest distance between two states of a body over every 4th surface sample, m. */
  private surfaceDistance(body: ClientBody, a: Float64Array, b: Float64Array): number {
    const s = body.body.subspace, p = this.pointScratch, r = this.otherPointScratch;
    let worst = 0;
    for (let i = 0; i < s.surfaceCount; i += 4) {
      body.body.positionAt(a, s.surfaceRows, s.surfaceRest, i, p, 0);
      body.body.positionAt(b, s.surfaceRows, s.surfaceRest, i, r, 0);
      worst = Math.max(worst, Math.hypot(p[0] - r[0], p[1] - r[1], p[2] - r[2]));
    }
    return worst;
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

  /** The server's tick rate over the last snapshots as a share of TICK_RATE, when it is clearly slower (else 1). */
  private serverPace(now: number): number {
    const arrivals = this.snapshotArrivals;
    while (arrivals.length > 2 && now - arrivals[0].at > RATE_WINDOW_MS) arrivals.shift();
    if (arrivals.length < 2) return 1;
    const first = arrivals[0], last = arrivals[arrivals.length - 1];
    // Time since the last snapshot counts too: a server that stopped sending is not fast.
    const span = Math.max(last.at, now) - first.at;
    if (span < RATE_WINDOW_MS / 2) return 1;
    const pace = ((last.tick - first.tick) * 1000) / TICK_RATE / span;
    return pace >= RATE_FOLLOW_BELOW ? 1 : Math.max(0.25, pace);
  }

  /** Keeps the server's queue of this client's frames from growing (see QUEUE_WINDOW). */
  private onAck(wrapped: AckMessage): void {
    // Frames count on past 2^31 here (a double holds them for millennia); on the wire they wrap.
    const ack = { ...wrapped, seq: unwrapSeq(wrapped.seq, this.frame) };
    this.lastAck = ack;
    if (this.held.size === 0) {
      this.leads.length = 0;
      this.leastLead = Infinity;
      this.holdingSince = -1;
      return;
    }
    if (this.holdingSince < 0) this.holdingSince = this.frame;
    if (this.frame - this.holdingSince < QUEUE_SETTLE_FRAMES) return;
    // Each lead counts the skips decided since (frames skipped lower the queue from then on).
    const leads = this.leads;
    leads.push(this.frame - ack.seq - this.framesToSkip - this.lookahead);
    if (leads.length > QUEUE_WINDOW) leads.shift();
    if (leads.length < QUEUE_WINDOW) return;
    let least = Infinity;
    for (const lead of leads) least = Math.min(least, lead);
    this.leastLead = Math.min(this.leastLead, least);
    const excess = least - this.leastLead - QUEUE_SLACK;
    if (excess < 1) return;
    this.framesToSkip += excess;
    this.predictionStats.skippedFrames += excess;
    for (let i = 0; i < leads.length; i++) leads[i] -= excess;
  }

  /** Where grab `slot` (GrabState.slot) pulls now, as the latest snapshot says; undefined before any. */
  grabTarget(slot: number): readonly [number, number, number] | undefined {
    return this.grabTargets.get(slot);
  }

  /**
   * An upload ticket for POST /meshes (see uploadMesh), or the room's reason for none (spectators in a room that
   * does not let them play).
   */
  requestUploadTicket(timeoutMs = 10_000): Promise<UploadTicket> {
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (ticket: UploadTicket) => { clearTimeout(timer); resolve(ticket); },
        reject: (error: Error) => { clearTimeout(timer); reject(error); },
      };
      const timer = setTimeout(() => {
        const at = this.ticketWaiters.indexOf(waiter);
        if (at >= 0) this.ticketWaiters.splice(at, 1);
        reject(new Error("the room did not answer the upload-ticket request"));
      }, timeoutMs);
      this.ticketWaiters.push(waiter);
      this.room.send(MESSAGES.uploadTicket, {});
    });
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

  /** Another person's grab on a body this client holds: replicate it on the very material the server's grab holds. */
  private onGrabHeld(held: GrabHeldMessage): void {
    this.heldMaterial.set(held.key, held);
    const replica = this.replicas.get(held.key);
    if (!replica) return;
    // The replica made before this arrived holds the samples nearest the hand (or an earlier grab's): made again.
    replica.body.body.release(replica.grab);
    this.replicas.delete(held.key);
    if (replica.body.predicting) this.syncReplicas(replica.body);
  }

  private onGrabResult(result: GrabResultMessage): void {
    const resolve = this.pendingGrabs.get(result.hand);
    this.pendingGrabs.delete(result.hand);
    if (result.ok) {
      const held = this.held.get(result.hand), point = result.point;
      if (held && !held.exact && held.body.id === result.body && point && result.samples && result.offsets &&
        Math.hypot(point[0] - held.point[0], point[1] - held.point[1], point[2] - held.point[2]) <= 1e-6) {
        // From now on hold exactly the material the server holds.
        held.samples = result.samples;
        held.offsets = result.offsets;
        held.exact = true;
        if (held.grab >= 0) {
          const target = this.targets.get(result.hand) ?? held.point, solver = held.body.body;
          solver.release(held.grab);
          held.grab = solver.grabExactly(held.samples, held.offsets, target[0], target[1], target[2]);
        }
      }
    } else {
      if (!resolve) this.onGrabEnded?.(result);
      if (this.heldCharacters.get(result.hand) === result.body) this.releaseLocal(result.hand);
      // Refused, or ended by the server (slipped, or the body was put back): every snapshot from now on is after
      // that, so no frame may replay this grab's pull again.
      const held = this.held.get(result.hand);
      if (held && held.body.id === result.body) {
        this.releaseLocal(result.hand);
        const prediction = this.predictions.get(held.body);
        prediction?.ghosts.delete(held.serial);
        for (const entry of prediction?.history ?? []) {
          const slot = entry.serials.indexOf(held.serial);
          if (slot >= 0) entry.serials[slot] = -1;
        }
      }
    }
    resolve?.(result);
  }
}

/** Attempts at a bake's GET that the connection failed (not the server's answer) before giving up. */
const BAKE_FETCH_ATTEMPTS = 3;

/**
 * GET /bakes/HASH. A connection that fails under the request is tried again on a fresh one: Node's fetch reuses
 * idle keep-alive sockets, and one the server has just closed answers ECONNRESET (a test's client joining a busy
 * server hit it every time); a bake is immutable, so asking again is safe. An HTTP error is the server's answer.
 */
async function fetchBakeFrom(http: string, hash: string): Promise<Uint8Array> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${http}/bakes/${hash}`);
      if (response.ok) return new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      if (attempt >= BAKE_FETCH_ATTEMPTS) throw error;
      continue;
    }
    throw new Error(`bake ${hash}: HTTP ${response.status}`);
  }
}
