// Round trips to the server over the SDK's single ping slot. Room.ping keeps only the latest callback: two callers
// pinging at once (the client's once-a-second RTT probe and code waiting for "everything sent so far has been
// handled") would leave the first one waiting forever. Here every caller is answered by the first pong to a ping
// sent after it asked, so a resolved round trip means the server has handled everything sent before it.

/** A pong that has not come this long after its ping is taken as lost (a dropped connection the SDK replaced). */
const PONG_LOST_MS = 5000;

interface Pinger {
  ping(callback: (ms: number) => void): void;
  readonly connection?: { readonly isOpen?: boolean };
}

interface Waiter {
  resolve(ms: number): void;
  reject(error: Error): void;
}

export class RoundTrips {
  /** Asked after the ping in flight was sent: the next ping answers them. */
  private waiting: Waiter[] = [];
  /** The ping in flight answers these. */
  private answering: Waiter[] = [];
  private sentAt = -Infinity;
  private closedWith: Error | undefined;

  constructor(private readonly room: Pinger) {}

  /** Resolves with the round trip (ms) once the server has answered a ping sent after this call. */
  measure(): Promise<number> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.sendIfIdle();
    });
  }

  /** Fails every waiting round trip and any later one (the connection is gone for good). */
  close(reason: string): void {
    this.closedWith = new Error(reason);
    const everyone = [...this.answering, ...this.waiting];
    this.answering = [];
    this.waiting = [];
    for (const waiter of everyone) waiter.reject(this.closedWith);
  }

  private sendIfIdle(): void {
    if (this.waiting.length === 0) return;
    const inFlight = this.answering.length > 0 && Date.now() - this.sentAt < PONG_LOST_MS;
    if (inFlight) return;
    // The SDK skips a ping on a closed socket without a word: wait for the reconnection's next ask instead.
    if (this.room.connection?.isOpen === false) return;
    // A lost pong's waiters ride on the new ping.
    this.answering = [...this.answering, ...this.waiting];
    this.waiting = [];
    this.sentAt = Date.now();
    this.room.ping((ms) => {
      const answered = this.answering;
      this.answering = [];
      for (const waiter of answered) waiter.resolve(ms);
      // Not from inside the SDK's callback: it clears its slot after calling us, which would drop the new ping's.
      queueMicrotask(() => this.sendIfIdle());
    });
  }
}
