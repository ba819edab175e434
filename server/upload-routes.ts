// POST /meshes: a visitor's mesh becomes a soft body in their room. The file is checked (type, size, rate, the
// ticket or admin token), parsed and baked by the process's baker (worker threads), and the room is told through
// remoteRoomCall, so that with Redis the room may live in another process. Answers 202 { id, hash } once the file
// parsed, never waiting for other uploads' bakes (the room then shows its place in line and progress, and the body
// appears in the room state when baked), or { error } with 400, 401, 409, 413, 415, 429, 500 or 503.

import { randomBytes } from "node:crypto";
import { matchMaker, type Presence } from "@colyseus/core";
import express, { type Application, type NextFunction, type Request, type Response } from "express";
import type { MeshFormat } from "../shared/geometry";
import { UPLOAD_LIMITS } from "../shared/net";
import { adminTokenMatches } from "./admin/admin-token";
import { RateLimiter } from "./room/rate-limiter";
import { ADMIN_OWNER } from "./room/added-bodies";
import type { PlaygroundRoom } from "./room/playground-room";
import { UploadError, type Baker, type BakeStatus } from "./uploads/baker";
import { redeemUploadTicket, type TicketHolder } from "./uploads/upload-tickets";
import { keepPreparedShape } from "./uploads/prepared-shapes";
import { playgroundConfig } from "./room/playground-config";

/** The Content-Types a mesh may be sent as, and the format each names. */
export const MESH_CONTENT_TYPES: Readonly<Record<string, MeshFormat>> = Object.freeze({
  "model/gltf-binary": "glb",
  "model/gltf+json": "gltf",
  "model/obj": "obj",
  "model/stl": "stl",
});

/** Clients' addresses remembered for the upload rate; the least recently seen are forgotten beyond this. */
const RATE_CLIENTS = 4096;
/** How long a call into a room (maybe in another process) may take, ms: placing a body can take a quarter second. */
const ROOM_CALL_MS = 10_000;

export interface UploadRouteSettings {
  presence: Presence;
  adminToken: string;
  baker: Baker;
  /** The room an admin's upload goes to when it names none. */
  publicRoomId: () => string;
  /** Shares a finished bake with other processes (Redis), before the room is told. */
  shareBake?: (hash: string, texture?: string) => Promise<void>;
  /** Uploads per client address: sustained per minute, and burst (defaults: UPLOAD_LIMITS'). */
  rate?: { perMinute: number; burst: number };
  log: (line: string) => void;
}

export function installUploadRoutes(app: Application, settings: UploadRouteSettings): void {
  const rates = new Map<string, RateLimiter>(), perMinute = settings.rate?.perMinute ?? UPLOAD_LIMITS.uploadsPerMinute;
  const rateFor = (address: string): RateLimiter => {
    const key = addressKey(address);
    let limiter = rates.get(key);
    // Least recently used first out: a refreshed entry goes to the back.
    if (limiter) rates.delete(key);
    else {
      if (rates.size >= RATE_CLIENTS) rates.delete(rates.keys().next().value!);
      limiter = new RateLimiter(perMinute / 60, settings.rate?.burst ?? UPLOAD_LIMITS.uploadBurst);
    }
    rates.set(key, limiter);
    return limiter;
  };
  /** Uploads past the screen whose bodies are still being read (the baker's queue counts them too). */
  let reading = 0;
  const fail = (res: Response, status: number, error: string) => void res.status(status).set("Cache-Control", "no-store").json({ error });

  /** What is checked before a byte of the body is read: its type, size, the address's rate, the ticket or token, the queue. */
  const screen = async (req: Request, res: Response, next: NextFunction) => {
    const type = (req.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (!(type in MESH_CONTENT_TYPES)) return fail(res, 415, `Content-Type must be one of ${Object.keys(MESH_CONTENT_TYPES).join(", ")}; got "${type.slice(0, 60)}"`);
    const encoding = (req.get("content-encoding") ?? "identity").toLowerCase();
    if (encoding !== "identity") return fail(res, 415, `send the file as it is: Content-Encoding "${encoding.slice(0, 30)}" is not accepted`);
    const length = Number(req.get("content-length") ?? NaN);
    if (length > UPLOAD_LIMITS.maxBytes) return fail(res, 413, `the file is ${length} bytes; the limit is ${UPLOAD_LIMITS.maxBytes}`);
    const bearer = /^Bearer (.+)$/.exec(req.get("authorization") ?? "")?.[1];
    const token = bearer ?? (typeof req.query.token === "string" ? req.query.token : undefined);
    if (typeof req.query.ticket !== "string" && token === undefined) return fail(res, 401, "an upload needs ?ticket= (ask the room with the upload-ticket message) or the admin token (?token= or Authorization: Bearer)");
    if (!rateFor(req.ip ?? "unknown").take()) return fail(res, 429, `at most ${perMinute} uploads a minute from one address`);
    if (settings.baker.jobs + reading > UPLOAD_LIMITS.queuedBakes) return fail(res, 429, "the server is baking other uploads; try again in a few seconds");
    let holder: TicketHolder | null;
    if (typeof req.query.ticket === "string") {
      holder = await redeemUploadTicket(settings.presence, req.query.ticket);
      if (!holder) return fail(res, 401, "the ticket is unknown, expired or already used: ask the room for a new one");
    } else {
      if (!adminTokenMatches(settings.adminToken, token!)) return fail(res, 401, "wrong admin token");
      holder = { roomId: typeof req.query.room === "string" ? req.query.room : settings.publicRoomId(), owner: ADMIN_OWNER };
    }
    res.locals.holder = holder;
    reading++;
    res.once("close", () => reading--);
    next();
  };
  const readBody = express.raw({ type: () => true, limit: UPLOAD_LIMITS.maxBytes, inflate: false });

  app.post("/meshes", screen, readBody, async (req: Request, res: Response) => {
    const holder = res.locals.holder as TicketHolder;
    const format = MESH_CONTENT_TYPES[(req.get("content-type") ?? "").split(";")[0].trim().toLowerCase()];
    const bytes = Buffer.isBuffer(req.body) ? new Uint8Array(req.body.buffer, req.body.byteOffset, req.body.byteLength) : new Uint8Array(0);
    if (bytes.byteLength === 0) return fail(res, 400, "the request has no file: send the mesh as the body");
    const name = uploadName(req.query.name, format);
    const id = `added-${randomBytes(4).toString("hex")}`;
    const call = <T>(method: keyof PlaygroundRoom, args: unknown[]) => matchMaker.remoteRoomCall(holder.roomId, method, args, ROOM_CALL_MS) as Promise<T>;
    let announced = false, latest: BakeStatus | undefined;
    const tell = (status: BakeStatus) => void call("uploadProgress", [id, status.stage, status.progress, status.ahead, status.secondsLeft]).catch(() => undefined);
    const size = playgroundConfig().uploadSize;
    // The job keeps its own copy (a Buffer's memory may be pooled and reused once this request ends).
    const job = settings.baker.bake(bytes.slice(), format, size, (status) => {
      latest = status;
      if (announced) tell(status);
    });
    let hash: string, character: boolean;
    try {
      ({ hash, character } = await job.parsed);
    } catch (error) {
      const status = error instanceof UploadError ? error.status : 500;
      return fail(res, status, error instanceof Error ? error.message : String(error));
    }
    let answer: { ok: true } | { ok: false; reason: string };
    try {
      answer = await call<typeof answer>("announceUpload", [id, holder.owner, name, character]);
    } catch {
      answer = { ok: false, reason: "the room it was for has closed" };
    }
    if (!answer.ok) {
      // The bake goes on: it is cached for the next try.
      return fail(res, 409, answer.reason);
    }
    announced = true;
    // Its place in line may have been told before the room knew it.
    if (latest) tell(latest);
    res.status(202).set("Cache-Control", "no-store").json({ id, hash, kind: character ? "character" : "body" });
    try {
      const baked = await job.baked;
      await settings.shareBake?.(baked.hash, baked.texture);
      keepPreparedShape(baked.hash, baked.shapeSize, baked.shape);
      await call("uploadBaked", [id, baked.hash, baked.texture ? `/uploaded-textures/${baked.texture}` : ""]);
      settings.log(`upload ${id} (${name}, ${bytes.byteLength} bytes) baked${baked.fromCache ? " (from the cache)" : ""} into room ${holder.roomId}`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      settings.log(`upload ${id} (${name}) failed: ${reason}`);
      await call("uploadFailed", [id, reason]).catch(() => undefined);
    }
  });
  // The body reader's refusals (too large, cut short) as JSON like the rest.
  app.use("/meshes", (error: Error & { status?: number; type?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 400;
    fail(res, status, error.type === "entity.too.large" ? `the file is over ${UPLOAD_LIMITS.maxBytes} bytes` : `the upload failed: ${error.message}`);
  });
}

/**
 * Whom the rate counts: an IPv4 address, or an IPv6 address's /64 (one home or phone gets a whole /64, and can
 * step through it).
 */
export function addressKey(address: string): string {
  if (!address.includes(":") || /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address)) return address.replace(/^::ffff:/i, "");
  const [head, tail = ""] = address.split("::");
  const front = head ? head.split(":") : [], back = address.includes("::") && tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...front, ...Array(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back] : address.split(":");
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

/** A display name from ?name= (printable, trimmed, at most UPLOAD_LIMITS.nameLength characters), or the format's. */
function uploadName(value: unknown, format: MeshFormat): string {
  const cleaned = typeof value === "string" ? value.replace(/[\p{C}<>]/gu, "").trim().slice(0, UPLOAD_LIMITS.nameLength) : "";
  return cleaned || `a ${format.toUpperCase()} mesh`;
}
