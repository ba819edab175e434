// Round-trip times of a room's connections, for the operator: WebSocket pings carrying our own payload (every
// WebSocket client answers them, browsers and raw protocol clients alike; the transport's own keep-alive pings
// carry none, so their pongs are not mistaken for ours).

/** What a probe needs of a connection: the `ws` socket under a Colyseus WebSocket client. */
interface PingableSocket {
  ping(data: Uint8Array): void;
  on(event: "pong", listener: (data: Buffer) => void): void;
  off(event: "pong", listener: (data: Buffer) => void): void;
}

/** Share of each new answer in the smoothed round-trip time. */
const WEIGHT = 0.3;
/** How often each connection is pinged (ms). */
export const LATENCY_PROBE_INTERVAL_MS = 2000;
const PAYLOAD_TAG = 0x70; // 'p'

export class LatencyProbe {
  /** Smoothed round-trip time, ms; NaN before the first answer. */
  rttMs = NaN;
  private sentAt = 0;
  private serial = 0;
  private answered = true;
  private readonly listener = (data: Buffer) => this.onPong(data);

  private constructor(private readonly socket: PingableSocket) {
    socket.on("pong", this.listener);
  }

  /** A probe for a Colyseus client whose connection can be pinged (a WebSocket one); undefined otherwise. */
  static of(client: unknown): LatencyProbe | undefined {
    const socket = (client as { ref?: Partial<PingableSocket> }).ref;
    if (!socket || typeof socket.ping !== "function" || typeof socket.on !== "function" || typeof socket.off !== "function") return undefined;
    return new LatencyProbe(socket as PingableSocket);
  }

  ping(): void {
    const now = performance.now();
    // An unanswered ping counts as at least as slow as it has been waiting: a connection gone quiet does not keep
    // showing its last good figure.
    if (!this.answered) this.rttMs = Math.max(Number.isNaN(this.rttMs) ? 0 : this.rttMs, now - this.sentAt);
    this.serial = (this.serial + 1) >>> 0;
    // A fresh payload each time: the socket may still hold the previous one, unsent, on a backed-up connection.
    const payload = new Uint8Array(5);
    payload[0] = PAYLOAD_TAG;
    new DataView(payload.buffer).setUint32(1, this.serial);
    this.sentAt = now;
    this.answered = false;
    try {
      this.socket.ping(payload);
    } catch {
      // A socket closing under us: its seat's own handling follows.
    }
  }

  dispose(): void {
    this.socket.off("pong", this.listener);
  }

  private onPong(data: Buffer): void {
    // Only the answer to the latest ping counts: an older one would measure too long a time.
    if (data.length !== 5 || data[0] !== PAYLOAD_TAG || data.readUInt32BE(1) !== this.serial) return;
    const rtt = performance.now() - this.sentAt;
    this.answered = true;
    this.rttMs = Number.isNaN(this.rttMs) ? rtt : this.rttMs + WEIGHT * (rtt - this.rttMs);
  }
}
