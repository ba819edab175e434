// Colyseus closes a connection (code 4002) whose room message it cannot decode, and prints a stack trace; the
// protocol says a bad message is dropped like any other. This recognises such a frame before Colyseus reads it.

import { decode } from "@colyseus/schema";
import { PROTOCOL_CODE_MASK, Protocol } from "@colyseus/shared-types";
import { unpack } from "msgpackr";

/** True for a room-data frame whose type or msgpack payload does not decode. */
export function isMalformedRoomData(buffer: Uint8Array): boolean {
  if (!buffer || buffer.byteLength === 0) return true;
  if ((buffer[0] & PROTOCOL_CODE_MASK) !== Protocol.ROOM_DATA) return false;
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
