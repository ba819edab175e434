// The playground room: the authoritative world at a fixed 60 Hz. Every client message is validated and
// rate-limited before it touches the world; the world's fast state leaves as binary snapshots at 20 Hz.

import { CloseCode, ErrorCode, Room, ServerError, type Client, type Deferred } from "@colyseus/core";
import { loadRapier, SceneWorld } from "../../shared/scene";
import {
  BodyState, SEAT_RESERVATION_SECONDS, UPLOAD_LIMITS, LIMITS, MAX_PLAYERS, MAX_SPECTATORS, MESSAGES, PlayerState, PropState, RoomState, SnapshotWriter, TICK_RATE, TICKS_PER_SNAPSHOT,
  parseAdmin, parseDirectCharacter, parseGrabEnd, parseGrabMove, parseGrabStart, parseJoinOptions, parseKeepalive, parsePoke, parsePose, parseResetTable, parseSetMaterial, parseUploadTicket, snapshotCapacity,
  type AdminMessage, type GrabResultMessage, type RoomFigures, type NoticeMessage,
} from "../../shared/net";
import { adminTokenMatches } from "../admin/admin-token";
import { PUBLIC_ROOM_OPTION, remakePublicRoom } from "../matchmaking/public-room";
import { placeBodies } from "../world/playground-bodies";
import { RoomCharacter } from "./room-character";
import { ADMIN_OWNER, SnapshotIndices } from "./added-bodies";
import { RoomUploads, type RoomBody, type UploadsHost } from "./room-uploads";
import { playgroundConfig, roomFields } from "./playground-config";
import { throttledLog } from "../logging/throttled-log";
import { screenFrames } from "./room-frames";
import { LATENCY_PROBE_INTERVAL_MS, LatencyProbe } from "./latency-probe";
import { coloursToAvoid, freeSlot, newSeat, oldestWaitingSeat, playRefusal, playerCount, sendAcks, takePose, type Seat, type SeatRole } from "./seats";
import { AttractWobble } from "./attract-wobble";
import { TableResetPolicy } from "./table-reset";
import { uniqueColour } from "./player-colours";
import { SnapshotEncoder } from "./snapshot-encoder";
import { SnapshotSender } from "./snapshot-sender";
import { RoomPokes } from "./room-pokes";
import type { GrabInput } from "./input-queue";
import { RoomGrabs } from "./room-grabs";
import { RoomTable } from "./room-table";
import { TickStats } from "./tick-stats";
import { ClientGuard } from "./client-guard";
import { RoomCharacters } from "./room-characters";
import { handOutUploadTicket, uploadRefusal } from "./upload-permits";
import { carryOutAdmin, roomFigures } from "./room-admin";

/**
 * Reservations the room takes beyond its players and spectators: they are not seats until their socket opens
 * (onJoin counts players and spectators), so reservations that never connect cannot fill the room.
 */
const PENDING_RESERVATIONS = 64;

/**
 * A client holding a grab sends a move every frame, and a keepalive from a timer between slow frames; one silent
 * this many ticks (a frozen page, a headset gone to sleep with its socket open) lets go, so the body is not held for
 * nobody.
 */
const SILENT_GRAB_TICKS = LIMITS.silentHoldSeconds * TICK_RATE;
/** What a silent client is told when its grabs end. */
export const SILENT_LET_GO_REASON = `nothing was heard from you for ${LIMITS.silentHoldSeconds} s, so it was let go`;


export class PlaygroundRoom extends Room {
  override maxClients = MAX_PLAYERS + MAX_SPECTATORS + PENDING_RESERVATIONS;
  override seatReservationTimeout = SEAT_RESERVATION_SECONDS;
  // Hard backstop; the token bucket below drops (and later kicks) well before this.
  override maxMessagesPerSecond = 2000;
  override state = new RoomState();

  private readonly logRefusal = throttledLog(playgroundConfig().log);
  private readonly clientGuard = new ClientGuard({
    roomId: () => this.roomId,
    seat: (sessionId) => this.seats.get(sessionId),
    tick: () => this.world.tick,
    log: (line) => playgroundConfig().log(line),
    endSeat: (sessionId) => this.endSeat(sessionId),
    later: (callback, ms) => this.clock.setTimeout(callback, ms),
  });
  private world!: SceneWorld;
  private placed: RoomBody[] = [];
  private characters!: RoomCharacters;
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
    state: this.state, seat: (sessionId) => this.seats.get(sessionId), characters: () => this.characters.all, body: (id) => this.placedById(id),
    clientsFault: (type, error) => this.clientGuard.clientsFault(type, error),
  });
  private pokes!: RoomPokes;
  private snapshots!: SnapshotEncoder;
  private ticks = 0;
  private tableReset!: TableResetPolicy;
  private attractWobble!: AttractWobble;
  /** Materials and resets. */
  private table!: RoomTable;
  readonly stats = new TickStats();
  private readonly sender = new SnapshotSender({
    encode: () => this.snapshots.encode(false), sendAcks: (tick) => sendAcks(this.seats, tick),
    broadcast: (bytes) => this.broadcastBytes(MESSAGES.snapshot, bytes, {}), clientCount: () => this.clients.length, closed: () => this.disposed || this.failed,
    fail: (error) => this.closeAfterFailure("a send", error),
  }, this.stats);

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
    this.characters = new RoomCharacters({
      world: this.world, state: this.state, tickSeconds: 1 / TICK_RATE, fitCubature: config.fitCubature, untouchedLayers: config.learnedFlesh,
      serverFleshCharacters: config.serverFleshCharacters,
      nextSlot: () => this.snapshotIndices.next(this.usedSlots()), stillWanted: () => this.throwIfDisposed(),
    });
    await this.characters.addLayout(config.layout.characters ?? []);
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
    const characters = this.characters.all, qLength = Math.max(0, ...this.placed.map((p) => p.entity.body.n), ...characters.map((c) => c.character.body.n));
    // Leaving bodies stay for a moment beside those that replaced them: room for twice the limit. Characters: the
    // layout's and the uploads'.
    const characterCount = characters.length + UPLOAD_LIMITS.characters;
    const writer = new SnapshotWriter(snapshotCapacity(Math.max(this.placed.length, 2 * UPLOAD_LIMITS.softBodies) + characterCount, qLength, config.layout.props.length, MAX_PLAYERS + MAX_SPECTATORS, 256, characterCount));
    this.snapshots = new SnapshotEncoder(writer, config.layout.props.length, { world: this.world, bodies: this.placed, characters, avatars: this.seats, grabs: this.grabs.onBodies });
    for (const body of this.placed) this.snapshots.bodyEntered(body);

    this.onMessage(MESSAGES.pose, (client, message) => this.clientGuard.handle(client, MESSAGES.pose, parsePose(message), (pose) => {
      takePose(this.seats.get(client.sessionId)!, pose);
      return null;
    }));
    this.onMessage(MESSAGES.grabStart, (client, message) =>
      this.clientGuard.handle(client, MESSAGES.grabStart, parseGrabStart(message, (id) => this.state.bodies.has(id) || this.state.characters.has(id)), (grab) => {
        if (this.seats.get(client.sessionId)!.grabStarts.take()) return this.queueInput(client, { kind: "start", message: grab, arrived: this.world.tick });
        const reason = `over ${LIMITS.grabStartsPerSecond} grab starts a second`;
        client.send(MESSAGES.grabResult, { hand: grab.hand, body: grab.body, ok: false, reason } satisfies GrabResultMessage);
        return reason;
      }));
    this.onMessage(MESSAGES.grabMove, (client, message) =>
      this.clientGuard.handle(client, MESSAGES.grabMove, parseGrabMove(message), (move) => this.queueInput(client, { kind: "move", message: move, arrived: this.world.tick })));
    this.onMessage(MESSAGES.grabEnd, (client, message) =>
      this.clientGuard.handle(client, MESSAGES.grabEnd, parseGrabEnd(message), (end) => this.queueInput(client, { kind: "end", message: end, arrived: this.world.tick })));
    this.onMessage(MESSAGES.poke, (client, message) => this.clientGuard.handle(client, MESSAGES.poke, parsePoke(message), (poke) =>
      this.pokes.fromClient(client.sessionId, poke.hand, poke.center, poke.radius, playRefusal(this.seats.get(client.sessionId)!, this.state.spectatorGrabs, "poke"))));
    this.onMessage(MESSAGES.resetTable, (client, message) => this.clientGuard.handle(client, MESSAGES.resetTable, parseResetTable(message), () => this.playerResetsTable(client)));
    this.onMessage(MESSAGES.setMaterial, (client, message) =>
      this.clientGuard.handle(client, MESSAGES.setMaterial, parseSetMaterial(message, (id) => this.state.bodies.has(id)), (change) => this.playerSetsMaterial(client, change.body, change.material)));
    this.onMessage(MESSAGES.directCharacter, (client, message) => this.clientGuard.handle(client, MESSAGES.directCharacter, parseDirectCharacter(message, (id) => this.state.characters.has(id)), (direct) =>
      playRefusal(this.seats.get(client.sessionId)!, this.state.spectatorGrabs, "direct characters") ?? this.characters.direct(direct.character, direct.mode)));
    this.onMessage(MESSAGES.uploadTicket, (client, message) => this.clientGuard.handle(client, MESSAGES.uploadTicket, parseUploadTicket(message), () => {
      handOutUploadTicket(this.presence, this.roomId, client, this.seats.get(client.sessionId)!, this.state.spectatorGrabs);
      return null;
    }));
    this.onMessage(MESSAGES.admin, (client, message) => this.clientGuard.handle(client, MESSAGES.admin, parseAdmin(message, (id) => this.state.bodies.has(id), (id) => this.state.characters.has(id)), (admin) => this.admin(client, admin)));
    // Nothing to do but hear it (guard does): a slow page's word that it is still there between its frames.
    this.onMessage(MESSAGES.keepalive, (client, message) => this.clientGuard.handle(client, MESSAGES.keepalive, parseKeepalive(message), () => null));
    this.onMessage("*", (client, type) => this.clientGuard.reject(client, `unknown message type "${String(type).slice(0, 40)}"`));

    // Every frame a client sends counts against its message budget, and frames of a kind the room does not serve or
    // that do not decode are dropped like any bad message (room-frames.ts), before Colyseus reads them.
    screenFrames(this, (client, buffer) => this.clientGuard.admitFrame(client, buffer));

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

  /** A room closed while it was being made: Colyseus discards it and tells its creator why. */
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
    if (role === "player" && playerCount(this.seats) >= MAX_PLAYERS && !this.giveAwayWaitingSeat("player")) this.refuseJoin(`the room is full (${MAX_PLAYERS} players); join as a spectator`);
    if (role === "spectator" && this.seats.size - playerCount(this.seats) >= MAX_SPECTATORS && !this.giveAwayWaitingSeat("spectator")) this.refuseJoin(`the room is full (${MAX_SPECTATORS} spectators)`);
    const slot = freeSlot(this.seats);
    const seat = newSeat({
      client, role, slot, kiosk, tick: this.world.tick,
      admin: adminToken !== null && adminTokenMatches(playgroundConfig().adminToken, adminToken),
      applyInput: (owner, input) => {
        const problem = this.grabs.apply(owner.client, input);
        if (problem) this.clientGuard.reject(owner.client, `grab-${input.kind}: ${problem}`);
      },
    });
    this.seats.set(client.sessionId, seat);
    this.state.players.set(client.sessionId, new PlayerState({
      name: name || `${role === "player" ? "Player" : "Viewer"} ${slot + 1}`, color: uniqueColour(color, coloursToAvoid(this.state.players.values(), role), slot), role, slot,
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
  private giveAwayWaitingSeat(role: SeatRole): boolean {
    const oldest = oldestWaitingSeat(this.seats, role);
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
      this.closeAfterFailure("a tick", error);
    }
  }

  /** A tick or the send after it threw (`what`): the room closes. */
  private closeAfterFailure(what: string, error: unknown): void {
    if (this.disposed || this.failed) return;
    this.failed = true;
    this.setTimestep();
    playgroundConfig().log(`room ${this.roomId}: ${what} failed, so the room closes: ${(error as Error)?.stack ?? String(error)}`);
    const closed = this.disconnect(CloseCode.WITH_ERROR);
    if (this.isPublic) void closed.then(() => remakePublicRoom(this.roomId)).catch((e: Error) => playgroundConfig().log(`the public room was not made again: ${e.message}`));
  }

  /** What the admin page shows of this room (room-admin.ts). */
  adminStats(): RoomFigures {
    return roomFigures(this.roomId, this.clients.length, this.stats, this.tableReset.idleMinutes, this.seats);
  }

  /** While a kiosk watches an idle room, a body bounces now and then (attract-wobble.ts). */
  private bounceForAttraction(): void {
    let watched = false;
    for (const seat of this.seats.values()) watched ||= seat.kiosk;
    this.attractWobble.bounce(this.world, this.placed, watched, this.tableReset.lastActivity);
  }

  /** The room's characters, for benchmarks and tests in the same process. */
  get roomCharacters(): readonly RoomCharacter[] {
    return this.characters.all;
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
    this.sender.flush();
    const started = performance.now();
    this.pokes.expire();
    this.table.watchIdle(this.grabs.active || this.pokes.size > 0);
    this.bounceForAttraction();
    for (const seat of this.seats.values()) {
      seat.inputs.applyTick(this.world.tick);
      if (seat.holding > 0 && this.world.tick - seat.lastHeard > SILENT_GRAB_TICKS) this.releaseAll(seat.client.sessionId, SILENT_LET_GO_REASON);
    }
    // A tick whose snapshot is sent after it leaves the soft bodies less time: sending costs ~2 ms with 116 clients.
    const sends = (this.ticks + 1) % TICKS_PER_SNAPSHOT === 0;
    // The budget counts from the tick's start, so that inputs and Rapier count too (SOLVER_BUDGET_MS).
    this.world.step(sends ? this.world.solverBudgetMs - this.sender.reserveMs : this.world.solverBudgetMs, started);
    this.characters.step();
    // A body put back at its spawn: the solver let go of it, so must everyone.
    for (let b = 0; b < this.placed.length; b++) if (this.world.respawned[b]) this.grabs.releaseOn(this.placed[b], "the body left the room and was put back");
    if (this.grabs.active) this.grabs.slipOverstretched();
    this.ticks++;
    if (this.ticks % TICKS_PER_SNAPSHOT === 0) this.sender.prepare(this.world.tick);
    this.stats.record(performance.now() - started);
  }

  // ----- actions ----------------------------------------------------------------------------------------

  private queueInput(client: Client, input: GrabInput): string | null {
    return this.seats.get(client.sessionId)!.inputs.push(input);
  }

  /** A player's material change: everyone hears who made what of which body. */
  private playerSetsMaterial(client: Client, body: string, material: string): string | null {
    const seat = this.seats.get(client.sessionId)!;
    return playRefusal(seat, this.state.spectatorGrabs, "change materials") ?? this.table.playerSetsMaterial(this.state.players.get(client.sessionId)?.name ?? "someone", body, material);
  }

  private playerResetsTable(client: Client): string | null {
    const seat = this.seats.get(client.sessionId)!;
    const refusal = playRefusal(seat, this.state.spectatorGrabs, "reset the table");
    if (!refusal) this.table.playerResets(client, seat, this.state.players.get(client.sessionId)?.name);
    return refusal;
  }

  private admin(client: Client, message: AdminMessage): string | null {
    const seat = this.seats.get(client.sessionId)!;
    if (!seat.admin && !adminTokenMatches(playgroundConfig().adminToken, message.token)) return message.token === null ? "admin messages need a token (or a join with the admin token)" : "wrong admin token";
    const outcome = carryOutAdmin({
      state: this.state, table: this.table, tableReset: this.tableReset, characters: this.characters.all, seats: this.seats, grabs: this.grabs, pokes: this.pokes,
      kick: (target, why) => this.clientGuard.kick(target, why),
    }, message);
    if ("refused" in outcome) return outcome.refused;
    playgroundConfig().log(`room ${this.roomId}: admin ${client.sessionId}: ${outcome.done}`);
    client.send(MESSAGES.notice, { kind: "admin", message: outcome.done } satisfies NoticeMessage);
    return null;
  }

  // ----- added bodies (uploads: server/upload-routes.ts calls these, through remoteRoomCall) -----------

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
    return new Set([...this.placed.map((p) => p.slot), ...(this.characters?.all ?? []).map((c) => c.index)]);
  }

  private placedById(id: string): RoomBody | undefined {
    return this.placed.find((p) => p.spec.id === id);
  }

  /** An upload parsed and about to bake (RoomUploads.announce; `character`: it is rigged): a refusal says why. */
  announceUpload(id: string, owner: string, name: string, character = false): { ok: true } | { ok: false; reason: string } {
    return this.added.announce(id, owner, name, character);
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
      get characters() { return room.characters; },
      tell: (message) => this.broadcast(MESSAGES.notice, { kind: "upload", message } satisfies NoticeMessage),
      refusal: (owner) => {
        if (owner === ADMIN_OWNER) return null;
        const seat = this.seats.get(owner);
        return seat ? uploadRefusal(seat, this.state.spectatorGrabs) : "the ticket's holder has left the room";
      },
      nameOf: (owner) => (owner === ADMIN_OWNER ? "an admin" : this.state.players.get(owner)?.name ?? "someone"),
      enter: (body, name, texture) => this.enter({ ...body, slot: this.snapshotIndices.next(this.usedSlots()) }, name, texture),
      remove: (body, why) => this.removeBody(body, why),
      releaseCharacter: (character, why) => this.grabs.releaseOnCharacter(character, why),
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


}
