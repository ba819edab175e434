// Who in a room may add a mesh, and the tickets that let them (POST /meshes redeems one: upload-tickets.ts).

import type { Client, Presence } from "@colyseus/core";
import { MESSAGES, UPLOAD_LIMITS, type UploadTicketMessage } from "../../shared/net";
import { issueUploadTicket } from "../uploads/upload-tickets";
import { ADMIN_OWNER } from "./added-bodies";
import type { Seat } from "./seats";

/** Why a seat may not add a mesh (null when it may): players, spectators where the room lets them play, admins. */
export function uploadRefusal(seat: Seat, spectatorsPlay: boolean): string | null {
  return seat.role === "spectator" && !seat.admin && !spectatorsPlay ? "spectators cannot add meshes in this room" : null;
}

/** Sends the seat's client an upload ticket for `roomId`, or `{ error }` on the same channel saying why not. */
export function handOutUploadTicket(presence: Presence, roomId: string, client: Client, seat: Seat, spectatorsPlay: boolean): void {
  const refuse = (error: string) => client.send(MESSAGES.uploadTicket, { error } satisfies UploadTicketMessage);
  const refusal = uploadRefusal(seat, spectatorsPlay);
  if (refusal) return refuse(refusal);
  if (!seat.tickets.take()) return refuse(`at most ${UPLOAD_LIMITS.ticketBurst} tickets at once, then one every ${1 / UPLOAD_LIMITS.ticketsPerSecond} s`);
  void issueUploadTicket(presence, { roomId, owner: seat.admin ? ADMIN_OWNER : client.sessionId })
    .then((ticket) => client.send(MESSAGES.uploadTicket, ticket satisfies UploadTicketMessage))
    .catch((error: Error) => refuse(`no ticket: ${error.message}`));
}
