// Upload tickets: a room hands one to a client allowed to add a mesh; POST /meshes?ticket=T spends it, once,
// within UPLOAD_LIMITS.ticketSeconds. Kept in the Colyseus presence, so that with Redis a ticket a room made in
// one process is good at every process's /meshes.

import { randomBytes } from "node:crypto";
import type { Presence } from "@colyseus/core";
import { UPLOAD_LIMITS } from "../../shared/net";

const KEY = "pliant:upload-ticket:";
const USED = "pliant:upload-ticket-used:";

/** Who may upload with a ticket, and into which room. */
export interface TicketHolder {
  roomId: string;
  /** The holder's sessionId. */
  owner: string;
}

export async function issueUploadTicket(presence: Presence, holder: TicketHolder): Promise<{ ticket: string; expiresIn: number }> {
  const ticket = randomBytes(18).toString("base64url");
  await presence.setex(KEY + ticket, JSON.stringify(holder), UPLOAD_LIMITS.ticketSeconds);
  return { ticket, expiresIn: UPLOAD_LIMITS.ticketSeconds };
}

/** The ticket's holder, spent now; null when it is unknown, expired or already spent. */
export async function redeemUploadTicket(presence: Presence, ticket: string): Promise<TicketHolder | null> {
  if (!/^[A-Za-z0-9_-]{24}$/.test(ticket)) return null;
  const value = (await presence.get(KEY + ticket)) as string | null;
  if (!value) return null;
  // Two uploads racing with one ticket: the counter lets exactly one through.
  const uses = await presence.incr(USED + ticket);
  await presence.expire(USED + ticket, 2 * UPLOAD_LIMITS.ticketSeconds);
  if (uses !== 1) return null;
  presence.del(KEY + ticket);
  return JSON.parse(value) as TicketHolder;
}
