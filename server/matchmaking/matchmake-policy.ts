// Who may do what through Colyseus' matchmaking endpoints (POST /matchmake/<method>/<room>), and which web pages may
// call them. The server makes its public room itself (public-room.ts); over HTTP, `create` needs the admin token
// and `joinOrCreate` only joins, so that nobody can make rooms at will or be split from their friends into a new
// one. Cross-origin calls are answered only for the app's own origin and the origins the operator allows.

import { matchMaker, ServerError } from "@colyseus/core";
import { adminTokenMatches } from "../admin/admin-token";

export interface MatchmakePolicy {
  adminToken: string;
  /** Origins (scheme://host:port) besides the server's own whose pages may call the endpoints with credentials. */
  allowedOrigins: readonly string[];
}

type InvokeMethod = typeof matchMaker.controller.invokeMethod;
let colyseusInvoke: InvokeMethod | undefined;

export function installMatchmakePolicy(policy: MatchmakePolicy): void {
  const controller = matchMaker.controller;
  colyseusInvoke ??= controller.invokeMethod;
  const invoke = colyseusInvoke;
  controller.invokeMethod = async function (method, roomName, clientOptions = {}, authOptions) {
    if (method === "create" && !adminTokenMatches(policy.adminToken, (clientOptions as { adminToken?: unknown }).adminToken)) {
      throw new ServerError(403, "rooms are made by the server: join the playground room (creating one needs the admin token)");
    }
    // joinOrCreate joins the room that exists; were it full, a new room would split a group that came together.
    return invoke.call(this, method === "joinOrCreate" ? "join" : method, roomName, clientOptions, authOptions);
  };
  // Colyseus' defaults allow any origin with credentials; the policy below decides per request instead.
  const defaults: Record<string, string> = { ...controller.DEFAULT_CORS_HEADERS, Vary: "Origin" };
  delete defaults["Access-Control-Allow-Origin"];
  delete defaults["Access-Control-Allow-Credentials"];
  (controller as { DEFAULT_CORS_HEADERS: Record<string, string> }).DEFAULT_CORS_HEADERS = defaults;
  controller.getCorsHeaders = (headers: Headers): Record<string, string> => {
    const origin = headers.get("origin");
    if (!origin || !originAllowed(origin, headers.get("host"), policy.allowedOrigins)) return {};
    return { "Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true" };
  };
}

/** The page's own origin (same host and port as the request) or one the operator listed. */
export function originAllowed(origin: string, host: string | null, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    return host !== null && new URL(origin).host === host;
  } catch {
    return false;
  }
}
