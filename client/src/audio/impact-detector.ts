// When a body hits something, seen from the motion a page shows (the page has no contact forces): a sudden change
// of its centre's velocity between frames, beyond what gravity and a hand do, is an impact, as hard as that change.

/** A velocity change below this (m/s, in one frame) is ordinary motion, not a knock. */
export const IMPACT_MIN_DV = 0.5;
/** The change at which an impact sounds at full volume, m/s. */
const IMPACT_FULL_DV = 3;
/** Farther than this in one frame (m) is a jump, not motion. */
const MAX_FRAME_TRAVEL = 0.25;
/** Seconds a body stays quiet after an impact (a bounce's frames must not all click). */
const IMPACT_COOLDOWN = 0.12;

export class ImpactDetector {
  private readonly last = new Float64Array(3);
  private readonly velocity = new Float64Array(3);
  private primed = 0;
  private quietFor = 0;

  /**
   * The body's centre now and the frame's length (s); returns the impact's loudness (0-1), or 0. Frames of very
   * different lengths (a hitch) re-prime instead of reading a jump as a knock.
   */
  update(x: number, y: number, z: number, dt: number): number {
    this.quietFor = Math.max(0, this.quietFor - dt);
    if (!(dt > 0) || dt > 0.1) {
      this.primed = 0;
      this.last[0] = x; this.last[1] = y; this.last[2] = z;
      return 0;
    }
    // A jump no throw makes in one frame (a reset, a respawn, a late snapshot) starts afresh.
    if (Math.hypot(x - this.last[0], y - this.last[1], z - this.last[2]) > MAX_FRAME_TRAVEL) {
      this.primed = 0;
      this.last[0] = x; this.last[1] = y; this.last[2] = z;
      return 0;
    }
    const vx = (x - this.last[0]) / dt, vy = (y - this.last[1]) / dt, vz = (z - this.last[2]) / dt;
    this.last[0] = x; this.last[1] = y; this.last[2] = z;
    const v = this.velocity;
    const dv = Math.hypot(vx - v[0], vy - v[1], vz - v[2]);
    v[0] = vx; v[1] = vy; v[2] = vz;
    if (this.primed < 2) {
      this.primed++;
      return 0;
    }
    if (dv < IMPACT_MIN_DV || this.quietFor > 0) return 0;
    this.quietFor = IMPACT_COOLDOWN;
    return Math.min(1, (dv - IMPACT_MIN_DV) / (IMPACT_FULL_DV - IMPACT_MIN_DV) + 0.1);
  }
}
