// The page's heartbeat to the room: while it holds something, a timer, not the render loop, tells the room that the
// page is still there (PliantRoomClient.keepAlive, at most every KEEPALIVE_MS), so a page drawing a frame every few
// seconds keeps its grabs. It beats only while the page is drawing: not while it is hidden, nor while its XR session
// is, nor after SLOWEST_FRAME_MS without a frame; and a page whose main thread is frozen runs no timers at all. Such
// a page is let go by the room after LIMITS.silentHoldSeconds, as before.

import { useEffect, type RefObject } from "react";
import type { WebGLRenderer } from "three";
import { KEEPALIVE_MS, LIMITS, type PliantRoomClient } from "../../../shared/net";

/** The longest time between two frames of a page still taken to be drawing, ms (slower, it has stopped). */
const SLOWEST_FRAME_MS = 3 * LIMITS.silentHoldSeconds * 1000;

/** Keeps `client`'s grabs while the page draws (see the top of this file); `lastFrameAt` is performance.now's clock. */
export function useHeartbeat(client: PliantRoomClient | null, gl: WebGLRenderer, lastFrameAt: RefObject<number>): void {
  useEffect(() => {
    if (!client) return;
    const timer = setInterval(() => {
      const session = gl.xr.getSession();
      const drawing = document.visibilityState === "visible" && session?.visibilityState !== "hidden" && performance.now() - lastFrameAt.current <= SLOWEST_FRAME_MS;
      if (drawing) client.keepAlive();
    }, KEEPALIVE_MS / 2);
    return () => clearInterval(timer);
  }, [client, gl, lastFrameAt]);
}
