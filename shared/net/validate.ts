// Validation of everything a client sends: types, finite numbers, ranges, lengths. Each parser returns the clean
// value or a reason the message was dropped; nothing here trusts a field it has not checked.

import { isMaterialName } from "../scene/materials";
import { CHARACTER_MODES, HANDS, LIMITS, SEQ_MODULUS, type AdminMessage, type CharacterMode, type DirectCharacterMessage, type GrabEndMessage, type GrabMoveMessage, type GrabStartMessage, type Hand, type PokeMessage, type Pose, type PoseMessage, type Role, type SetMaterialMessage } from "./protocol";
import { length4 } from "../linalg/vector-length";

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function vector(value: unknown, name: string): [number, number, number] | string {
  if (!Array.isArray(value) || value.length !== 3) return `${name} must be an array of 3 numbers`;
  for (const v of value) {
    if (typeof v !== "number" || !Number.isFinite(v)) return `${name} must hold finite numbers`;
    if (Math.abs(v) > LIMITS.reach) return `${name} must lie within ${LIMITS.reach} m of the room centre`;
  }
  return [value[0], value[1], value[2]];
}

// Poses come from every player at the headset's rate: this parses one without temporary arrays.
function pose(value: unknown, name: string): Pose | string {
  if (!Array.isArray(value) || value.length !== 7) return `${name} must be [x, y, z, qx, qy, qz, qw]`;
  for (let i = 0; i < 7; i++) {
    const v = value[i];
    if (typeof v !== "number" || !Number.isFinite(v)) return `${name} must hold finite numbers`;
  }
  for (let i = 0; i < 3; i++) if (Math.abs(value[i]) > LIMITS.reach) return `${name} position must lie within ${LIMITS.reach} m of the room centre`;
  const x = value[3] as number, y = value[4] as number, z = value[5] as number, w = value[6] as number;
  const length = length4(x, y, z, w);
  if (Math.abs(length - 1) > 0.05) return `${name} quaternion must have unit length`;
  return [value[0], value[1], value[2], x / length, y / length, z / length, w / length];
}

function hand(value: unknown): Hand | { error: string } {
  return typeof value === "string" && (HANDS as readonly string[]).includes(value) ? (value as Hand) : { error: `hand must be one of ${HANDS.join(", ")}` };
}

function sequence(value: unknown): number | string {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) < SEQ_MODULUS ? (value as number) : "seq must be an integer in [0, 2^31)";
}

function bodyId(value: unknown, known: (id: string) => boolean): string | { error: string } {
  if (typeof value !== "string" || value.length > 64) return { error: "body must be a body id" };
  return known(value) ? value : { error: `unknown body "${value}"` };
}

export function parsePose(message: unknown): Parsed<PoseMessage> {
  if (!isRecord(message)) return fail("pose must be an object");
  const head = pose(message.head, "head");
  if (typeof head === "string") return fail(head);
  const out: PoseMessage = { head, left: null, right: null };
  for (const side of ["left", "right"] as const) {
    if (message[side] === undefined || message[side] === null) continue;
    const p = pose(message[side], side);
    if (typeof p === "string") return fail(p);
    out[side] = p;
  }
  return { ok: true, value: out };
}

export function parseGrabStart(message: unknown, knownBody: (id: string) => boolean): Parsed<GrabStartMessage> {
  if (!isRecord(message)) return fail("grab-start must be an object");
  const h = hand(message.hand);
  if (typeof h !== "string") return fail(h.error);
  const body = bodyId(message.body, knownBody);
  if (typeof body !== "string") return fail(body.error);
  const point = vector(message.point, "point");
  if (typeof point === "string") return fail(point);
  const seq = sequence(message.seq);
  if (typeof seq === "string") return fail(seq);
  return { ok: true, value: { hand: h, body, point, seq } };
}

export function parseGrabMove(message: unknown): Parsed<GrabMoveMessage> {
  if (!isRecord(message)) return fail("grab-move must be an object");
  const h = hand(message.hand);
  if (typeof h !== "string") return fail(h.error);
  const target = vector(message.target, "target");
  if (typeof target === "string") return fail(target);
  const seq = sequence(message.seq);
  if (typeof seq === "string") return fail(seq);
  const value: GrabMoveMessage = { hand: h, target, seq };
  if (message.earlier !== undefined) {
    const earlier = message.earlier;
    if (!Array.isArray(earlier) || earlier.length > 6 || earlier.length % 3 !== 0) return fail("earlier must hold 0, 3 or 6 numbers");
    for (let i = 0; i < earlier.length; i += 3) {
      const v = vector(earlier.slice(i, i + 3), "earlier");
      if (typeof v === "string") return fail(v);
    }
    value.earlier = earlier as number[];
  }
  return { ok: true, value };
}

export function parseGrabEnd(message: unknown): Parsed<GrabEndMessage> {
  if (!isRecord(message)) return fail("grab-end must be an object");
  const h = hand(message.hand);
  if (typeof h !== "string") return fail(h.error);
  const seq = sequence(message.seq);
  if (typeof seq === "string") return fail(seq);
  return { ok: true, value: { hand: h, seq } };
}

export function parsePoke(message: unknown): Parsed<PokeMessage> {
  if (!isRecord(message)) return fail("poke must be an object");
  const h = hand(message.hand);
  if (typeof h !== "string") return fail(h.error);
  const center = vector(message.center, "center");
  if (typeof center === "string") return fail(center);
  const radius = message.radius;
  if (typeof radius !== "number" || !Number.isFinite(radius) || radius < 0 || radius > LIMITS.pokeRadiusMax) {
    return fail(`radius must be a number in [0, ${LIMITS.pokeRadiusMax}] m`);
  }
  return { ok: true, value: { hand: h, center, radius } };
}

export function parseSetMaterial(message: unknown, knownBody: (id: string) => boolean): Parsed<SetMaterialMessage> {
  if (!isRecord(message)) return fail("set-material must be an object { body, material }");
  const body = bodyId(message.body, knownBody);
  if (typeof body !== "string") return fail(body.error);
  if (!isMaterialName(message.material)) return fail("material must be jelly, rubber or dough");
  return { ok: true, value: { body, material: message.material } };
}

export function parseDirectCharacter(message: unknown, knownCharacter: (id: string) => boolean): Parsed<DirectCharacterMessage> {
  if (!isRecord(message)) return fail("direct-character must be an object { character, mode }");
  if (typeof message.character !== "string" || message.character.length > 64 || !knownCharacter(message.character)) return fail("character needs the id of a character in this room");
  if (!CHARACTER_MODES.includes(message.mode as CharacterMode)) return fail(`character mode must be ${CHARACTER_MODES.join(", ")}`);
  return { ok: true, value: { character: message.character, mode: message.mode as CharacterMode } };
}

export function parseAdmin(message: unknown, knownBody: (id: string) => boolean, knownCharacter: (id: string) => boolean = () => false): Parsed<AdminMessage> {
  if (!isRecord(message)) return fail("admin must be an object");
  if (message.token !== undefined && (typeof message.token !== "string" || message.token.length > 256)) return fail("an admin token is a string of at most 256 characters");
  const token = typeof message.token === "string" ? message.token : null;
  switch (message.action) {
    case "reset":
      return { ok: true, value: { action: "reset", token } };
    case "material": {
      const body = bodyId(message.body, knownBody);
      if (typeof body !== "string") return fail(body.error);
      if (!isMaterialName(message.material)) return fail("material must be jelly, rubber or dough");
      return { ok: true, value: { action: "material", body, material: message.material, token } };
    }
    case "character": {
      const direct = parseDirectCharacter(message, knownCharacter);
      return direct.ok ? { ok: true, value: { action: "character", ...direct.value, token } } : direct;
    }
    case "kick":
      if (typeof message.sessionId !== "string" || message.sessionId.length > 64) return fail("kick needs a sessionId");
      return { ok: true, value: { action: "kick", sessionId: message.sessionId, token } };
    case "spectator-grabs":
      if (typeof message.allowed !== "boolean") return fail("spectator-grabs needs allowed: true or false");
      return { ok: true, value: { action: "spectator-grabs", allowed: message.allowed, token } };
    case "idle-reset":
      if (typeof message.minutes !== "number" || !Number.isFinite(message.minutes) || message.minutes < 0 || message.minutes > LIMITS.idleResetMinutes) {
        return fail(`idle-reset needs minutes: a number from 0 (never) to ${LIMITS.idleResetMinutes}`);
      }
      return { ok: true, value: { action: "idle-reset", minutes: message.minutes, token } };
    default:
      return fail("admin action must be reset, material, character, kick, spectator-grabs or idle-reset");
  }
}

/** reset-table carries nothing: an empty object (or nothing at all). */
export function parseResetTable(message: unknown): Parsed<Record<string, never>> {
  if (message !== undefined && message !== null && (!isRecord(message) || Object.keys(message).length > 0)) return fail("reset-table takes no fields: send {}");
  return { ok: true, value: {} };
}

export function parseUploadTicket(message: unknown): Parsed<Record<string, never>> {
  if (message !== undefined && message !== null && (!isRecord(message) || Object.keys(message).length > 0)) return fail("upload-ticket takes no fields: send {}");
  return { ok: true, value: {} };
}

export function parseKeepalive(message: unknown): Parsed<Record<string, never>> {
  if (message !== undefined && message !== null && (!isRecord(message) || Object.keys(message).length > 0)) return fail("keepalive takes no fields: send {}");
  return { ok: true, value: {} };
}

export interface CleanJoin {
  name: string;
  role: Role;
  color: string | null;
  adminToken: string | null;
  kiosk: boolean;
}

export function parseJoinOptions(options: unknown): Parsed<CleanJoin> {
  const o = isRecord(options) ? options : {};
  const role = o.role === undefined ? "spectator" : o.role;
  if (role !== "player" && role !== "spectator") return fail('role must be "player" or "spectator"');
  let name = "";
  if (o.name !== undefined) {
    if (typeof o.name !== "string") return fail("name must be a string");
    // Printable characters only, trimmed, capped.
    name = Array.from(o.name.replace(/[\p{Cc}\p{Cf}]/gu, "").trim()).slice(0, LIMITS.nameLength).join("");
  }
  let color: string | null = null;
  if (o.color !== undefined) {
    if (typeof o.color !== "string" || !/^#[0-9a-fA-F]{6}$/.test(o.color)) return fail('color must be "#rrggbb"');
    color = o.color.toLowerCase();
  }
  const adminToken = typeof o.adminToken === "string" ? o.adminToken.slice(0, 256) : null;
  if (o.kiosk !== undefined && typeof o.kiosk !== "boolean") return fail("kiosk must be true or false");
  return { ok: true, value: { name, role, color, adminToken, kiosk: o.kiosk === true } };
}
