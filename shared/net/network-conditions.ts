// Simulated network conditions for a client (tests and demos): one-way latency with jitter, and loss of the
// messages that a later one supersedes (poses, grab moves, snapshots). Reliable messages (grab start and end,
// admin) are delayed but never dropped, as on a real WebSocket, where "loss" shows up as late delivery.

export interface NetworkConditions {
  /** One-way delay, ms (RTT is twice this). */
  latencyMs: number;
  /** Uniform extra delay in [0, jitterMs], ms. */
  jitterMs: number;
  /** Probability that a supersedable message is lost. */
  loss: number;
}

export const PERFECT_NETWORK: NetworkConditions = Object.freeze({ latencyMs: 0, jitterMs: 0, loss: 0 });

export class NetworkSimulator {
  private lastDue = 0;
  /** Messages on their way, in sending order (their due times never decrease). */
  private readonly queue: { due: number; deliver: () => void }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly conditions: NetworkConditions, private readonly random: () => number = Math.random) {}

  get active(): boolean {
    return this.conditions.latencyMs > 0 || this.conditions.jitterMs > 0 || this.conditions.loss > 0;
  }

  /** Runs `deliver` after the simulated delay (in order, like TCP), or never when a droppable message is lost. */
  schedule(droppable: boolean, deliver: () => void): void {
    if (!this.active) return deliver();
    if (droppable && this.random() < this.conditions.loss) return;
    const now = Date.now();
    // In-order delivery: never before the previous message.
    const due = Math.max(this.lastDue, now + this.conditions.latencyMs + this.random() * this.conditions.jitterMs);
    this.lastDue = due;
    this.queue.push({ due, deliver });
    if (this.queue.length === 1) this.arm();
  }

  /**
   * One timer for the oldest message, delivering everything due in order. (A timer per message can fire out of
   * order on a busy event loop: Node measures each timer from the loop's cached time, which lags Date.now()
   * by as long as the current task has run.)
   */
  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const now = Date.now();
      try {
        while (this.queue.length && this.queue[0].due <= now) this.queue.shift()!.deliver();
      } finally {
        if (this.queue.length) this.arm();
      }
    }, Math.max(0, this.queue[0].due - Date.now()));
  }
}
