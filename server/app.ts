// The Pliant server: one HTTP port serves the client, baked bodies and the Colyseus rooms. Used by `npm start`
// (server/main.ts), by tests and by the load benchmark, each with its own port.

import "./websocket-global";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { matchMaker, Server, LocalPresence, type Presence } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { countClientBytes, type ClientBytes } from "./client-bytes";
import express from "express";
import { LIMITS, ROOM_NAME, UPLOAD_LIMITS } from "../shared/net";
import type { SkinningFieldProvider } from "../shared/skinning";
import { installAdminRoutes } from "./admin-routes";
import { colyseusLogger } from "./logging/colyseus-logger";
import { guardMatchmaking, DEFAULT_MATCHMAKE_LIMITS, type MatchmakeLimits } from "./matchmaking/matchmake-guard";
import { installMatchmakePolicy } from "./matchmaking/matchmake-policy";
import { ensurePublicRoom, publicRoomId as currentPublicRoomId } from "./matchmaking/public-room";
import { characterFields, configurePlayground, playgroundConfig, roomFields } from "./room/playground-config";
import { PlaygroundRoom } from "./room/playground-room";
import { BAKE_CACHE_DIRECTORY, clientBakeFile } from "./world/bake-cache";
import { ASSET_DIRECTORY, bakeBodies } from "./world/playground-bodies";
import { bakeCharacters } from "./world/playground-characters";
import { SharedBakes } from "./world/shared-bakes";
import { CompressedBakes } from "./world/compressed-bakes";
import { Baker } from "./uploads/baker";
import { installUploadRoutes } from "./upload-routes";
import { installGalleryRoutes } from "./uploads/gallery";
import { UPLOAD_BAKE_DIRECTORY } from "./world/upload-store";
import { SECONDARY_MODEL_DIRECTORY } from "./characters/secondary-model";
import { builtClient, CompressedFiles } from "./static/compressed-static";

const ROOT = path.resolve(import.meta.dirname, "..");
const CLIENT_BUILD = path.join(ROOT, "client/dist");
const PLACEHOLDER_PAGE = path.join(ROOT, "server/placeholder");
/** Controller and hand models for WebXR, served by us: headsets at a trade show may have no internet. */
const INPUT_PROFILES = path.join(ROOT, "node_modules/@webxr-input-profiles/assets/dist/profiles");
const DAY_CACHE = "public, max-age=86400";
const HOUR_CACHE = "public, max-age=3600";

export interface ServerSettings {
  port: number;
  host: string;
  /** Colyseus Redis presence and driver: many processes share the matchmaker. */
  redisUrl?: string;
  /** Admin token; one is generated when empty. */
  adminToken?: string;
  provider?: SkinningFieldProvider;
  providerKey?: string;
  /** Bake the room's bodies with cubature fitted to their fields (default FIT_CUBATURE_BY_DEFAULT). */
  fitCubature?: boolean;
  /** The address other processes reach this one at (scale-out), host:port. */
  publicAddress?: string;
  /** Serve https and wss with this certificate (headsets need https for WebXR away from localhost). */
  tls?: { key: string; cert: string };
  /** Seconds a dropped client's seat waits for it to reconnect (default 20). */
  reconnectSeconds?: number;
  /** Minutes without a grab or a poke after which a room's table is reset (default 5; 0: never). */
  idleResetMinutes?: number;
  /** Seconds between the bounces of an idle room's bodies while a kiosk watches (default 20; 0: never). */
  attractWobbleSeconds?: number;
  /**
   * Start the upload workers with the server and warm them up (load the network, bake a small box), so the first
   * upload is as quick as the next (main.ts does; default false: tests and benchmarks that upload nothing never
   * pay for it).
   */
  warmUploads?: boolean;
  /** Largest extent uploaded meshes are scaled to, m (default UPLOAD_LIMITS.defaultSize). */
  uploadSize?: number;
  /** Uploads per client address (defaults: UPLOAD_LIMITS.uploadsPerMinute and uploadBurst). */
  uploadRate?: { perMinute: number; burst: number };
  /** Origins besides the server's own whose pages may call the matchmaking endpoints (CORS). */
  allowedOrigins?: string[];
  /** Limits on the matchmaking endpoints (defaults: DEFAULT_MATCHMAKE_LIMITS). */
  matchmakeLimits?: Partial<MatchmakeLimits>;
  log?: (line: string) => void;
}

export interface RunningServer {
  port: number;
  adminToken: string;
  /** The room the server made at start, which everyone joins. */
  publicRoomId: string;
  /** Addresses a headset on the local network can open. */
  urls: string[];
  /** Bytes written to clients' WebSockets since the server started, closed ones included, and the sockets open now. */
  clientBytes(): ClientBytes;
  /** Settles when the upload workers' warm-up is over: true when they warmed up (false at once without `warmUploads`). */
  uploadsWarm: Promise<boolean>;
  close(): Promise<void>;
}

export async function startServer(settings: ServerSettings): Promise<RunningServer> {
  const log = settings.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const adminToken = settings.adminToken || randomBytes(12).toString("base64url");
  configurePlayground({
    adminToken, log,
    ...(settings.provider ? { fields: { provider: settings.provider, providerKey: settings.providerKey ?? settings.provider.name } } : {}),
    ...(settings.fitCubature !== undefined ? { fitCubature: settings.fitCubature } : {}),
    ...(settings.reconnectSeconds !== undefined ? { reconnectSeconds: settings.reconnectSeconds } : {}),
    ...(settings.idleResetMinutes !== undefined ? { idleResetMinutes: settings.idleResetMinutes } : {}),
    ...(settings.attractWobbleSeconds !== undefined ? { attractWobbleSeconds: settings.attractWobbleSeconds } : {}),
  });
  // Bake the default scene now (or find it in the cache): a missing asset fails here with a clear message, and the
  // first person to join does not wait for bakes.
  const config = playgroundConfig();
  const fields = await roomFields();
  const baked = await bakeBodies(config.layout.bodies, fields.provider, fields.providerKey, config.fitCubature);
  const characterChoice = await characterFields();
  const characters = await bakeCharacters(config.layout.characters ?? [], characterChoice.provider, characterChoice.providerKey, config.fitCubature);
  // With Redis, bakes are shared: a client may fetch through this process a body another process baked.
  const sharedBakes = settings.redisUrl ? new SharedBakes(settings.redisUrl) : null;
  await sharedBakes?.publish([...baked, ...characters].map((b) => b.bake.hash));
  if (sharedBakes) configurePlayground({ fetchSharedBake: (hash) => sharedBakes.fetchWhole(hash) });
  if (settings.uploadSize !== undefined) {
    if (!(settings.uploadSize >= UPLOAD_LIMITS.minSize && settings.uploadSize <= UPLOAD_LIMITS.maxSize)) throw new Error(`uploadSize must be ${UPLOAD_LIMITS.minSize}-${UPLOAD_LIMITS.maxSize} m, got ${settings.uploadSize}`);
    configurePlayground({ uploadSize: settings.uploadSize });
  }
  // Uploads bake on one worker thread, started by the first upload or, warmed up, once the server listens.
  const baker = new Baker({ weights: fields.provider.name, providerKey: fields.providerKey, fitCubature: config.fitCubature });

  let presence: Presence = new LocalPresence();
  let driver: matchMaker.MatchMakerDriver | undefined;
  if (settings.redisUrl) {
    const { RedisPresence } = await import("@colyseus/redis-presence");
    const { RedisDriver } = await import("@colyseus/redis-driver");
    presence = new RedisPresence(settings.redisUrl);
    driver = new RedisDriver(settings.redisUrl);
  }
  const compressedBakes = new CompressedBakes();
  const compressedFiles = new CompressedFiles();
  /** Known once listening (port 0 picks one); requests come after that. */
  let listeningPort = settings.port;
  const transport = new WebSocketTransport({ maxPayload: LIMITS.maxPayload, ...(settings.tls ? { server: createHttpsServer(settings.tls) } : {}) });
  const clientBytes = countClientBytes(transport);
  const server = new Server({
    transport, presence, driver, gracefullyShutdown: false, greet: false, publicAddress: settings.publicAddress,
    logger: colyseusLogger(log),
    express: (app) => {
      app.disable("x-powered-by");
      app.get("/bakes/:hash", async (req, res) => {
        const hash = String(req.params.hash);
        if (!/^[0-9a-f]{32}$/.test(hash)) return void res.status(400).type("text/plain").send("a bake hash is 32 hex digits");
        try {
          // The client copy (without render weights the browser computes itself), or the whole bake, or another
          // process's client copy (Redis).
          const bytes = await readFile(clientBakeFile(hash)).catch(() => readFile(path.join(BAKE_CACHE_DIRECTORY, `${hash}.bake`)))
            .catch(() => readFile(clientBakeFile(hash, UPLOAD_BAKE_DIRECTORY)))
            .catch(async () => (await sharedBakes?.fetch(hash)) ?? Promise.reject(new Error("no bake")));
          // X-Bake-Length: the decoded size, for a page's progress bar (Content-Length counts compressed bytes).
          res.type("application/octet-stream").set("Cache-Control", "public, max-age=31536000, immutable").set("Vary", "Accept-Encoding").set("X-Bake-Length", String(bytes.length));
          if (!/\bbr\b/.test(req.get("accept-encoding") ?? "")) return void res.send(bytes);
          res.set("Content-Encoding", "br").send(await compressedBakes.get(hash, bytes));
        } catch {
          res.status(404).type("text/plain").send(`no bake ${hash}`);
        }
      });
      // Base-colour textures shipped beside the asset meshes (a layout's SoftBodySpec.texture).
      app.get("/textures/:file", (req, res) => {
        const file = String(req.params.file);
        if (!/^[a-z0-9_-]+\.png$/.test(file)) return void res.status(400).type("text/plain").send("a texture is NAME.png (lower-case letters, digits, - and _)");
        res.sendFile(path.join(ASSET_DIRECTORY, file), { maxAge: "1d" }, (error) => {
          if (error && !res.headersSent) res.status(404).set("Cache-Control", "no-store").type("text/plain").send(`no texture ${file}`);
        });
      });
      // Uploaded glTFs' base-colour images, kept beside their bakes (or another process's, through Redis).
      app.get("/uploaded-textures/:file", async (req, res) => {
        const file = String(req.params.file);
        if (!/^[0-9a-f]{32}\.(png|jpg|webp)$/.test(file)) return void res.status(400).type("text/plain").send("an uploaded texture is <32 hex digits>.png, .jpg or .webp");
        const bytes = await readFile(path.join(UPLOAD_BAKE_DIRECTORY, file)).catch(async () => (await sharedBakes?.fetchTexture(file)) ?? null);
        if (!bytes) return void res.status(404).set("Cache-Control", "no-store").type("text/plain").send(`no texture ${file}`);
        // Named by its content, and checked to be the image its name says (world/upload-store.ts).
        res.type(path.extname(file)).set({ "Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff" }).send(bytes);
      });
      app.get("/status", async (_req, res) => {
        const rooms = await matchMaker.query({ name: ROOM_NAME });
        res.json({ rooms: rooms.map((r) => ({ roomId: r.roomId, clients: r.clients, maxClients: r.maxClients })) });
      });
      // Where phones and headsets should go (the stand's QR code): the address the asking page was opened by,
      // unless that is loopback (the stand's own laptop), then the machine's first LAN address; https with TLS.
      app.get("/join-address", (req, res) => {
        const scheme = settings.tls ? "https" : "http";
        const urls = lanUrls(settings.host, listeningPort, scheme);
        const host = req.get("host") ?? "";
        const opened = /^(localhost|127\.|\[::1\])/.test(host) || !/^[\w.:[\]-]+$/.test(host) ? null : `${scheme}://${host}`;
        res.set("Cache-Control", "no-store").json({ url: opened ?? urls[0], urls });
      });
      installAdminRoutes(app, adminToken);
      installGalleryRoutes(app, ASSET_DIRECTORY);
      installUploadRoutes(app, {
        presence, adminToken, baker, publicRoomId: currentPublicRoomId, log, ...(settings.uploadRate ? { rate: settings.uploadRate } : {}),
        ...(sharedBakes ? { shareBake: (hash: string, texture?: string) => sharedBakes.publishWhole(hash, texture) } : {}),
      });
      app.use("/profiles", ...compressedFiles.folder(INPUT_PROFILES, DAY_CACHE));
      // The skinning decoder: pages refine the default fields with it, and evaluate the network's own (SKINNING=model-raw).
      app.get("/models/skinning-decoder.onnx", (req, res, next) => {
        compressedFiles.send(req, res, path.join(ROOT, "models/skinning-decoder.onnx"), DAY_CACHE, () => res.status(404).json({ error: "no skinning decoder" })).catch(next);
      });
      // Characters' secondary-motion networks, which pages run while the network alone moves a character's flesh.
      app.get(/^\/models\/(secondary-[a-z0-9_-]+)\.(onnx|json)$/i, (req, res, next) => {
        const [name, kind] = [req.params[0], req.params[1]];
        compressedFiles.send(req, res, path.join(SECONDARY_MODEL_DIRECTORY, `${name}.${kind}`), HOUR_CACHE, () => res.status(404).json({ error: `no network ${name}` })).catch(next);
      });
      // The built client, compressed at build time (its hashed assets cached for good), or a page saying to build it.
      app.use(...(existsSync(CLIENT_BUILD) ? builtClient(CLIENT_BUILD) : [express.static(PLACEHOLDER_PAGE, { index: "index.html" })]));
    },
  });
  server.define(ROOM_NAME, PlaygroundRoom);
  installMatchmakePolicy({ adminToken, allowedOrigins: settings.allowedOrigins ?? [] });
  await server.listen(settings.port, settings.host);
  if (transport.server) guardMatchmaking(transport.server, { ...DEFAULT_MATCHMAKE_LIMITS, ...settings.matchmakeLimits });
  const publicRoomId = await ensurePublicRoom();
  const address = transport.server?.address();
  const port = typeof address === "object" && address ? address.port : settings.port;
  listeningPort = port;
  // Only now: a server that failed to start leaves no worker behind.
  const uploadsWarm = settings.warmUploads ? baker.warm() : Promise.resolve(false);
  return {
    port,
    adminToken,
    publicRoomId,
    urls: lanUrls(settings.host, port, settings.tls ? "https" : "http"),
    clientBytes,
    uploadsWarm,
    close: async () => {
      await server.gracefullyShutdown(false);
      await baker.close();
      await sharedBakes?.close();
    },
  };
}

function lanUrls(host: string, port: number, scheme: string): string[] {
  if (host !== "0.0.0.0" && host !== "::") return [`${scheme}://${host}:${port}`];
  const urls = lanAddresses().map((address) => `${scheme}://${address}:${port}`);
  return urls.length ? urls : [`${scheme}://localhost:${port}`];
}

/** This machine's IPv4 addresses on its networks (what a headset in the same network can reach). */
export function lanAddresses(): string[] {
  const found: string[] = [];
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === "IPv4" && !a.internal) found.push(a.address);
  }
  return found;
}
