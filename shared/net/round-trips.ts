// Round trips to the server over the SDK's single ping slot. Room.ping keeps only the latest callback: two callers
// pinging at once (the client's once-a-second RTT probe and code waiting for "everything sent so far has been
// handled") would leave the first one waiting forever. Here every caller is answered by the first pong to a ping
// sent after it asked, so a resolved round trip means the server has handled everything sent before it.

interface Pinger {
  ping(callback: (ms: number) => void): void;
  readonly connection?: { readonly isOpen?: boolean };
}

interface Waiter {
  resolve(ms: number): void;
  reject(error: Error): void;
}

export class RoundTrips {
  /** Asked after the ping in flight was sent (or while none could be sent): the next ping answers them. */
  private waiting: Waiter[] = [];
  /** The ping in flight answers these (empty: no ping in flight). */
  private answering: Waiter[] = [];
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

  /**
   * The connection dropped: the ping in flight will never be answered, so its waiters wait for a ping sent on the
   * next connection (call `reconnected` then). A slow server with the socket open is not a drop: its pong still
   * comes, and no second ping is sent meanwhile, so no pong can be taken for a later ping's.
   */
  dropped(): void {
    this.waiting = [...this.answering, ...this.waiting];
    this.answering = [];
  }

  /** A new connection is open: pings can be sent again. */
  reconnected(): void {
    this.sendIfIdle();
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
    if (this.waiting.length === 0 || this.answering.length > 0 || this.closedWith) return;
    // The SDK skips a ping on a closed socket without a word: leave it to `reconnected`.
    if (this.room.connection?.isOpen === false) return;
    this.answering = this.waiting;
    this.waiting = [];
    this.room.ping((ms) => {
      const answered = this.answering;
      this.answering = [];
      for (const waiter of answered) waiter.resolve(ms);
      // Not from inside the SDK's callback: it clears its slot after calling us, which would drop the new ping's.
      queueMicrotask(() => this.sendIfIdle());
    });
  }
}
