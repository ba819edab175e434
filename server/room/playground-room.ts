// The playground room: the authoritative world at a fixed 60 Hz. Every client message is validated and
// rate-limited before it touches the world; the world's fast state leaves as binary snapshots at 20 Hz.

import { CloseCode, ErrorCode, Room, ServerError, type Client, type Deferred } from "@colyseus/core";
import { loadRapier, SceneWorld } from "../../shared/scene";
import {
  BodyState, CharacterState, SEAT_RESERVATION_SECONDS, UPLOAD_LIMITS, EMPTY_SNAPSHOT_BYTES, KICK_CLOSE_CODE, LIMITS, MAX_PLAYERS, MAX_SPECTATORS, MESSAGES, PlayerState, PropState, RoomState, SnapshotWriter, TICK_RATE, TICKS_PER_SNAPSHOT,
  parseAdmin, parseGrabEnd, parseGrabMove, parseGrabStart, parseJoinOptions, parseKeepalive, parsePoke, parsePose, parseResetTable, parseSetMaterial, parseUploadTicket, snapshotCapacity,
  type AckMessage, type AdminMessage, type GrabResultMessage, type Hand, type NoticeMessage, type Parsed, type UploadTicketMessage,
} from "../../shared/net";
import { SimParameterError } from "../../shared/sim";
import { adminTokenMatches } from "../admin-token";
import { PUBLIC_ROOM_OPTION, remakePublicRoom } from "../matchmaking/public-room";
import { placeBodies } from "../world/playground-bodies";
import { bakeCharacters } from "../world/playground-characters";
import { RoomCharacter } from "./room-character";
import { createSecondaryNetwork, readSecondaryModel, secondaryModelName } from "../characters/secondary-model";
import { issueUploadTicket } from "../uploads/upload-tickets";
import { ADMIN_OWNER, SnapshotIndices } from "./added-bodies";
import { RoomUploads, type RoomBody, type UploadsHost } from "./room-uploads";
import { characterFields, playgroundConfig, roomFields } from "./playground-config";
import { throttledLog } from "../logging/throttled-log";
import { frameRefusal, isHandshakeFrame, isPingFrame } from "./room-frames";
import { RateLimiter } from "./rate-limiter";
import { LATENCY_PROBE_INTERVAL_MS, LatencyProbe } from "./latency-probe";
import { AttractWobble, BOUNCE_SQUASH_RATE, BOUNCE_UP_SPEED } from "./attract-wobble";
import { TableResetPolicy } from "./table-reset";
import { uniqueColour } from "./player-colours";
import { SnapshotEncoder } from "./snapshot-encoder";
import { RoomPokes } from "./room-pokes";
import { InputQueue, type GrabInput } from "./input-queue";
import { RoomGrabs } from "./room-grabs";
import { RoomTable } from "./room-table";

/** A server failure on one kind of message is logged at most this often (ms), with a count of the ones held back. */
const SERVER_FAULT_LOG_MS = 60_000;
/**
 * Per send, how much of the costliest recent send its expected cost keeps; and the most a send may take from the
 * soft bodies' budget (ms), so that a one-off hiccup (a GC pause) cannot starve them.
 */
const SEND_COST_DECAY = 0.5;
const MAX_SEND_RESERVE_MS = 3;
/**
 * Reservations the room takes beyond its players and spectators: they are not seats until their socket opens
 * (onJoin counts players and spectators), so reservations that never connect cannot fill the room.
 */
const PENDING_RESERVATIONS = 64;
/** Milliseconds a kicked client's socket is given to finish closing before it is cut (a flooder need not answer). */
const KICKED_SOCKET_GRACE_MS = 1000;

/**
 * A client holding a grab sends a move every frame, and a keepalive from a timer between slow frames; one silent
 * this many ticks (a frozen page, a headset gone to sleep with its socket open) lets go, so the body is not held for
 * nobody.
 */
const SILENT_GRAB_TICKS = LIMITS.silentHoldSeconds * TICK_RATE;
/** What a silent client is told when its grabs end. */
export const SILENT_LET_GO_REASON = `nothing was heard from you for ${LIMITS.silentHoldSeconds} s, so it was let go`;


interface Seat {
  client: Client;
  role: "player" | "spectator";
  slot: number;
  limiter: RateLimiter;
  /** Grab starts, limited apart: each one patches the shared state. */
  grabStarts: RateLimiter;
  /** Upload tickets asked for (each is a presence key until it expires). */
  tickets: RateLimiter;
  lastNoticeAt: number;
  /** When this client was last told that the table cannot be reset yet (ms). */
  resetRefusedAt: number;
  admin: boolean;
  /** head, left, right poses (7 each) and which are present. */
  poses: Float64Array;
  poseMask: number;
  poseDirty: boolean;
  /** Its grab inputs, applied one frame (seq) per tick, and what was applied last (its ack). */
  inputs: InputQueue;
  /** Being kicked: its remaining messages are ignored. */
  kicked: boolean;
  /** A stand's big screen: while one watches, an idle room's bodies bounce now and then (attract-wobble.ts). */
  kiosk: boolean;
  /** Its connection's round-trip time (for the admin page); undefined for a connection that cannot be pinged. */
  latency: LatencyProbe | undefined;
  /** Grabs it holds now. */
  holding: number;
  /** World tick of its last message. */
  lastHeard: number;
  /** World tick of the last ping it sent over its budget that was still answered (one a second at most). */
  overBudgetPingTick: number;
  /** Its connection dropped: in which order (the room's count of drops), and the reconnection its seat waits for. */
  awaiting?: { order: number; reconnection: Deferred<Client> };
}

export interface TickStats {
  /** Milliseconds of the last ticks (ring buffer, newest at `cursor - 1`). */
  durations: Float64Array;
  cursor: number;
  count: number;
  overruns: number;
  /** Snapshot bytes sent, times the clients each went to. */
  snapshotBytes: number;
}

export class PlaygroundRoom extends Room {
  override maxClients = MAX_PLAYERS + MAX_SPECTATORS + PENDING_RESERVATIONS;
  override seatReservationTimeout = SEAT_RESERVATION_SECONDS;
  // Hard backstop; the token bucket below drops (and later kicks) well before this.
  override maxMessagesPerSecond = 2000;
  override state = new RoomState();

  private readonly logRefusal = throttledLog(playgroundConfig().log);
  /** The server's own failures on a message, per message type: a bug hit 60 times a second is one line a minute. */
  private readonly serverFaults = throttledLog(playgroundConfig().log, SERVER_FAULT_LOG_MS);
  private world!: SceneWorld;
  private placed: RoomBody[] = [];
  private characters: RoomCharacter[] = [];
  private readonly added = new RoomUploads(this.uploadsHost());
  private readonly snapshotIndices = new SnapshotIndices();
  private disposed = false;
  /** Connections dropped so far: orders the seats waiting for theirs. */
  private drops = 0;
  /** The server's own room, which everyone joins (public-room.ts). */
  private isPublic = false;
  /** A tick threw: the room is closing (tickOrClose). */
  private failed = false;
  private seats = new Map<string, Seat>();
  private readonly grabs = new RoomGrabs({
    state: this.state, seat: (sessionId) => this.seats.get(sessionId), characters: () => this.characters, body: (id) => this.placedById(id),
    clientsFault: (type, error) => this.clientsFault(type, error),
  });
  private pokes!: RoomPokes;
  private snapshots!: SnapshotEncoder;
  private ticks = 0;
  private tableReset!: TableResetPolicy;
  private attractWobble!: AttractWobble;
  /** Materials and resets. */
  private table!: RoomTable;
  /** What sending acks and a snapshot costs (ms): the recent sends' decaying maximum. */
  private sendMs = 0;
  readonly stats: TickStats = { durations: new Float64Array(4096), cursor: 0, count: 0, overruns: 0, snapshotBytes: 0 };

  override async onCreate(options: Record<string, unknown> = {}): Promise<void> {
    // The server's public room stays when its last client leaves: nobody else may make one. Any other room (an
    // admin's, a test's, a benchmark's) is private: joining by name never lands there, only joining by id.
    const isPublic = (this.isPublic = options[PUBLIC_ROOM_OPTION] === true);
    // Colyseus arms an empty room's auto-dispose (the seat reservation's time) before onCreate. A creation slower than
    // that (bakes on a busy machine) was disposed half-made, and the rest of onCreate then started a tick that
    // nothing stopped, on a freed world: no auto-dispose until the room exists.
    this.autoDispose = false;
    if (!isPublic) await this.setPrivate(true);
    const config = playgroundConfig();
    const fields = await roomFields();
    const rapier = await loadRapier();
    this.throwIfDisposed();
    const layoutBodies = await placeBodies(config.layout.bodies, fields.provider, fields.providerKey, config.fitCubature);
    this.throwIfDisposed();
    this.world = new SceneWorld(rapier, config.layout, layoutBodies.map((p) => p.entity), 1 / TICK_RATE);
    for (const p of layoutBodies) this.enter({ ...p, slot: this.snapshotIndices.next(this.usedSlots()), owner: "", since: 0, leaving: false }, p.spec.id, p.spec.texture ? `/textures/${p.spec.texture}.png` : "");
    const characterChoice = await characterFields();
    for (const { spec, bake, texture } of await bakeCharacters(config.layout.characters ?? [], characterChoice.provider, characterChoice.providerKey, config.fitCubature)) {
      const character = new RoomCharacter(spec.id, this.snapshotIndices.next(this.usedSlots()), spec, bake.body, this.world.sceneObstacles(), 1 / TICK_RATE);
      this.characters.push(character);
      this.state.characters.set(spec.id, new CharacterState({
        id: spec.id, index: character.index, mesh: spec.mesh, bake: bake.hash, size: spec.size, texture,
        clips: character.character.rig.clips.map((c) => c.name).join(","), mode: character.mode, credit: spec.credit,
      }));
      if (config.learnedFlesh) await this.attachNetwork(character, spec.mesh);
      this.throwIfDisposed();
    }
    config.layout.props.forEach((spec, index) => {
      this.state.props.set(spec.id, new PropState({ id: spec.id, index, shape: spec.shape, size: spec.size, color: spec.color }));
    });
    this.pokes = new RoomPokes(this.world);
    this.tableReset = new TableResetPolicy(TICK_RATE, config.idleResetMinutes);
    this.table = new RoomTable({
      state: this.state, world: this.world, bodies: this.placed, policy: this.tableReset,
      releaseEverything: () => {
        this.grabs.releaseWhere(() => true);
        this.pokes.endAll();
      },
      broadcast: (notice) => this.broadcast(MESSAGES.notice, notice),
      log: (line) => playgroundConfig().log(`room ${this.roomId}: ${line}`),
    });
    this.attractWobble = new AttractWobble(TICK_RATE, config.attractWobbleSeconds);
    this.state.idleResetMinutes = config.idleResetMinutes;
    // Room for as many bodies as a room may hold, with as many coordinates as the largest of them could have.
    const qLength = Math.max(0, ...this.placed.map((p) => p.entity.body.n), ...this.characters.map((c) => c.character.body.n));
    // Leaving bodies stay for a moment beside those that replaced them: room for twice the limit.
    const writer = new SnapshotWriter(snapshotCapacity(Math.max(this.placed.length, 2 * UPLOAD_LIMITS.softBodies) + this.characters.length, qLength, config.layout.props.length, MAX_PLAYERS + MAX_SPECTATORS, 256, this.characters.length));
    this.snapshots = new SnapshotEncoder(writer, config.layout.props.length, { world: this.world, bodies: this.placed, characters: this.characters, avatars: this.seats, grabs: this.grabs.onBodies });
    for (const body of this.placed) this.snapshots.bodyEntered(body);

    this.onMessage(MESSAGES.pose, (client, message) => this.guard(client, MESSAGES.pose, parsePose(message), (pose) => {
      const seat = this.seats.get(client.sessionId)!;
      seat.poses.set(pose.head, 0);
      seat.poseMask = 1;
      if (pose.left) { seat.poses.set(pose.left, 7); seat.poseMask |= 2; }
      if (pose.right) { seat.poses.set(pose.right, 14); seat.poseMask |= 4; }
      seat.poseDirty = true;
      return null;
    }));
    this.onMessage(MESSAGES.grabStart, (client, message) =>
      this.guard(client, MESSAGES.grabStart, parseGrabStart(message, (id) => this.state.bodies.has(id) || this.state.characters.has(id)), (grab) => {
        if (this.seats.get(client.sessionId)!.grabStarts.take()) return this.queueInput(client, { kind: "start", message: grab, arrived: this.world.tick });
        const reason = `over ${LIMITS.grabStartsPerSecond} grab starts a second`;
        client.send(MESSAGES.grabResult, { hand: grab.hand, body: grab.body, ok: false, reason } satisfies GrabResultMessage);
        return reason;
      }));
    this.onMessage(MESSAGES.grabMove, (client, message) =>
      this.guard(client, MESSAGES.grabMove, parseGrabMove(message), (move) => this.queueInput(client, { kind: "move", message: move, arrived: this.world.tick })));
    this.onMessage(MESSAGES.grabEnd, (client, message) =>
      this.guard(client, MESSAGES.grabEnd, parseGrabEnd(message), (end) => this.queueInput(client, { kind: "end", message: end, arrived: this.world.tick })));
    this.onMessage(MESSAGES.poke, (client, message) => this.guard(client, MESSAGES.poke, parsePoke(message), (poke) => this.poke(client, poke.hand, poke.center, poke.radius)));
    this.onMessage(MESSAGES.resetTable, (client, message) => this.guard(client, MESSAGES.resetTable, parseResetTable(message), () => this.playerResetsTable(client)));
    this.onMessage(MESSAGES.setMaterial, (client, message) =>
      this.guard(client, MESSAGES.setMaterial, parseSetMaterial(message, (id) => this.state.bodies.has(id)), (change) => this.playerSetsMaterial(client, change.body, change.material)));
    this.onMessage(MESSAGES.uploadTicket, (client, message) => this.guard(client, MESSAGES.uploadTicket, parseUploadTicket(message), () => this.handOutUploadTicket(client)));
    this.onMessage(MESSAGES.admin, (client, message) => this.guard(client, MESSAGES.admin, parseAdmin(message, (id) => this.state.bodies.has(id), (id) => this.state.characters.has(id)), (admin) => this.admin(client, admin)));
    // Nothing to do but hear it (guard does): a slow page's word that it is still there between its frames.
    this.onMessage(MESSAGES.keepalive, (client, message) => this.guard(client, MESSAGES.keepalive, parseKeepalive(message), () => null));
    this.onMessage("*", (client, type) => this.reject(client, `unknown message type "${String(type).slice(0, 40)}"`));

    // Every frame a client sends counts against its message budget, and frames of a kind the room does not serve or
    // that do not decode are dropped like any bad message (room-frames.ts), before Colyseus reads them. Its frame
    // handler is private in its types, so it is wrapped here, before any client joins (each join binds it).
    const internals = this as unknown as { _onMessage(client: Client, buffer: Uint8Array): void };
    const colyseusOnMessage = internals._onMessage;
    internals._onMessage = (client, buffer) => {
      if (isHandshakeFrame(buffer)) return colyseusOnMessage.call(this, client, buffer);
      const seat = this.seats.get(client.sessionId);
      // Not seated (yet), or kicked: nothing it sends is read.
      if (!seat || seat.kicked) return;
      if (!seat.limiter.take()) {
        this.reject(client, `over ${LIMITS.messagesPerSecond} messages a second`);
        // A ping over the budget counts towards a kick like any frame, but one a second is still answered: a client
        // sends no other ping until its pong comes, so a dropped one would leave it measuring nothing for good.
        if (!isPingFrame(buffer) || seat.kicked || this.world.tick - seat.overBudgetPingTick < TICK_RATE) return;
        seat.overBudgetPingTick = this.world.tick;
      }
      const refusal = frameRefusal(buffer);
      if (refusal) return this.reject(client, refusal);
      colyseusOnMessage.call(this, client, buffer);
    };

    this.clock.setInterval(() => {
      for (const seat of this.seats.values()) seat.latency?.ping();
    }, LATENCY_PROBE_INTERVAL_MS);
    this.setPatchRate(50);
    this.setFixedTimestep(() => this.tickOrClose(), TICK_RATE);
    if (!isPublic) {
      // Made: an empty room closes unless a seat is taken within the seat reservation's time, as Colyseus would
      // have had it from the start (its timer is private in its types, not in its API).
      this.autoDispose = true;
      (this as unknown as { resetAutoDisposeTimeout(seconds: number): void }).resetAutoDisposeTimeout(this.seatReservationTimeout);
    }
  }

  /** A room closed while it was being made is not made: Colyseus discards it and tells its creator why. */
  private throwIfDisposed(): void {
    if (this.disposed) throw new Error("the room was closed while it was being made");
  }

  override onJoin(client: Client, options: unknown): void {
    // A seat reserved just as the empty room closed: its world is freed, so refuse rather than touch it.
    if (this.disposed || this.failed) this.refuseJoin("this room has closed; join another");
    const join = parseJoinOptions(options);
    if (!join.ok) this.refuseJoin(join.reason);
    const { role, name, color, adminToken, kiosk } = join.value;
    // A full room first gives away the seat that has waited longest for a dropped connection: someone here now
    // comes before someone who may never come back.
    if (role === "player" && this.playerCount() >= MAX_PLAYERS && !this.giveAwayWaitingSeat("player")) this.refuseJoin(`the room is full (${MAX_PLAYERS} players); join as a spectator`);
    if (role === "spectator" && this.seats.size - this.playerCount() >= MAX_SPECTATORS && !this.giveAwayWaitingSeat("spectator")) this.refuseJoin(`the room is full (${MAX_SPECTATORS} spectators)`);
    const slot = this.freeSlot();
    const seat: Seat = {
      client, role, slot, limiter: new RateLimiter(LIMITS.messagesPerSecond, LIMITS.messageBurst), lastNoticeAt: 0, resetRefusedAt: 0,
      grabStarts: new RateLimiter(LIMITS.grabStartsPerSecond, LIMITS.grabStartsPerSecond),
      tickets: new RateLimiter(UPLOAD_LIMITS.ticketsPerSecond, UPLOAD_LIMITS.ticketBurst),
      admin: adminToken !== null && adminTokenMatches(playgroundConfig().adminToken, adminToken), poses: new Float64Array(21), poseMask: 0, poseDirty: false,
      inputs: new InputQueue((input) => {
        const problem = this.grabs.apply(seat.client, input);
        if (problem) this.reject(seat.client, `grab-${input.kind}: ${problem}`);
      }),
      kicked: false, holding: 0, overBudgetPingTick: -Infinity,
      lastHeard: this.world.tick, latency: LatencyProbe.of(client), kiosk: kiosk && role === "spectator",
    };
    this.seats.set(client.sessionId, seat);
    this.state.players.set(client.sessionId, new PlayerState({
      name: name || `${role === "player" ? "Player" : "Viewer"} ${slot + 1}`, color: uniqueColour(color, this.coloursToAvoid(role), slot), role, slot,
    }));
    // A late joiner gets every body and prop now, not only those that move later.
    client.sendBytes(MESSAGES.snapshot, this.snapshots.encode(true).slice());
  }

  /** A join refused for the client's own reasons: it is told why; the log gets one line (throttled), no stack trace. */
  private refuseJoin(reason: string): never {
    this.logRefusal("join", `room ${this.roomId}: refused a join: ${reason}`);
    throw new ServerError(ErrorCode.MATCHMAKE_UNHANDLED, reason);
  }

  /**
   * A connection lost without a goodbye (Wi-Fi dropped, a headset asleep): what the client held is let go at once,
   * so nobody else is blocked, and its seat, name, colour and slot wait reconnectSeconds for it (onReconnect);
   * after that, onLeave. A kicked client does not get its seat back.
   */
  override async onDrop(client: Client): Promise<void> {
    if (!this.failed) this.releaseAll(client.sessionId);
    const seat = this.seats.get(client.sessionId);
    if (!seat || seat.kicked || this.failed) return;
    seat.inputs.clear();
    const reconnection = this.allowReconnection(client, playgroundConfig().reconnectSeconds);
    // A plain rejected promise, not a seat to wait on, when the client never finished joining or the room closes.
    if (typeof (reconnection as Partial<Deferred<Client>>).reject === "function") seat.awaiting = { order: this.drops++, reconnection };
    await reconnection.catch(() => undefined);
    seat.awaiting = undefined;
  }

  /**
   * Ends the seat of `role` that has waited longest for its dropped connection, so that a new client may take its
   * place: its reconnection is refused from now on. False when no such seat waits.
   */
  private giveAwayWaitingSeat(role: "player" | "spectator"): boolean {
    let oldest: [string, Seat] | undefined;
    for (const entry of this.seats) {
      const waiting = entry[1].awaiting;
      if (entry[1].role === role && waiting && (!oldest || waiting.order < oldest[1].awaiting!.order)) oldest = entry;
    }
    if (!oldest) return false;
    const [sessionId, seat] = oldest;
    this.endSeat(sessionId);
    playgroundConfig().log(`room ${this.roomId}: ${sessionId}'s seat, waiting for its connection, went to a new ${role}`);
    seat.awaiting!.reconnection.reject(new Error("its seat went to a new client"));
    return true;
  }

  override onReconnect(client: Client): void {
    const seat = this.seats.get(client.sessionId);
    // Its seat ended while it came back (kicked, or given to a newcomer): Colyseus closes it (FAILED_TO_RECONNECT).
    if (!seat || seat.kicked || this.failed) throw new ServerError(ErrorCode.MATCHMAKE_EXPIRED, "your seat was given up");
    seat.awaiting = undefined;
    seat.client = client;
    seat.latency?.dispose();
    seat.latency = LatencyProbe.of(client);
    seat.lastHeard = this.world.tick;
    seat.inputs.forgetMoves();
    // Everything moved while it was away: the whole room again, as a joiner gets it.
    client.sendBytes(MESSAGES.snapshot, this.snapshots.encode(true).slice());
  }

  override onLeave(client: Client): void {
    this.endSeat(client.sessionId);
  }

  /** A seat ends: what it held is let go, and it leaves the state (idempotent: a kick ends it before its onLeave). */
  private endSeat(sessionId: string): void {
    // A failed room's world may be broken: its seats end without touching it.
    if (!this.failed) this.releaseAll(sessionId);
    this.seats.get(sessionId)?.latency?.dispose();
    this.seats.delete(sessionId);
    this.state.players.delete(sessionId);
  }

  /**
   * Whatever the client holds is let go at once: the next tick simulates without it. With a `reason`, the client
   * is told so (one that went silent may only have stalled, and must not go on showing the body in its hand).
   */
  private releaseAll(sessionId: string, reason?: string): void {
    this.grabs.releaseWhere((holder) => holder === sessionId, reason);
    this.pokes.endAll((key) => key.startsWith(`${sessionId}:`));
  }


  override onDispose(): void {
    this.disposed = true;
    // Nothing may touch the world once it is freed, whatever Colyseus does after this.
    this.setTimestep();
    this.world?.dispose();
  }

  /**
   * One tick, guarded: a tick that throws would throw again 60 times a second, so the room closes instead. Its
   * clients are told (close code 4002, Colyseus' "closed with an error") and may join again; the server's own room
   * is made again once this one has closed (public-room.ts, which waits longer after each failure in a row).
   */
  private tickOrClose(): void {
    if (this.disposed || this.failed) return;
    try {
      this.tick();
    } catch (error) {
      this.failed = true;
      this.setTimestep();
      playgroundConfig().log(`room ${this.roomId}: a tick failed, so the room closes: ${(error as Error)?.stack ?? String(error)}`);
      const closed = this.disconnect(CloseCode.WITH_ERROR);
      if (this.isPublic) void closed.then(() => remakePublicRoom(this.roomId)).catch((e: Error) => playgroundConfig().log(`the public room was not made again: ${e.message}`));
    }
  }

  /**
   * What the admin page shows of this room: tick time (p99 of the last 4,096 ticks, overruns), snapshot bytes sent
   * so far, and each connection's round-trip time (null before its first answer).
   */
  adminStats(): { roomId: string; clients: number; tickMsP99: number; overruns: number; ticks: number; snapshotBytes: number; idleResetMinutes: number; players: { sessionId: string; rttMs: number | null }[] } {
    const s = this.stats, n = Math.min(s.count, s.durations.length);
    const recent = Float64Array.from(s.durations.subarray(0, n)).sort();
    return {
      roomId: this.roomId, clients: this.clients.length, tickMsP99: n ? recent[Math.min(n - 1, Math.floor(0.99 * n))] : 0,
      overruns: s.overruns, ticks: s.count, snapshotBytes: s.snapshotBytes, idleResetMinutes: this.tableReset.idleMinutes,
      players: [...this.seats].map(([sessionId, seat]) => {
        const rtt = seat.latency?.rttMs ?? NaN;
        return { sessionId, rttMs: Number.isNaN(rtt) ? null : Math.round(rtt * 10) / 10 };
      }),
    };
  }

  /** While a kiosk watches an idle room, a body bounces now and then (attract-wobble.ts). */
  private bounceForAttraction(): void {
    let watched = false;
    for (const seat of this.seats.values()) watched ||= seat.kiosk;
    if (!watched) return;
    const world = this.world, placed = this.placed;
    const b = this.attractWobble.bodyToBounce(world.tick, watched, this.tableReset.lastActivity, placed.length, this.bounceable);
    if (b < 0) return;
    placed[b].entity.nudge(BOUNCE_UP_SPEED, BOUNCE_SQUASH_RATE);
    world.wake(b);
  }

  /** A body may bounce when nobody holds it and it is not flying home. */
  private readonly bounceable = (b: number): boolean => this.placed[b].entity.body.activeGrabs() === 0 && !this.world.homecoming.flying(b);

  /** A character's trained secondary-motion network, when there is one: it moves the flesh while nothing touches it. */
  private async attachNetwork(character: RoomCharacter, mesh: string): Promise<void> {
    const name = secondaryModelName(mesh), files = await readSecondaryModel(name);
    if (!files) return;
    try {
      character.attachNetwork(await createSecondaryNetwork(files));
      this.state.characters.get(character.id)!.network = `secondary-${name}`;
    } catch (error) {
      playgroundConfig().log(`the ${character.id}'s secondary-motion network did not load (${(error as Error).message}); the solver moves its flesh`);
    }
  }

  /** The room's characters, for benchmarks and tests in the same process. */
  get roomCharacters(): readonly RoomCharacter[] {
    return this.characters;
  }

  /** The world, for benchmarks and tests in the same process. */
  get sceneWorld(): SceneWorld {
    return this.world;
  }

  /** Who holds what (tests, benchmarks). */
  get roomGrabs(): RoomGrabs {
    return this.grabs;
  }

  // ----- the tick ---------------------------------------------------------------------------------------

  private tick(): void {
    const started = performance.now();
    this.pokes.expire();
    this.table.watchIdle(this.grabs.active || this.pokes.size > 0);
    this.bounceForAttraction();
    for (const seat of this.seats.values()) {
      seat.inputs.applyTick(this.world.tick);
      if (seat.holding > 0 && this.world.tick - seat.lastHeard > SILENT_GRAB_TICKS) this.releaseAll(seat.client.sessionId, SILENT_LET_GO_REASON);
    }
    // A tick that sends snapshots leaves the soft bodies less time: sending costs up to 3 ms with 58 clients.
    const sends = (this.ticks + 1) % TICKS_PER_SNAPSHOT === 0;
    this.world.step(sends ? this.world.solverBudgetMs - Math.min(MAX_SEND_RESERVE_MS, this.sendMs) : this.world.solverBudgetMs);
    for (const character of this.characters) {
      character.step();
      const state = this.state.characters.get(character.id)!;
      if (state.flesh !== character.fleshSource) state.flesh = character.fleshSource;
    }
    // A body put back at its spawn: the solver let go of it, so must everyone.
    for (let b = 0; b < this.placed.length; b++) if (this.world.respawned[b]) this.grabs.releaseOn(this.placed[b], "the body left the room and was put back");
    if (this.grabs.active) this.grabs.slipOverstretched();
    this.ticks++;
    if (this.ticks % TICKS_PER_SNAPSHOT === 0) {
      const sendStarted = performance.now();
      // Acks first: on the same socket they arrive before the snapshot they describe.
      for (const seat of this.seats.values()) {
        const inputs = seat.inputs;
        if (!inputs.ackDirty && seat.holding === 0) continue;
        seat.client.send(MESSAGES.ack, { tick: this.world.tick, seq: inputs.ack, lag: this.world.tick - inputs.ackTick } satisfies AckMessage);
        inputs.ackDirty = false;
      }
      const bytes = this.snapshots.encode(false);
      if (bytes.byteLength > EMPTY_SNAPSHOT_BYTES) {
        this.broadcastBytes(MESSAGES.snapshot, bytes, {});
        this.stats.snapshotBytes += bytes.byteLength * this.clients.length;
      }
      this.sendMs = Math.max(performance.now() - sendStarted, SEND_COST_DECAY * this.sendMs);
    }
    const ms = performance.now() - started;
    const s = this.stats;
    s.durations[s.cursor] = ms;
    s.cursor = (s.cursor + 1) % s.durations.length;
    s.count++;
    if (ms > 1000 / TICK_RATE) s.overruns++;
  }

  // ----- actions ----------------------------------------------------------------------------------------

  /** Runs `apply` on a valid, in-budget message; drops anything else with a logged reason. */
  private guard<T>(client: Client, type: string, parsed: Parsed<T>, apply: (value: T) => string | null): void {
    const seat = this.seats.get(client.sessionId);
    if (!seat || seat.kicked) return;
    // Heard: a message, even a bad one, is not the silence of a frozen page (pings are: a sleeping page's timers
    // may still run; a page sends keepalives only while it draws). Counted against its budget as its frame arrived
    // (onCreate's frame wrapper).
    seat.lastHeard = this.world.tick;
    if (!parsed.ok) return this.reject(client, `${type}: ${parsed.reason}`);
    try {
      const problem = apply(parsed.value);
      if (problem) this.reject(client, `${type}: ${problem}`);
    } catch (error) {
      const problem = this.clientsFault(type, error);
      if (problem) this.reject(client, `${type}: ${problem}`);
    }
  }

  /**
   * What a message's handler threw: a solver parameter error is the message's fault (its reason, for a refusal);
   * anything else is the server's, logged with its stack (throttled) without blaming the client, and the room
   * goes on (null).
   */
  private clientsFault(type: string, error: unknown): string | null {
    if (error instanceof SimParameterError) return error.message;
    this.serverFaults(type, `room ${this.roomId}: the server failed on a ${type} message (not the client's fault): ${(error as Error)?.stack ?? String(error)}`);
    return null;
  }

  private reject(client: Client, reason: string): void {
    const seat = this.seats.get(client.sessionId);
    if (!seat) return;
    const dropped = seat.limiter.drop();
    const now = Date.now();
    if (now - seat.lastNoticeAt > 1000) {
      seat.lastNoticeAt = now;
      playgroundConfig().log(`room ${this.roomId}: dropped a message from ${client.sessionId}: ${reason}`);
      client.send(MESSAGES.notice, { kind: "rejected", message: reason } satisfies NoticeMessage);
    }
    if (dropped > LIMITS.kickAfterDropped) this.kick(client, `kicked: ${dropped} messages dropped in 10 s`);
  }

  private kick(client: Client, message: string): void {
    const seat = this.seats.get(client.sessionId);
    if (!seat || seat.kicked) return;
    seat.kicked = true;
    playgroundConfig().log(`room ${this.roomId}: ${client.sessionId} ${message}`);
    client.send(MESSAGES.notice, { kind: "kicked", message } satisfies NoticeMessage);
    client.leave(KICK_CLOSE_CODE, message);
    // Its seat ends now, not when its socket has finished closing, and nobody may reconnect into it; a socket that
    // does not answer the close is cut.
    this.endSeat(client.sessionId);
    seat.awaiting?.reconnection.reject(new Error("kicked"));
    const socket = client.ref as { terminate?(): void } | undefined;
    this.clock.setTimeout(() => socket?.terminate?.(), KICKED_SOCKET_GRACE_MS);
  }

  private queueInput(client: Client, input: GrabInput): string | null {
    return this.seats.get(client.sessionId)!.inputs.push(input);
  }

  private poke(client: Client, hand: Hand, center: [number, number, number], radius: number): string | null {
    const seat = this.seats.get(client.sessionId)!;
    const key = `${client.sessionId}:${hand}`;
    // Anyone may end their own fingertip, even one an admin's change has since forbidden.
    if (radius === 0) {
      this.pokes.end(key);
      return null;
    }
    if (seat.role === "spectator" && !this.state.spectatorGrabs) return "spectators cannot poke in this room";
    return this.pokes.press(key, center, radius);
  }

  /** A player's material change: everyone hears who made what of which body. */
  private playerSetsMaterial(client: Client, body: string, material: string): string | null {
    const seat = this.seats.get(client.sessionId)!;
    if (seat.role === "spectator" && !this.state.spectatorGrabs) return "spectators cannot change materials in this room";
    return this.table.playerSetsMaterial(this.state.players.get(client.sessionId)?.name ?? "someone", body, material);
  }

  private playerResetsTable(client: Client): string | null {
    const seat = this.seats.get(client.sessionId)!;
    if (seat.role === "spectator" && !this.state.spectatorGrabs) return "spectators cannot reset the table in this room";
    this.table.playerResets(client, seat, this.state.players.get(client.sessionId)?.name);
    return null;
  }

  private admin(client: Client, message: AdminMessage): string | null {
    const seat = this.seats.get(client.sessionId)!;
    if (!seat.admin && !adminTokenMatches(playgroundConfig().adminToken, message.token)) return message.token === null ? "admin messages need a token (or a join with the admin token)" : "wrong admin token";
    const done = (text: string) => {
      playgroundConfig().log(`room ${this.roomId}: admin ${client.sessionId}: ${text}`);
      client.send(MESSAGES.notice, { kind: "admin", message: text } satisfies NoticeMessage);
      return null;
    };
    switch (message.action) {
      case "reset":
        this.table.reset("an admin reset the table");
        return done("the room was reset");
      case "idle-reset":
        this.tableReset.idleMinutes = message.minutes;
        this.state.idleResetMinutes = message.minutes;
        return done(message.minutes > 0 ? `the table resets after ${message.minutes} idle minutes` : "the table never resets by itself");
      case "material":
        this.table.changeMaterial(message.body, message.material);
        return done(`the ${this.state.bodies.get(message.body)?.name || message.body} is now ${message.material}`);
      case "character": {
        const character = this.characters.find((c) => c.id === message.character)!;
        character.setMode(message.mode);
        this.state.characters.get(character.id)!.mode = message.mode;
        return done(`the ${character.id} ${message.mode === "auto" ? "walks its loop" : message.mode === "stop" ? "stops where it is" : `${message.mode}s`}`);
      }
      case "kick": {
        const target = this.seats.get(message.sessionId);
        if (!target) return `no client ${message.sessionId} in this room`;
        const name = this.state.players.get(message.sessionId)?.name || "a visitor";
        this.kick(target.client, "kicked by an admin");
        return done(`removed ${name} from the room`);
      }
      case "spectator-grabs":
        this.state.spectatorGrabs = message.allowed;
        // Turned off, it applies to grabs already held too (their holders are told, as for a slip).
        if (!message.allowed) {
          this.grabs.releaseWhere((holder) => this.seats.get(holder)?.role === "spectator", "an admin turned spectator grabs off");
          this.pokes.endAll((key) => this.seats.get(key.slice(0, key.lastIndexOf(":")))?.role === "spectator");
        }
        return done(`spectators ${message.allowed ? "may" : "may not"} grab`);
    }
  }


  // ----- added bodies (uploads: server/uploads/upload-routes.ts calls these, through remoteRoomCall) -----------

  /** A body joins the room's state and snapshots (the world has it already, as its last body). */
  private enter(body: RoomBody, name: string, texture: string): void {
    this.placed.push(body);
    this.snapshots?.bodyEntered(body);
    const spawn = body.entity.spawn, spec = body.spec;
    this.state.bodies.set(spec.id, new BodyState({
      id: spec.id, index: body.slot, mesh: spec.mesh, material: spec.material, bake: body.bake.hash, size: body.entity.size,
      texture, spawnX: spawn[0], spawnY: spawn[1], spawnZ: spawn[2], owner: body.owner, name,
    }));
  }

  private usedSlots(): Set<number> {
    return new Set([...this.placed.map((p) => p.slot), ...this.characters.map((c) => c.index)]);
  }

  private placedById(id: string): RoomBody | undefined {
    return this.placed.find((p) => p.spec.id === id);
  }

  /** Who may add a mesh: players, spectators where the room lets them play, admins. */
  private mayUpload(seat: Seat): string | null {
    return seat.role === "spectator" && !seat.admin && !this.state.spectatorGrabs ? "spectators cannot add meshes in this room" : null;
  }

  /** An upload ticket for the asker, or `{ error }` on the same channel saying why not. */
  private handOutUploadTicket(client: Client): string | null {
    const seat = this.seats.get(client.sessionId)!;
    const refuse = (error: string) => {
      client.send(MESSAGES.uploadTicket, { error } satisfies UploadTicketMessage);
      return null;
    };
    const refusal = this.mayUpload(seat);
    if (refusal) return refuse(refusal);
    if (!seat.tickets.take()) return refuse(`at most ${UPLOAD_LIMITS.ticketBurst} tickets at once, then one every ${1 / UPLOAD_LIMITS.ticketsPerSecond} s`);
    void issueUploadTicket(this.presence, { roomId: this.roomId, owner: seat.admin ? ADMIN_OWNER : client.sessionId })
      .then((ticket) => client.send(MESSAGES.uploadTicket, ticket satisfies UploadTicketMessage))
      .catch((error: Error) => refuse(`no ticket: ${error.message}`));
    return null;
  }

  /** An upload parsed and about to bake (RoomUploads.announce): a refusal says why. */
  announceUpload(id: string, owner: string, name: string): { ok: true } | { ok: false; reason: string } {
    return this.added.announce(id, owner, name);
  }

  /** Where an upload's bake stands: its stage and progress, its place in line (RoomUploads.progress). */
  uploadProgress(...status: Parameters<RoomUploads["progress"]>): void {
    this.added.progress(...status);
  }

  /** An upload could not be baked. */
  uploadFailed(id: string, reason: string): void {
    this.added.failed(id, reason);
  }

  /** An upload is baked: its body lands. */
  uploadBaked(id: string, hash: string, texture = ""): Promise<void> {
    return this.added.baked(id, hash, texture);
  }

  /** The host RoomUploads works through: the room's bodies, state and clock, and what it may do to them. */
  private uploadsHost(): UploadsHost {
    const room = this;
    return {
      get roomId() { return room.roomId; },
      get state() { return room.state; },
      get world() { return room.world; },
      get placed() { return room.placed; },
      get disposed() { return room.disposed; },
      get clock() { return room.clock; },
      tell: (message) => this.broadcast(MESSAGES.notice, { kind: "upload", message } satisfies NoticeMessage),
      refusal: (owner) => {
        if (owner === ADMIN_OWNER) return null;
        const seat = this.seats.get(owner);
        return seat ? this.mayUpload(seat) : "the ticket's holder has left the room";
      },
      nameOf: (owner) => (owner === ADMIN_OWNER ? "an admin" : this.state.players.get(owner)?.name ?? "someone"),
      enter: (body, name, texture) => this.enter({ ...body, slot: this.snapshotIndices.next(this.usedSlots()) }, name, texture),
      remove: (body, why) => this.removeBody(body, why),
    };
  }

  /** An added body leaves the room now: whoever held it is told, and it goes from the world and the state. */
  private removeBody(body: RoomBody, why: string): void {
    this.grabs.releaseOn(body, why);
    const index = this.placed.indexOf(body);
    if (index < 0) return;
    this.world.removeBody(index);
    this.placed.splice(index, 1);
    this.snapshots.bodyLeft(index);
    this.state.bodies.delete(body.spec.id);
    this.table.forget(body.spec.id);
  }

  /** Colours a new seat must stand apart from: a player's from the other players', a spectator's from everyone's. */
  private coloursToAvoid(role: "player" | "spectator"): string[] {
    return [...this.state.players.values()].filter((p) => role === "spectator" || p.role === "player").map((p) => p.color);
  }

  private playerCount(): number {
    let count = 0;
    for (const seat of this.seats.values()) if (seat.role === "player") count++;
    return count;
  }

  private freeSlot(): number {
    const used = new Set([...this.seats.values()].map((s) => s.slot));
    for (let slot = 0; slot < 255; slot++) if (!used.has(slot)) return slot;
    return 255;
  }
}
