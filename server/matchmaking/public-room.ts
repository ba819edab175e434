// The room everyone joins is made by the server at start (clients cannot make rooms: matchmake-policy.ts), and it
// stays when the last person leaves, so that the next one finds it. With Redis, the first process to start makes
// it and the others find it. A public room that failed (a tick threw: playground-room.ts) is made again.

import { matchMaker } from "@colyseus/core";
import { ROOM_NAME } from "../../shared/net";

/** Join option the server alone sets (creating over HTTP needs the admin token): the room outlives its last client. */
export const PUBLIC_ROOM_OPTION = "publicRoom";

let current = "";

/** The public room's id, made or found by the last ensurePublicRoom (empty before the first). */
export function publicRoomId(): string {
  return current;
}

export async function ensurePublicRoom(): Promise<string> {
  const existing = await matchMaker.query({ name: ROOM_NAME, private: false });
  current = existing.length ? existing[0].roomId : (await matchMaker.createRoom(ROOM_NAME, { [PUBLIC_ROOM_OPTION]: true })).roomId;
  return current;
}
