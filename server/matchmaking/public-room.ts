// The room everyone joins is made by the server at start (clients cannot make rooms: matchmake-policy.ts), and it
// stays when the last person leaves, so that the next one finds it. With Redis, the first process to start makes
// it and the others find it. A public room that failed (a tick threw: playground-room.ts) is made again.

import { matchMaker } from "@colyseus/core";
import { ROOM_NAME } from "../../shared/net";

/** Join option the server alone sets (creating over HTTP needs the admin token): the room outlives its last client. */
export const PUBLIC_ROOM_OPTION = "publicRoom";
/** After a public room fails, its remake waits this many seconds per failure in the last ten minutes, up to a minute. */
const REMAKE_DELAY_SECONDS = 2;
const MAX_REMAKE_DELAY_SECONDS = 60;
const FAILURE_MEMORY_MS = 10 * 60_000;

let current = "";
const failures: number[] = [];

/** The public room's id, made or found by the last ensurePublicRoom (empty before the first). */
export function publicRoomId(): string {
  return current;
}

/** Finds the public room, or makes it; `failedId` (a room closing after a failure) does not count as found. */
export async function ensurePublicRoom(failedId?: string): Promise<string> {
  const existing = (await matchMaker.query({ name: ROOM_NAME, private: false })).filter((r) => r.roomId !== failedId);
  current = existing.length ? existing[0].roomId : (await matchMaker.createRoom(ROOM_NAME, { [PUBLIC_ROOM_OPTION]: true })).roomId;
  return current;
}

/**
 * A public room failed and closed: it is made again, at once the first time, and later after each failure in a row
 * (a fault that recurs must not rebuild a room, bakes and all, as fast as it can fail).
 */
export async function remakePublicRoom(failedId: string): Promise<string> {
  const now = Date.now();
  while (failures.length && now - failures[0] > FAILURE_MEMORY_MS) failures.shift();
  const delay = Math.min(MAX_REMAKE_DELAY_SECONDS, REMAKE_DELAY_SECONDS * failures.length);
  failures.push(now);
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay * 1000));
  return ensurePublicRoom(failedId);
}
