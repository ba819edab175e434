// The wire protocol of a Pliant room (docs/protocol.md is its prose): names, limits, rates and the shapes of
// every message. Both the server and clients import it, so the limits they check are the same numbers.

import { GRAB_SLACK } from "../sim/body-types";

export const ROOM_NAME = "playground";
export const TICK_RATE = 60;
/** Server snapshots (soft-body q, props, avatars) per second. */
export const SNAPSHOT_RATE = 20;
export const TICKS_PER_SNAPSHOT = TICK_RATE / SNAPSHOT_RATE;
export const MAX_PLAYERS = 16;
/**
 * Seconds a seat reserved over HTTP waits for its socket. A slow page (a phone or a software-rendered browser whose
 * main thread stalls for seconds at a time on a busy machine: stalls of 7 s were measured) must be able to take its
 * seat; fake reservations are bounded by the per-address matchmaking limit and the room's pending reservations.
 */
export const SEAT_RESERVATION_SECONDS = 15;
/** A stand's crowd: phones and the big screen watching 16 headsets (issue 33: 100 watchers). */
export const MAX_SPECTATORS = 128;

export type Role = "player" | "spectator";
export type Hand = "left" | "right" | "pointer";
export const HANDS: readonly Hand[] = ["left", "right", "pointer"];

export interface JoinOptions {
  /** 1-24 characters; control characters are removed. */
  name?: string;
  /** Default "spectator". */
  role?: Role;
  /** "#rrggbb"; default picked by the server. */
  color?: string;
  /** Only for admin messages (or pass it in each admin message). */
  adminToken?: string;
  /** A stand's big screen (`/?kiosk`): while one is in the room, an idle room's bodies bounce now and then. */
  kiosk?: boolean;
}

/** A pose: position (m, room frame) and unit quaternion (x, y, z, w). */
export type Pose = [number, number, number, number, number, number, number];

export interface PoseMessage {
  head: Pose;
  left?: Pose | null;
  right?: Pose | null;
}

/**
 * Grab inputs carry the sender's frame number `seq` (an integer that grows by one per 60 Hz frame). The server
 * applies one frame of each client's grab inputs per tick, in seq order, and tells the client which frame its
 * state includes (AckMessage), so a predicting client can line its history up with the server exactly.
 */
export interface SequencedInput {
  seq: number;
}

export interface GrabStartMessage extends SequencedInput {
  hand: Hand;
  body: string;
  /** The grabbed surface point, world metres (where the hand touched or the ray hit). */
  point: [number, number, number];
}

export interface GrabMoveMessage extends SequencedInput {
  hand: Hand;
  /** Where the grabbed point should go, world metres. */
  target: [number, number, number];
  /**
   * The targets of frames seq - 1 and seq - 2 of the same grab (3 numbers each, newest first), so that one lost
   * message does not cost the server a frame. Optional; at most 6 numbers.
   */
  earlier?: number[];
}

export interface GrabEndMessage extends SequencedInput {
  hand: Hand;
}

/**
 * Server -> a client with grab inputs: the snapshot of the same tick includes its inputs up to frame `seq`,
 * followed by `lag` more ticks in which none of its inputs were waiting. It matches the client's frame seq + lag.
 */
export interface AckMessage {
  tick: number;
  seq: number;
  lag: number;
}

export interface PokeMessage {
  hand: Hand;
  /** Fingertip sphere centre (world metres) and radius (m, 0 ends the poke). */
  center: [number, number, number];
  radius: number;
}

/** What a room's character can be told to do: walk its loop stopping now and then ("auto"), walk, run, look around, or stop where it is. */
export const CHARACTER_MODES = ["auto", "walk", "run", "look", "stop"] as const;
export type CharacterMode = (typeof CHARACTER_MODES)[number];

export type AdminAction =
  | { action: "reset" }
  | { action: "character"; character: string; mode: CharacterMode }
  | { action: "material"; body: string; material: string }
  | { action: "kick"; sessionId: string }
  | { action: "spectator-grabs"; allowed: boolean }
  /** Minutes without a grab or a poke after which the table is reset (0: never). */
  | { action: "idle-reset"; minutes: number };

/** `token` may be left out by a client that joined with the admin token. */
export type AdminMessage = AdminAction & { token: string | null };

/** What GET /admin/stats answers: when (ms since the epoch), and each room's figures. */
export interface AdminStats {
  at: number;
  rooms: RoomFigures[];
}

/** A room's figures as GET /admin/stats gives them (one a room, in `rooms`). */
export interface RoomFigures {
  roomId: string;
  clients: number;
  /** The 99th percentile of the last 4,096 ticks' durations, ms, and the ticks over the tick's period. */
  tickMsP99: number;
  overruns: number;
  ticks: number;
  /** Snapshot bytes sent so far, times the clients each went to. */
  snapshotBytes: number;
  idleResetMinutes: number;
  /** Each connection's round-trip time as the server measures it (ms; null before its first answer). */
  players: { sessionId: string; rttMs: number | null }[];
}

export interface SetMaterialMessage {
  body: string;
  /** "jelly", "rubber" or "dough" (shared/scene/materials.ts). */
  material: string;
}

/** What a visitor's character plays: its walk, run or look clip in place, `auto` (walk, looking round now and then) or `stop`. */
export interface DirectCharacterMessage {
  character: string;
  mode: CharacterMode;
}

/** Server -> one client: the answer to a grab. */
export interface GrabResultMessage {
  hand: Hand;
  body: string;
  ok: boolean;
  reason?: string;
  /**
   * With ok: the grab-start point, the body's surface samples the grab holds and their offsets (m, 3 each) from
   * the target, so that the grabber's prediction holds exactly the same material (SoftBody.grabExactly). Only the
   * grabber gets them: the shared state stays small when people grab often.
   */
  point?: [number, number, number];
  samples?: number[];
  offsets?: number[];
}

/**
 * Server -> the clients that hold the same body: the material another person's grab on it holds (its key in the
 * state's `grabs`), so that their prediction replicates that pull on the same samples as the server
 * (SoftBody.grabExactly). Sent when such a grab starts, and for the grabs already there when a client takes hold.
 */
export interface GrabHeldMessage {
  key: string;
  body: string;
  samples: number[];
  offsets: number[];
}

/** Server -> one client: a message was dropped (first of each kind per second), or an admin action's result. */
export interface NoticeMessage {
  /**
   * "reset": to everyone, the table was put back as it started (by a player, an admin or the idle timer).
   * "material": to everyone, a player changed a body's material.
   * "upload": to everyone, a body was added, left to make room, or could not be baked (the reason).
   */
  kind: "rejected" | "admin" | "kicked" | "reset" | "material" | "upload";
  message: string;
}

export const MESSAGES = Object.freeze({
  pose: "pose",
  grabStart: "grab-start",
  grabMove: "grab-move",
  grabEnd: "grab-end",
  poke: "poke",
  admin: "admin",
  /** A player puts the table back as it started (payload {}; at most once per cooldown, room-wide). */
  resetTable: "reset-table",
  /** A player turns a body into another material (payload SetMaterialMessage). */
  setMaterial: "set-material",
  /** A player picks what a visitor's character plays (payload DirectCharacterMessage); the room's own are admins'. */
  directCharacter: "direct-character",
  /**
   * Asks to add a mesh (payload {}): answered with an `upload-ticket` (UploadTicketMessage) for POST /meshes, to
   * players (and spectators where the room lets them play).
   */
  uploadTicket: "upload-ticket",
  /**
   * "Still here" (payload {}): a page that holds something and has sent nothing else for a while sends one from a
   * timer, off its render loop, so that a page drawing a frame every few seconds keeps its grabs.
   */
  keepalive: "keepalive",
  /** server -> client */
  snapshot: "snapshot",
  grabResult: "grab-result",
  grabHeld: "grab-held",
  notice: "notice",
  ack: "ack",
});

/**
 * WebSocket close code of a client the room removed (an admin's kick, too many dropped messages). Colyseus' own
 * codes are 4000-4010 (4001 is its server shutdown, after which a client should come back as it was).
 */
export const KICK_CLOSE_CODE = 4401;

/** Input frame numbers (`seq`) count modulo this: after 2^31 - 1 comes 0. */
export const SEQ_MODULUS = 2 ** 31;

/** Whether frame `a` comes after frame `b` (serial-number arithmetic, RFC 1982: less than half the range ahead). */
export function seqAfter(a: number, b: number): boolean {
  const ahead = (((a - b) % SEQ_MODULUS) + SEQ_MODULUS) % SEQ_MODULUS;
  return ahead > 0 && ahead < SEQ_MODULUS / 2;
}

/** The frame number that a wrapped `seq` stands for: the latest one at or before `newest` (an unwrapped count). */
export function unwrapSeq(seq: number, newest: number): number {
  return newest - seqMinus(newest, seq);
}

/** Frame `seq` minus `n`, wrapping. */
export function seqMinus(seq: number, n: number): number {
  return (((seq - n) % SEQ_MODULUS) + SEQ_MODULUS) % SEQ_MODULUS;
}

export const LIMITS = Object.freeze({
  nameLength: 24,
  /** Positions must lie within this distance of the room centre, m. */
  reach: 10,
  /** A grab point must lie within this distance of the body's surface, m. */
  grabSlack: GRAB_SLACK,
  /** A grab target may be at most this far from the body's current centre, m (a stretch, not a teleport). */
  grabStretch: 1.5,
  pokeRadiusMax: 0.03,
  /**
   * What a client holds stays held this long without word from it, s: a fingertip not refreshed, and every grab of a
   * client that sends nothing at all (a frozen page, a headset asleep with its socket open), end by themselves after
   * it. Its own end messages end them at once. Longer than a headset's stalled frames (a shader compile on a
   * standalone headset; up to a second and more in a software-rendered browser), so a hand held still keeps its hold.
   * A page that draws slower than this keeps its grabs with `keepalive` messages sent from a timer.
   */
  silentHoldSeconds: 2,
  /** Token bucket per client: sustained messages per second and burst. */
  messagesPerSecond: 200,
  messageBurst: 400,
  /** Grab starts a client may make per second (each one changes the shared state everyone is sent). */
  grabStartsPerSecond: 10,
  /** Dropped messages within 10 s after which a client is kicked. */
  kickAfterDropped: 2000,
  /** Grab inputs a client may have waiting on the server; beyond this the oldest frames are applied at once. */
  inputBacklog: 8,
  /** Largest message a client may send, bytes. */
  maxPayload: 4096,
  /** Most idle minutes an admin may set before the table is reset (admin idle-reset). */
  idleResetMinutes: 24 * 60,
});

/** What uploaded meshes may be and do (POST /meshes). */
export const UPLOAD_LIMITS = Object.freeze({
  /** Largest file, bytes. */
  maxBytes: 20 * 1024 * 1024,
  /** Most vertices and triangles an uploaded mesh may have (the bake's time grows with them). */
  maxVertices: 250_000,
  maxTriangles: 500_000,
  /** Bodies a player may have added at once (their oldest leaves for a new one); admins are not limited. */
  bodiesPerPlayer: 2,
  /** Soft bodies a room holds, its own included (the oldest added one leaves for a new one). */
  softBodies: 8,
  /** Seconds an upload ticket is good for; each ticket is good for one upload. */
  ticketSeconds: 60,
  /** Uploads per client address: sustained per minute, and burst. */
  uploadsPerMinute: 4,
  uploadBurst: 3,
  /** Uploads waiting for the process's baker beyond the one it is baking (more are refused with 429). */
  queuedBakes: 4,
  /**
   * CPU seconds a bake may use before it is stopped (a file whose bake would never end). Work, not waiting: a bake
   * takes 2-4 s of CPU time whatever the mesh (its counts are fixed), however long a busy machine makes it last.
   */
  bakeCpuSeconds: 120,
  /** Largest extent an added body is scaled to, m, unless the server is told otherwise (UPLOAD_SIZE). */
  defaultSize: 0.25,
  /** Joints a rigged upload (a character) may have, all its skins' together. */
  characterJoints: 64,
  /** Characters from uploads a room holds at once (a newer one sends the older away): each costs the tick a solver. */
  characters: 1,
  /** Largest extent an uploaded character is scaled to, m (it plays on the table, among the bodies). */
  characterSize: 0.3,
  /** Characters kept of an upload's name. */
  nameLength: 40,
  /** Largest base-colour image kept of an upload, bytes (a bigger one is dropped: the body shows untextured). */
  maxTextureBytes: 4 * 1024 * 1024,
  /**
   * Largest base-colour image of an upload, pixels a side (its header says; a bigger one, or one whose size cannot
   * be read, refuses the file): every page decodes it whole, 4096 x 4096 being 64 MiB as RGBA.
   */
  maxTextureSide: 4096,
  /** Uploads' bakes (and textures) a server keeps on disk, the most recently used (server/world/upload-store.ts). */
  keptBakes: 256,
  /** Seconds an added body fades out (BodyState.leaving) before it leaves the room. */
  leavingSeconds: 0.6,
  /** The sizes a server may scale added bodies to (UPLOAD_SIZE), m. */
  minSize: 0.05,
  maxSize: 1,
  /** Live upload tickets a client may ask for: per second, and burst. */
  ticketsPerSecond: 0.5,
  ticketBurst: 3,
});

/** A mesh of the server's gallery (GET /gallery lists them; GET /gallery/<file> serves one). */
export interface GalleryEntry {
  name: string;
  file: string;
  /** Who made it, under what licence: shown beside it. */
  credit: string;
}

/**
 * The answer to `upload-ticket`: POST the file to /meshes?ticket=<ticket> within expiresIn seconds; or `error`,
 * why there is none.
 */
export type UploadTicketMessage = { ticket: string; expiresIn: number } | { error: string };
