// What a client's raw frames may be. Colyseus dispatches a frame by its first byte; the room serves only the kinds
// its protocol page names (room messages, pings, and the join and leave handshakes). Anything else (requests,
// inputs, byte messages) would reach handlers this room never defined, bypass its rate limit, and, malformed, make
// Colyseus print a stack trace per frame: it is refused here, before Colyseus reads it.

import type { Client, Room } from "@colyseus/core";
import { decode } from "@colyseus/schema";
import { PROTOCOL_CODE_MASK, Protocol } from "@colyseus/shared-types";
import { unpack } from "msgpackr";

/** True for the join and leave handshakes: they always pass, and are not counted against a client's messages. */
export function isHandshakeFrame(buffer: Uint8Array): boolean {
  if (!buffer || buffer.byteLength === 0) return false;
  const code = buffer[0] & PROTOCOL_CODE_MASK;
  return code === Protocol.JOIN_ROOM || code === Protocol.LEAVE_ROOM;
}

/** True for a ping (answered by Colyseus with a pong). */
export function isPingFrame(buffer: Uint8Array): boolean {
  return buffer?.byteLength > 0 && (buffer[0] & PROTOCOL_CODE_MASK) === Protocol.PING;
}

/** Why a (non-handshake) frame is refused, or null for one the room serves. */
export function frameRefusal(buffer: Uint8Array): string | null {
  if (!buffer || buffer.byteLength === 0) return "empty frame";
  const code = buffer[0] & PROTOCOL_CODE_MASK;
  if (code === Protocol.PING) return null;
  if (code !== Protocol.ROOM_DATA) return `frames of kind ${code} are not served by this room (only room messages and pings)`;
  return isMalformedRoomData(buffer) ? "malformed message" : null;
}

/** True for a room-data frame whose type or msgpack payload does not decode. */
export function isMalformedRoomData(buffer: Uint8Array): boolean {
  try {
    const it = { offset: 1 };
    if (decode.stringCheck(buffer, it)) decode.string(buffer, it);
    else decode.number(buffer, it);
    if (it.offset > buffer.byteLength) return true;
    if (buffer.byteLength > it.offset) unpack(buffer.subarray(it.offset));
    return false;
  } catch {
    return true;
  }
}

/**
 * Puts `admit` before Colyseus's frame handler on `room`: handshakes always pass, any other frame only when `admit`
 * says so. The handler is private in Colyseus's types, so it is reached here, once, before any client joins (each
 * join binds it).
 */
export function screenFrames(room: Room, admit: (client: Client, buffer: Uint8Array) => boolean): void {
  const internals = room as unknown as { _onMessage(client: Client, buffer: Uint8Array): void };
  const colyseusOnMessage = internals._onMessage;
  internals._onMessage = (client, buffer) => {
    if (isHandshakeFrame(buffer) || admit(client, buffer)) colyseusOnMessage.call(room, client, buffer);
  };
}
