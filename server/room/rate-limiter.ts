// A token bucket per client: sustained rate and burst from the protocol's LIMITS; counts what it drops so a
// persistent abuser can be told apart from a brief burst.

export class RateLimiter {
  private tokens: number;
  private last: number;
  /** Dropped messages (rate or validation) in the current window. */
  dropped = 0;
  private windowStart: number;

  constructor(private readonly perSecond: number, private readonly burst: number, private readonly windowMs = 10_000, now = Date.now()) {
    this.tokens = burst;
    this.last = now;
    this.windowStart = now;
  }

  /** Takes one token; false when the client is over its rate. */
  take(now = Date.now()): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Records a dropped message; returns the drops in the current window. */
  drop(now = Date.now()): number {
    if (now - this.windowStart > this.windowMs) {
      this.windowStart = now;
      this.dropped = 0;
    }
    return ++this.dropped;
  }
}
