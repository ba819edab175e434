// A token bucket per client: sustained rate and burst from the protocol's LIMITS; counts what it drops over a
// sliding window (one-second buckets), so a persistent abuser is told apart from a brief burst wherever the window
// boundaries fall.

export class RateLimiter {
  private tokens: number;
  private last: number;
  /** Drops per second, in a ring of one-second buckets covering the window, and the second each bucket holds. */
  private readonly drops: Int32Array;
  private readonly dropSecond: Float64Array;

  constructor(private readonly perSecond: number, private readonly burst: number, windowMs = 10_000, now = Date.now()) {
    this.tokens = burst;
    this.last = now;
    const seconds = Math.max(1, Math.round(windowMs / 1000));
    this.drops = new Int32Array(seconds);
    this.dropSecond = new Float64Array(seconds).fill(-Infinity);
  }

  /** Takes one token; false when the client is over its rate. */
  take(now = Date.now()): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Records a dropped message; returns the drops within the window that ends now. */
  drop(now = Date.now()): number {
    const second = Math.floor(now / 1000), slots = this.drops.length, slot = second % slots;
    if (this.dropSecond[slot] !== second) {
      this.dropSecond[slot] = second;
      this.drops[slot] = 0;
    }
    this.drops[slot]++;
    let total = 0;
    for (let i = 0; i < slots; i++) if (second - this.dropSecond[i] < slots) total += this.drops[i];
    return total;
  }
}
