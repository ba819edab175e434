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
    setTimeout(deliver, due - now);
  }
}
