// This client's fingertips in its predicted world: felt at once by the bodies it predicts (the server gets them
// too), and ended, as on the server, when they are not refreshed for LIMITS.silentHoldSeconds.

import type { PredictedScene } from "../../scene/predicted-scene";
import { HANDS, LIMITS, TICK_RATE, type Hand } from "../protocol";

export class Fingertips {
  /** When each was last refreshed (frame), by hand slot; -1 when idle. */
  private readonly frames = HANDS.map(() => -1);

  /** A fingertip at `center` (radius 0 ends it) in frame `frame`; only what the server accepts (it drops anything else). */
  touch(scene: PredictedScene | undefined, hand: Hand, center: [number, number, number], radius: number, frame: number): void {
    const slot = HANDS.indexOf(hand);
    if (slot < 0 || !scene || !(radius >= 0 && radius <= LIMITS.pokeRadiusMax) || ![center[0], center[1], center[2]].every(Number.isFinite)) return;
    scene.setPoke(slot, center[0], center[1], center[2], radius);
    this.frames[slot] = radius > 0 ? frame : -1;
  }

  /** Ends the fingertips not refreshed for a while, as of frame `frame`. */
  expire(scene: PredictedScene, frame: number): void {
    for (let slot = 0; slot < this.frames.length; slot++) {
      if (this.frames[slot] < 0 || frame - this.frames[slot] <= LIMITS.silentHoldSeconds * TICK_RATE) continue;
      scene.setPoke(slot, 0, 0, 0, 0);
      this.frames[slot] = -1;
    }
  }
}
