// Every sentence a visitor reads about something that went wrong (or happened in the room) is made here, from what
// the server or the browser said: message types, close codes, HTTP statuses, parser errors and body ids stay in
// the console, where developers look. A text this module does not recognise and that looks technical becomes a
// plain, general sentence; one that already reads as plain English passes through.

import type { GrabResultMessage, NoticeMessage, PliantRoomClient } from "../../../shared/net";
import { LIMITS, MESSAGES, UPLOAD_LIMITS } from "../../../shared/net";

/** Words and shapes no visitor should read: ids, codes, parser and protocol talk. */
const TECHNICAL = /\bcode \d{3,4}\b|\badded-[0-9a-f]{4,}\b|\bHTTP \d{3}\b|Unexpected token|\bJSON\b|Content-Type|\bundefined\b|\bnull\b|\bNaN\b|\b\w*Error\b|\[object|\bECONN\w*|Failed to fetch|\bticket\b|\bbytes\b|^[a-z]+(-[a-z]+)+: /;
/** Colyseus' own close codes (4000-4010): 4001 is the server shutting down, 4002 a room that closed on an error. */
const SERVER_SHUTDOWN_CODE = 4001;
const ROOM_FAILED_CODE = 4002;
const PROTOCOL_TYPES = new Set<string>(Object.values(MESSAGES));

/** Whether a text reads as developer talk (an id, a code, a parser's error). */
export function looksTechnical(text: string): boolean {
  return TECHNICAL.test(text);
}

/** "the dough ball" → "The dough ball". */
export function capitalise(text: string): string {
  const trimmed = text.trim();
  return trimmed && trimmed[0].toUpperCase() + trimmed.slice(1);
}

/** "the dough ball" → "The dough ball.": a capital first letter and a closing full stop. */
export function sentence(text: string): string {
  const capital = capitalise(text);
  return !capital || /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** Keeps the detail for whoever opens the console. */
function logDetail(what: string, detail: unknown): void {
  console.info(`[pliant] ${what}:`, detail instanceof Error ? detail.message : detail);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ----- names ----------------------------------------------------------------------------------------------------

/** Names seen, by id: a body that has just left the room is still called by its name in the notices about it. */
const namesSeen = new Map<string, string>();

/** "dough-ball" → "dough ball", "beetle.obj" → "beetle"; an upload's id (no name known) → "added mesh". */
export function readableName(raw: string): string {
  if (/^added-[0-9a-f]+$/i.test(raw)) return "added mesh";
  return raw.replace(/\.[a-z0-9]{2,4}$/i, "").replace(/[-_]+/g, " ").trim() || "added mesh";
}

/** What visitors call a body or character: its name in the room state (an upload's file name), else its id made readable. */
export function bodyName(client: PliantRoomClient | null | undefined, id: string): string {
  const named = client?.room.state?.bodies?.get(id)?.name;
  if (named) namesSeen.set(id, readableName(named));
  return namesSeen.get(id) ?? readableName(id);
}

/** "the dough ball", but "Suzanne" (a capitalised name reads as a proper name). */
export function theName(name: string): string {
  return /^[A-Z]/.test(name) ? name : `the ${name}`;
}

/** Replaces every body or character id the room knows (and any upload id) in a text with its readable name. */
export function withNames(client: PliantRoomClient | null | undefined, text: string): string {
  const state = client?.room.state;
  let out = text;
  for (const ids of [state?.bodies?.keys(), state?.characters?.keys()]) {
    for (const id of ids ?? []) if (out.includes(id)) out = out.split(id).join(bodyName(client, id));
  }
  return out.replace(/\badded-[0-9a-f]{4,}\b/gi, (id) => bodyName(client, id));
}

// ----- the room's notices and grabs ------------------------------------------------------------------------------

/** Why a grab could not start or ended, as the server said it (`reason`), for a body called `name`. */
function grabReasonSentence(name: string, reason: string): string | null {
  const the = capitalise(theName(name));
  if (/spectators cannot/.test(reason)) return "Join as a player to grab the bodies.";
  if (/slipped out of your hand/.test(reason)) return `${the} slipped out of your hand.`;
  // The page froze (a busy phone, a tab in the background) long enough for the room to free the body for others.
  if (/nothing was heard from you/.test(reason)) return `${the} was let go: this page went quiet for more than ${LIMITS.silentHoldSeconds} s.`;
  if (/was put back|fell/.test(reason)) return `${the} fell off the table and was put back.`;
  if (/turned spectator grabs off/.test(reason)) return "An organiser turned off grabbing for watchers. Join as a player to keep playing.";
  if (/is leaving the room|left the room|make room|made room/.test(reason)) return `${the} left the table to make room for a new upload.`;
  if (/not on the|surface/.test(reason)) return `That missed ${theName(name)}: press right on it.`;
  if (/grab starts a second|too many/.test(reason)) return "Too many grabs at once: wait a moment, then try again.";
  return null;
}

/** A grab the server ended without being asked (a slip, a body put back): what the holder reads. */
export function grabEndedSentence(client: PliantRoomClient | null, result: GrabResultMessage): string {
  const name = bodyName(client, result.body);
  logDetail(`grab on ${result.body} ended`, result.reason);
  return grabReasonSentence(name, result.reason ?? "") ?? `You let go of ${theName(name)}.`;
}

/** A grab the server refused. */
export function grabRefusedSentence(client: PliantRoomClient | null, bodyId: string, reason: string | undefined): string {
  const name = bodyId ? bodyName(client, bodyId) : "body";
  logDetail(`grab on ${bodyId} refused`, reason);
  return grabReasonSentence(name, reason ?? "") ?? `Could not grab ${theName(name)}: try again.`;
}

/** A refusal the room sent about one of this page's requests; null when a visitor has nothing to do about it. */
function refusalSentence(client: PliantRoomClient | null, raw: string): string | null {
  // "grab-move: no grab held by pointer": a message type and the problem with it.
  const typed = /^([a-z-]+): (.*)$/s.exec(raw);
  const problem = typed && PROTOCOL_TYPES.has(typed[1]) ? typed[2] : raw;
  const spectators = /spectators cannot (.+?) in this room/.exec(problem);
  if (spectators) return sentence(`Join as a player to ${spectators[1].replace(/^add meshes$/, "add a mesh")}`);
  const reset = /just reset; try again in (\d+) s/.exec(problem);
  if (reset) return `The table was just reset: try again in ${reset[1]} s.`;
  const material = /^the (.+?) changed material/.exec(problem);
  if (material) return `The material of ${theName(bodyName(client, material[1]))} changed a moment ago: wait a few seconds.`;
  if (/too many pokes/.test(problem)) return "Too many fingers on the bodies right now: try again in a moment.";
  // Dropped inputs (a move after the grab ended, a message too many): the page has nothing to show for them.
  return null;
}

/** A notice from the room as a visitor reads it, or null when it is for the console only. */
export function noticeSentence(client: PliantRoomClient | null, notice: NoticeMessage): string | null {
  logDetail(`room notice (${notice.kind})`, notice.message);
  switch (notice.kind) {
    case "rejected":
      return refusalSentence(client, notice.message);
    case "kicked":
      return /admin|organiser/.test(notice.message)
        ? "An organiser removed you from the room. You can keep watching, or join again."
        : "The room disconnected this page because it sent too much at once. You are watching again.";
    case "upload": {
      const failed = /^(.*?) could not be added: (.*)$/s.exec(notice.message);
      if (failed) return `${capitalise(readableName(failed[1]))} could not be added: ${uploadReasonText(failed[2])}`;
      const text = withNames(client, notice.message);
      return looksTechnical(text) ? null : sentence(text);
    }
    default: {
      const text = withNames(client, notice.message).replace(/\ban admin\b/g, "an organiser");
      return looksTechnical(text) ? null : sentence(text);
    }
  }
}

/**
 * A message another part of the page made ("Could not grab added-1a2b3c4d: the point is not on the body's
 * surface", "grab refused: ..."): ids become names, and anything still technical becomes a general sentence.
 */
export function pageNoticeSentence(client: PliantRoomClient | null, raw: string): string | null {
  const grab = /^(?:could not grab|grab refused)(?: (\S+?))?: (.*)$/is.exec(raw);
  if (grab) return grabRefusedSentence(client, grab[1] ?? "", grab[2]);
  const text = withNames(client, raw);
  if (!looksTechnical(text)) return sentence(text);
  logDetail("page notice", raw);
  return null;
}

// ----- the connection ----------------------------------------------------------------------------------------

/** What the connection's error means for a visitor (connection.error from room/room-connection.ts), or null. */
export function connectionSentence(error: string | null): string | null {
  if (!error) return null;
  const code = Number(/\bcode (\d+)/.exec(error)?.[1] ?? NaN);
  if (/removed from the room|kicked/i.test(error)) return "An organiser removed you from the room. You are watching again.";
  if (code === SERVER_SHUTDOWN_CODE) return "The server restarted: joining again…";
  if (code === ROOM_FAILED_CODE) return "The room ran into a problem and closed: joining a new one…";
  if (/getting your seat back/.test(error)) return "Connection lost: getting your seat back…";
  if (Number.isFinite(code)) return "The connection dropped: joining again…";
  if (/^cannot join/i.test(error)) {
    logDetail("join failed", error);
    return `${joinProblem(error.replace(/^cannot join:\s*/i, ""))} Trying again…`;
  }
  if (!looksTechnical(error)) return sentence(error);
  logDetail("connection", error);
  return "The connection is having trouble: trying again…";
}

/** Why a join failed (the server's reason or the browser's), in a visitor's words. */
function joinProblem(reason: string): string {
  const full = /the room is full \((\d+) (players|spectators)\)/.exec(reason);
  if (full) return `The room is full (${full[1]} ${full[2] === "players" ? "players" : "watchers"}).`;
  if (/seat reservation expired|took too long|timed? ?out/i.test(reason)) return "The room took too long to answer.";
  if (/failed to fetch|networkerror|econn|refused|offline|load failed/i.test(reason)) return "The server cannot be reached.";
  if (/closed/.test(reason)) return "That room has closed.";
  return "Could not join the room.";
}

/** A failed "Join as player", for the join form. */
export function joinErrorSentence(error: unknown): string {
  const reason = messageOf(error);
  logDetail("join as player failed", error);
  const problem = joinProblem(reason);
  return /is full/.test(problem) ? `${problem} You can keep watching.` : `${problem} Please try again.`;
}

// ----- uploads -----------------------------------------------------------------------------------------------------

/** Why a mesh was refused or could not be baked (a server's or a parser's reason), as a visitor reads it. */
export function uploadReasonText(reason: string): string {
  const maxMb = UPLOAD_LIMITS.maxBytes / 1024 / 1024;
  const rules: [RegExp, string][] = [
    [/spectators cannot add/, "join as a player to add a mesh."],
    [/HTTP 413|bytes; the limit|over \d+ bytes|too large|entity/i, `the file is larger than ${maxMb} MB.`],
    [/supported mesh files|Content-Type|HTTP 415|unknown mesh format/i, "only .glb, .gltf, .obj and .stl files can be added."],
    [/uploads a minute/, "too many uploads from here: wait a minute, then try again."],
    [/tickets at once|baking other uploads|baking already|still baking|HTTP 429|HTTP 503/i, "the server is busy with other uploads: try again in a few seconds."],
    [/ticket|HTTP 401/i, "the room took too long to accept it: please try again."],
    [/external file/, "it needs other files beside it: upload a .glb, or a .gltf with everything inside it."],
    [/compression|draco|meshopt/i, "it is compressed: export it without mesh compression."],
    [/pixels a side|image/i, "its texture is too large (4096 pixels a side at most)."],
    [/flat|thickness/i, "it is flat: it needs some thickness to be soft."],
    [/no (faces|triangles|facets|triangle primitives)|degenerate|no extent|empty/i, "the file has no surface to make soft."],
    [/triangles; the limit|vertices; the limit|too many/i, "the mesh is too detailed: simplify it and try again."],
    [/CPU|took longer|seconds of work/i, "it took the server too long to make it soft: try a simpler mesh."],
    [/did not load/, "it could not be fetched from the server: please try again."],
    [/failed to fetch|networkerror|network|load failed/i, "it did not reach the server: check the connection and try again."],
    [/room .* is gone|has left the room|closed/i, "the room it was for has closed."],
    [/stopped answering|bake was lost|shutting down|HTTP 5\d\d/i, "the server stopped working on it: please try again."],
    [/not an STL|could not read|could not parse|malformed|not an object|version|GLB|glTF|OBJ|STL|Unexpected token|JSON/i, "the file could not be read as a 3D mesh."],
  ];
  for (const [pattern, text] of rules) if (pattern.test(reason)) return text;
  return "the server could not make it soft.";
}

/** A file or gallery mesh that was not added (`label`: the file's name), with why. */
export function uploadErrorSentence(label: string, error: unknown): string {
  logDetail(`upload of ${label} failed`, error);
  return `${label} was not added: ${uploadReasonText(messageOf(error))}`;
}

/** A readable name for an uploaded file: "beetle" from "beetle.obj". */
export function uploadLabel(fileName: string): string {
  return readableName(fileName.replace(/^.*[\\/]/, "")) || "your upload";
}

// ----- the page ------------------------------------------------------------------------------------------------

/** A body's bake did not reach the page. */
export function bodyLoadSentence(message: string): string {
  logDetail("body failed to load", message);
  return "A body could not be loaded: reload the page to try again.";
}

/** The browser would not start a VR or AR session. */
export function enterXrSentence(mode: "vr" | "ar", error: unknown): string {
  logDetail(`enter ${mode}`, error);
  return `This browser could not start ${mode.toUpperCase()}: check the headset and try again.`;
}

/** The admin page could not open the room. */
export function adminErrorSentence(error: unknown): string {
  const reason = messageOf(error);
  logDetail("admin page", error);
  if (/wrong admin token/.test(reason)) return "Wrong admin token.";
  if (/failed to fetch|networkerror|refused/i.test(reason)) return "The server cannot be reached: is it running?";
  return looksTechnical(reason) ? "The room could not be opened: please try again." : sentence(reason);
}
