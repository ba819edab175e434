// Limits on the matchmaking endpoints, applied before Colyseus reads a request: a join's options are a few hundred
// bytes, so a bigger body is refused unread (413); they are JSON, and anything else is refused (415), because a
// foreign page may send text/plain or a form across origins without a preflight, and CORS only hides the answer
// from it, not the seat it reserved; and one address may ask for at most so many seats in a window (429), so that
// fake reservations from one phone cannot crowd a room. Other requests pass untouched.

import type { IncomingMessage, Server, ServerResponse } from "node:http";

export interface MatchmakeLimits {
  /** Largest request body, bytes. */
  maxBodyBytes: number;
  /** Matchmaking requests one address may make per window. */
  requestsPerAddress: number;
  windowMs: number;
}

export const DEFAULT_MATCHMAKE_LIMITS: Readonly<MatchmakeLimits> = Object.freeze({
  maxBodyBytes: 4096,
  requestsPerAddress: 20,
  windowMs: 10_000,
});

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Puts the limits in front of the server's request listeners (call after they are all registered). */
export function guardMatchmaking(server: Server, limits: MatchmakeLimits): void {
  const listeners = server.listeners("request") as Listener[];
  server.removeAllListeners("request");
  const recent = new Map<string, number[]>();
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    for (const listener of listeners) listener.call(server, req, res);
  };
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST" || !req.url?.startsWith("/matchmake/")) return forward(req, res);
    const length = Number(req.headers["content-length"] ?? NaN);
    if (!Number.isFinite(length)) return refuse(req, res, 411, "a matchmaking request needs a Content-Length");
    if (length > limits.maxBodyBytes) return refuse(req, res, 413, `join options are at most ${limits.maxBodyBytes} bytes`);
    const type = mediaType(req.headers["content-type"]);
    if (type !== "application/json") return refuse(req, res, 415, `matchmaking requests carry their options as JSON: send Content-Type: application/json (got "${type.slice(0, 60)}")`);
    const address = req.socket.remoteAddress ?? "";
    const now = Date.now(), times = (recent.get(address) ?? []).filter((t) => now - t < limits.windowMs);
    if (times.length >= limits.requestsPerAddress) {
      recent.set(address, times);
      res.setHeader("Retry-After", String(Math.ceil((limits.windowMs - (now - times[0])) / 1000)));
      return refuse(req, res, 429, `too many join requests from this address (${limits.requestsPerAddress} in ${limits.windowMs / 1000} s)`);
    }
    times.push(now);
    recent.set(address, times);
    if (recent.size > 10_000) forget(recent, now, limits.windowMs);
    forward(req, res);
  });
}

/** A Content-Type's media type, lower case, without its parameters (a charset may come with JSON). */
function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0].trim().toLowerCase();
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string): void {
  // The body is never read: the socket closes once the answer is out.
  res.writeHead(status, { "Content-Type": "application/json", Connection: "close" });
  res.end(JSON.stringify({ error }), () => req.socket.destroy());
}

/** Drops addresses with no request in the window (the map must not grow with every address ever seen). */
function forget(recent: Map<string, number[]>, now: number, windowMs: number): void {
  for (const [address, times] of recent) if (!times.some((t) => now - t < windowMs)) recent.delete(address);
}
