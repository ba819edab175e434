// The room's synchronised state (Colyseus schema): who is here and what the room holds. It changes rarely
// (joins, grabs, material changes); the fast-moving numbers travel in binary snapshots (snapshot.ts).

import type { Room } from "@colyseus/sdk";
import { schema, t, type SchemaType } from "@colyseus/schema";

export const PlayerState = schema({
  name: t.string().default(""),
  color: t.string().default("#ffffff"),
  role: t.string().default("spectator"),
  /** Index of this player's avatar in snapshots. */
  slot: t.uint8().default(0),
}, "Player");
export type PlayerState = SchemaType<typeof PlayerState>;

export const BodyState = schema({
  id: t.string().default(""),
  /** Index of this body in snapshots. */
  index: t.uint8().default(0),
  mesh: t.string().default(""),
  material: t.string().default("jelly"),
  /** Content hash of its BakedBody: GET /bakes/<hash> returns the bytes. */
  bake: t.string().default(""),
  /** Largest extent, m. */
  size: t.float32().default(0),
  /** Where its base-colour texture is (GET /textures/NAME.png), "" for none. */
  texture: t.string().default(""),
  /** Its own colour ("#rrggbb", an upload's from shared/scene/palette.ts) in place of its material's; "" for the material's. */
  color: t.string().default(""),
  /** Rest-frame origin at spawn, world metres. */
  spawnX: t.float32().default(0),
  spawnY: t.float32().default(0),
  spawnZ: t.float32().default(0),
  /** Who added it (a sessionId; "admin" for an admin's upload); "" for the room's own bodies. */
  owner: t.string().default(""),
  /** What to call it: the uploaded file's name, or its id. */
  name: t.string().default(""),
  /** It is leaving the room (an added body making room for a newer one): pages fade it out. */
  leaving: t.boolean().default(false),
}, "Body");
export type BodyState = SchemaType<typeof BodyState>;

/** An uploaded mesh being baked: pages show a placeholder where it will land, with its progress or place in line. */
export const UploadState = schema({
  id: t.string().default(""),
  name: t.string().default(""),
  owner: t.string().default(""),
  /** The bake's stage ("queued", "sampling", "fields", "evaluating", "cubature", "done") and its progress 0-1. */
  stage: t.string().default("queued"),
  progress: t.float32().default(0),
  /** Where the body will land (its lowest point's centre), world metres, and its largest extent. */
  x: t.float32().default(0),
  y: t.float32().default(0),
  z: t.float32().default(0),
  size: t.float32().default(0),
  /** Bakes ahead of it in its server's line, the one being baked included (0 once its own bake runs). */
  ahead: t.uint8().default(0),
  /** The server's estimate of the seconds until it is baked, from its recent bakes; 0 while it has none. */
  secondsLeft: t.float32().default(0),
}, "Upload");
export type UploadState = SchemaType<typeof UploadState>;

export const PropState = schema({
  id: t.string().default(""),
  index: t.uint8().default(0),
  shape: t.string().default("ball"),
  size: t.float32().default(0),
  color: t.string().default("#ffffff"),
}, "Prop");
export type PropState = SchemaType<typeof PropState>;

/** A held grab, so that clients predicting a body can replicate other people's pulls on it. */
export const GrabState = schema({
  /** Index of this grab in snapshots (its target travels there). */
  slot: t.uint8().default(0),
  body: t.string().default(""),
  owner: t.string().default(""),
  hand: t.string().default(""),
  /** The grabbed point when the grab started, world metres. */
  x: t.float32().default(0),
  y: t.float32().default(0),
  z: t.float32().default(0),
}, "Grab");
export type GrabState = SchemaType<typeof GrabState>;

/** A rigged character walking the room: its soft part is a body's q in snapshots, its pose a snapshot entry. */
export const CharacterState = schema({
  id: t.string().default(""),
  /** Its number in snapshots (shared with bodies' indices). */
  index: t.uint8().default(0),
  mesh: t.string().default(""),
  /** Content hash of its BakedBody (GET /bakes/<hash>): the bake carries the rig and its clips. */
  bake: t.string().default(""),
  /** Largest extent, m. */
  size: t.float32().default(0),
  texture: t.string().default(""),
  /** Its clips' names, comma-separated, in the order snapshots number them. */
  clips: t.string().default(""),
  /** Who made it: pages show it while the character is in the room. */
  credit: t.string().default(""),
  /** Who added it (an upload: a session id, or "admin"); "" for the room's own. And what pages call it. */
  owner: t.string().default(""),
  name: t.string().default(""),
  /** What it does: "auto" (walks its loop, stopping now and then to look around), "walk", "run", "look" or "stop". */
  mode: t.string().default("auto"),
  /**
   * Its trained secondary-motion network, fetched at /models/<network>.onnx and .json ("" when it has none), and
   * where its flesh comes from now: "sim" (the solver, while anything touches it: snapshots carry it), "linear" (the
   * linearised flesh, untouched on a clip the network never learned or with no network: snapshots carry it), "rnn"
   * (that network alone, while nothing touches it: snapshots leave it out and pages run the network on the pose they
   * show) or "springs" (untouched, beyond the room's SERVER_FLESH_CHARACTERS: snapshots leave it out and pages run
   * its spring layer on the pose they show).
   */
  network: t.string().default(""),
  flesh: t.string().default("sim"),
}, "Character");
export type CharacterState = SchemaType<typeof CharacterState>;

export const RoomState = schema({
  players: t.map(PlayerState),
  bodies: t.map(BodyState),
  /** Uploaded meshes being baked, by the id their body will have. */
  uploads: t.map(UploadState),
  props: t.map(PropState),
  /** Keyed "sessionId:hand". */
  grabs: t.map(GrabState),
  characters: t.map(CharacterState),
  spectatorGrabs: t.boolean().default(false),
  /** Minutes without a grab or a poke after which the table is reset (0: never). */
  idleResetMinutes: t.float32().default(0),
}, "RoomState");
export type RoomState = SchemaType<typeof RoomState>;

/** A client's room, its state typed: what pages, the admin page, the client and tests read. */
export type PliantRoom = Room<unknown, RoomState>;
