// The page's link to the room: it watches as a spectator from the first moment, joins as a player on request
// (into the same room, then drops the spectator seat). A dropped connection shows "reconnecting" while the SDK
// gets the same seat back (the server keeps it for RECONNECT_SECONDS); when that fails, or after a server restart,
// the page joins again as it was, and only a kick makes it a spectator.

import { KICK_CLOSE_CODE, PliantRoomClient, type JoinOptions } from "../../../shared/net";
import type { BakeLoader } from "../bake/bake-loader";
import type { OrtModule } from "../../../shared/skinning";
import { loadOnnxRuntime as loadOnnxRuntimeBuild } from "../onnx-runtime";

/**
 * onnxruntime-web for characters' secondary-motion networks, loaded on first use (its wasm was preloaded at start):
 * the build this browser gets (../onnx-runtime), on one thread; the networks are small and run with wasm.
 */
async function loadOnnxRuntime(): Promise<OrtModule> {
  return (await loadOnnxRuntimeBuild()) as unknown as OrtModule;
}

export type ConnectionStatus = "connecting" | "connected" | "reconnecting" | "failed";

export interface ConnectionState {
  status: ConnectionStatus;
  client: PliantRoomClient | null;
  role: "player" | "spectator";
  error: string | null;
  /** Time from the first join request to a room with every body loaded, ms. */
  joinMs: number | null;
}

const RETRY_MS = 2000;
/** Tries a join makes when its seat reservation expires before the page takes it up. */
const JOIN_ATTEMPTS = 3;

export class RoomConnection {
  private state: ConnectionState = { status: "connecting", client: null, role: "spectator", error: null, joinMs: null };
  private readonly listeners = new Set<() => void>();
  private options: JoinOptions;
  private closed = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  /** `kiosk`: the stand's big screen, which tells the room so (an idle room's bodies then bounce now and then). */
  constructor(private readonly endpoint: string, private readonly loader: BakeLoader, kiosk = false) {
    this.options = kiosk ? { role: "spectator", kiosk: true } : { role: "spectator" };
  }

  get snapshot(): ConnectionState {
    return this.state;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  start(): void {
    void this.connect();
  }

  /** Takes a player seat in the room being watched; resolves once playing, rejects with the server's reason. */
  async joinAsPlayer(name: string, color: string): Promise<void> {
    const previous = this.state.client;
    const options: JoinOptions = { role: "player", name, color };
    const client = await this.join(options, previous?.roomId);
    this.options = options;
    this.adopt(client, "player");
    await previous?.leave();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.state.client?.leave();
  }

  private fetchBake = async (hash: string) => (await this.loader.load(hash)).bytes;

  /**
   * Joins, asking for a new seat when the page was too slow to take up the one reserved for it (the server keeps a
   * reservation a few seconds; a phone or a software-rendered page drawing a frame a second can miss that).
   */
  private async join(options: JoinOptions, roomId?: string): Promise<PliantRoomClient> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await PliantRoomClient.join({ endpoint: this.endpoint, options, roomId, fetchBake: this.fetchBake, ort: loadOnnxRuntime, executionProviders: ["wasm"] });
      } catch (error) {
        if (attempt >= JOIN_ATTEMPTS || !/seat reservation expired/i.test(error instanceof Error ? error.message : String(error))) throw error;
      }
    }
  }

  private async connect(): Promise<void> {
    const started = performance.now();
    try {
      const client = await this.join(this.options);
      if (this.closed) return void client.leave();
      this.adopt(client, this.options.role === "player" ? "player" : "spectator");
      this.set({ joinMs: performance.now() - started });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.set({ status: "reconnecting", client: null, error: `cannot join: ${message}` });
      this.retryTimer = setTimeout(() => void this.connect(), RETRY_MS);
    }
  }

  private adopt(client: PliantRoomClient, role: "player" | "spectator"): void {
    client.room.onDrop(() => {
      if (!this.closed && this.state.client === client) this.set({ status: "reconnecting", error: "connection lost: getting your seat back" });
    });
    client.room.onReconnect(() => {
      if (!this.closed && this.state.client === client) this.set({ status: "connected", error: null });
    });
    client.room.onLeave((code) => {
      if (this.closed || this.state.client !== client) return;
      const kicked = code === KICK_CLOSE_CODE;
      this.set({ status: "reconnecting", client: null, error: kicked ? "removed from the room by the server" : `connection lost (code ${code}): joining again` });
      if (kicked) this.options = { role: "spectator" };
      this.retryTimer = setTimeout(() => void this.connect(), RETRY_MS);
    });
    this.set({ status: "connected", client, role, error: null });
  }

  private set(next: Partial<ConnectionState>): void {
    this.state = { ...this.state, ...next };
    for (const listener of this.listeners) listener();
  }
}
