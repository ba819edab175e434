// The page's link to the room: it watches as a spectator from the first moment, joins as a player on request
// (into the same room, then drops the spectator seat). A dropped connection shows "reconnecting" while the SDK
// gets the same seat back (the server keeps it for RECONNECT_SECONDS); when that fails, or after a server restart,
// the page joins again as it was, and only a kick makes it a spectator.
//
// Joining on a slow device: the page draws nothing while it waits for its seat (its frames would keep the main
// thread from taking the seat before the server gives it up), each attempt asks for a fresh seat, failures wait
// longer each time, and the visitor is told what is wrong and what to do, with the attempt count.

import { JOIN_ATTEMPTS, KICK_CLOSE_CODE, PliantRoomClient, joinWithRetries, networkLoader, type JoinOptions, type JoinProblem } from "../../../shared/net";
import type { BakeLoader } from "../bake/bake-loader";
import type { OrtModule } from "../../../shared/skinning";
import { loadOnnxRuntime as loadOnnxRuntimeBuild, pageExecutionProviders, preloadOnnxRuntime } from "../onnx-runtime";
import { springModelOnWorker } from "../springs/worker-springs";

/**
 * onnxruntime-web for characters' secondary-motion networks, loaded on first use (its wasm was preloaded at start):
 * the build this browser gets (../onnx-runtime), on one thread; the networks run on WebGPU where the page has it.
 */
async function loadOnnxRuntime(): Promise<OrtModule> {
  return (await loadOnnxRuntimeBuild()) as unknown as OrtModule;
}

export type ConnectionStatus = "connecting" | "connected" | "reconnecting" | "failed";

export interface ConnectionState {
  status: ConnectionStatus;
  client: PliantRoomClient | null;
  role: "player" | "spectator";
  /** For the visitor: what is wrong and what to do (null when nothing is). */
  error: string | null;
  /** Attempts of the join under way (1 for the first; 0 when none is). */
  attempts: number;
  /** Where the join under way stands: waiting for a seat, or in the room and loading it (null when none is). */
  stage: "seat" | "loading" | null;
  /** Time from the first join request to a room with every body loaded, ms. */
  joinMs: number | null;
}

/** Something that can stop the page's frames for a while (frame-driver.tsx's FrameControl). */
export interface FrameHold {
  hold(): () => void;
}

/**
 * A join not done after this long tells the visitor what it is waiting for (it goes on: a seat has its deadline,
 * SEAT_DEADLINE_MS, and loading the room may take long on a slow device), ms.
 */
const SLOW_JOIN_NOTICE_MS = 8000;
/** Wait before joining again after a connection was lost (not a failed join: those wait as join-attempts.ts says). */
const REJOIN_MS = 2000;
/**
 * Most milliseconds the first join waits for the networks' runtime to be asked for (its build is chosen once the
 * WebGPU adapter answers, slowly on software GL): the download then starts before the room's own, not behind them.
 * Later joins (after a drop) wait no more.
 */
const PRELOAD_WAIT_MS = 3000;

export class RoomConnection {
  private state: ConnectionState = { status: "connecting", client: null, role: "spectator", error: null, attempts: 0, stage: null, joinMs: null };
  private readonly listeners = new Set<() => void>();
  private options: JoinOptions;
  private closed = false;
  private readonly stop = new AbortController();
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private preloadWait: Promise<void> | undefined;

  /**
   * `kiosk`: the stand's big screen, which tells the room so (an idle room's bodies then bounce now and then).
   * `frames`: held while a join waits for its seat.
   */
  constructor(private readonly endpoint: string, private readonly loader: BakeLoader, kiosk = false, private readonly frames?: FrameHold) {
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

  /**
   * Takes a player seat in the room being watched; resolves once playing, rejects with a sentence for the visitor
   * (the room's reason, or what to do after JOIN_ATTEMPTS failed attempts).
   */
  async joinAsPlayer(name: string, color: string): Promise<void> {
    const previous = this.state.client;
    const options: JoinOptions = { role: "player", name, color };
    const client = await joinWithRetries({ attempt: () => this.joinOnce(options, previous?.roomId), maxAttempts: JOIN_ATTEMPTS, signal: this.stop.signal });
    if (this.closed) return void client.leave();
    this.options = options;
    this.adopt(client, "player");
    await previous?.leave();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort();
    clearTimeout(this.retryTimer);
    await this.state.client?.leave();
  }

  private fetchBake = async (hash: string) => (await this.loader.load(hash)).bytes;

  /** A fresh session of a character's secondary-motion network, opened as the room's characters' are (tests, console). */
  openSecondaryNetwork(name: string) {
    return networkLoader(loadOnnxRuntime, this.endpoint.replace(/^ws/, "http"), pageExecutionProviders)(name);
  }

  /** One attempt: a fresh seat, asked for with the page's frames held (see the top of this file), then the room loaded. */
  private joinOnce(options: JoinOptions, roomId?: string, onStage?: (stage: "seat" | "loading") => void): Promise<PliantRoomClient> {
    onStage?.("seat");
    return PliantRoomClient.join({
      endpoint: this.endpoint, options, roomId, fetchBake: this.fetchBake, ort: loadOnnxRuntime, executionProviders: pageExecutionProviders, findSpringModel: springModelOnWorker,
      // A page's frames must not run long for one slow prediction step.
      stepDeadlines: true,
      whileSeating: () => this.frames?.hold() ?? (() => undefined),
      onSeated: () => onStage?.("loading"),
    });
  }

  /** Resolves once the networks' runtime preload has been asked for, or PRELOAD_WAIT_MS after the first call. */
  private preloadAsked(): Promise<void> {
    this.preloadWait ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, PRELOAD_WAIT_MS);
      void preloadOnnxRuntime().catch(() => undefined).then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return this.preloadWait;
  }

  /** Joins as the page was (spectator, or player after a drop), trying until it is in or the page closes. */
  private async connect(): Promise<void> {
    await this.preloadAsked();
    const started = performance.now();
    let notice: ReturnType<typeof setTimeout> | undefined;
    const onStage = (stage: "seat" | "loading") => {
      // In the room: whatever went wrong before is over.
      this.set(stage === "loading" ? { stage, error: null } : { stage });
      clearTimeout(notice);
      notice = setTimeout(() => this.set({ error: stage === "seat" ? "The room has not answered yet; still waiting. If this goes on, check the Wi-Fi or network connection." : "Loading the room is taking long on this device; still loading." }), SLOW_JOIN_NOTICE_MS);
    };
    try {
      const client = await joinWithRetries({
        attempt: (attempt) => {
          this.set({ attempts: attempt });
          return this.joinOnce(this.options, undefined, onStage);
        },
        failed: (problem: JoinProblem) => {
          clearTimeout(notice);
          this.set({ status: problem.attempt >= JOIN_ATTEMPTS ? "failed" : this.state.status, error: problem.message, stage: null });
        },
        retryRefusals: true,
        signal: this.stop.signal,
      });
      clearTimeout(notice);
      if (this.closed) return void client.leave();
      this.adopt(client, this.options.role === "player" ? "player" : "spectator");
      this.set({ joinMs: performance.now() - started });
    } catch {
      // Only closing the page stops it trying.
      clearTimeout(notice);
    }
  }

  private adopt(client: PliantRoomClient, role: "player" | "spectator"): void {
    client.room.onDrop(() => {
      if (!this.closed && this.state.client === client) this.set({ status: "reconnecting", error: "The connection was lost; getting your seat back." });
    });
    client.room.onReconnect(() => {
      if (!this.closed && this.state.client === client) this.set({ status: "connected", error: null });
    });
    client.room.onLeave((code) => {
      if (this.closed || this.state.client !== client) return;
      const kicked = code === KICK_CLOSE_CODE;
      this.set({ status: "reconnecting", client: null, error: kicked ? "You were removed from the room; watching again as a spectator." : "The connection to the room was lost; joining again." });
      if (kicked) this.options = { role: "spectator" };
      this.retryTimer = setTimeout(() => void this.connect(), REJOIN_MS);
    });
    this.set({ status: "connected", client, role, error: null, attempts: 0, stage: null });
  }

  private set(next: Partial<ConnectionState>): void {
    this.state = { ...this.state, ...next };
    for (const listener of this.listeners) listener();
  }
}
