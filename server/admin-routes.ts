// The operator's HTTP side: the admin page itself and its figures. The token travels in an Authorization header,
// never in a URL that gets shared or logged; an address that keeps guessing wrong tokens is told to wait.

import { matchMaker } from "@colyseus/core";
import type { Application } from "express";
import { ROOM_NAME, type AdminStats } from "../shared/net";
import { adminTokenMatches } from "./admin/admin-token";
import type { PlaygroundRoom } from "./room/playground-room";

/** Wrong tokens an address may send per minute before /admin/stats answers 429. */
const WRONG_TOKENS_PER_MINUTE = 10;
const MINUTE_MS = 60_000;
/** Addresses remembered at most (the oldest are forgotten first). */
const TRACKED_ADDRESSES = 1024;

export function installAdminRoutes(app: Application, adminToken: string): void {
  const wrong = new Map<string, { since: number; count: number }>();
  app.get("/admin/stats", async (req, res) => {
    const address = req.socket.remoteAddress ?? "?", now = Date.now();
    let record = wrong.get(address);
    if (record && now - record.since > MINUTE_MS) {
      wrong.delete(address);
      record = undefined;
    }
    if (record && record.count >= WRONG_TOKENS_PER_MINUTE) {
      return void res.status(429).set("Retry-After", String(Math.ceil((record.since + MINUTE_MS - now) / 1000))).type("text/plain").send("too many wrong admin tokens; wait a minute");
    }
    const given = /^Bearer (.+)$/.exec(req.get("authorization") ?? "")?.[1];
    if (!adminTokenMatches(adminToken, given)) {
      if (!record) {
        if (wrong.size >= TRACKED_ADDRESSES) wrong.delete(wrong.keys().next().value!);
        wrong.set(address, (record = { since: now, count: 0 }));
      }
      record.count++;
      return void res.status(401).type("text/plain").send("an admin token is needed (Authorization: Bearer TOKEN)");
    }
    const rooms = await matchMaker.query({ name: ROOM_NAME });
    const local = rooms.map((r) => matchMaker.getLocalRoomById(r.roomId) as PlaygroundRoom | undefined).filter((r) => r !== undefined);
    res.set("Cache-Control", "no-store").json({ at: now, rooms: local.map((room) => room.adminStats()) } satisfies AdminStats);
  });
  // The page itself is the built admin.html, served by the client's static handler (compressed, revalidated).
  app.get("/admin", (req, _res, next) => {
    req.url = "/admin.html";
    next();
  });
}
