// How a client joins a room: its settings, the seat (the HTTP reservation and the socket that takes it up), and
// the room's first state.

import { Client, type FetchFn } from "@colyseus/sdk";
import type { SceneLayout } from "../../scene";
import type { OrtModule } from "../../skinning/onnx-provider";
import { SEAT_DEADLINE_MS } from "../join-attempts";
import type { NetworkConditions } from "../network-conditions";
import { ROOM_NAME, type JoinOptions } from "../protocol";
import type { PliantRoom, RoomState } from "../state";
import type { SpringModelFinder } from "../client-characters";

export interface JoinSettings {
  /** ws://host:port of the server (http URLs work too). */
  endpoint: string;
  options?: JoinOptions;
  /** Returns the BakedBody bytes of a hash (GET /bakes/<hash> in the app). Defaults to fetch on the endpoint. */
  fetchBake?: (hash: string) => Promise<Uint8Array>;
  network?: NetworkConditions;
  layout?: SceneLayout;
  /** Join this room id instead of the server's public room. */
  roomId?: string;
  /** Create a new room instead of joining the public one (private sessions; the server asks for the admin token in the options). */
  create?: boolean;
  /**
   * An onnxruntime (web in pages, node in tests) to run characters' secondary-motion networks with, fetched from the
   * endpoint's /models/; without one, a character's flesh shows only while the server's solver moves it.
   */
  ort?: () => Promise<OrtModule>;
  /**
   * Execution providers for those networks, tried in order (default onnxruntime's own), or how to choose them once a
   * network is first needed (a page asks the browser for a WebGPU adapter then, not while it joins).
   */
  executionProviders?: string[] | (() => Promise<string[]>);
  /** Finds a character's spring model for the flesh pages move (a page's worker); default here (client-characters.ts). */
  findSpringModel?: SpringModelFinder;
  /** The clock the prediction's millisecond budget measures its steps with (default performance.now; tests script one). */
  predictionClock?: () => number;
  /**
   * Whether a held body's prediction steps run to a deadline, what is left of the budget (prediction-budget.ts):
   * a page's frame then does not run long for one slow step of the body in hand. Off by default: a cut step's
   * result depends on the machine's load, which a test comparing the prediction with the server cannot allow.
   * Needs the default clock.
   */
  stepDeadlines?: boolean;
  /** Most time the room may take to answer the seat request, ms (SEAT_DEADLINE_MS); then the join fails. */
  seatDeadlineMs?: number;
  /**
   * Called as the seat is asked for; what it returns is called once the room has let this client in and its state has
   * arrived, or the attempt failed, or after the seat deadline. A page stops drawing meanwhile: a slow page's frames
   * can keep its main thread from taking up the seat (opening the socket, reading the room's handshake) before the
   * server gives it up.
   */
  whileSeating?: () => () => void;
  /** Called once the room has let this client in, before its bodies are loaded. */
  onSeated?: () => void;
}

/**
 * The seat: the HTTP reservation and at once the socket that takes it up (the SDK opens it as the answer arrives;
 * everything heavy comes after). A room that does not answer the request within the seat deadline fails the join
 * (as a network error: the room is not answering).
 */
export function takeSeat(settings: JoinSettings): Promise<PliantRoom> {
  const deadlineMs = settings.seatDeadlineMs ?? SEAT_DEADLINE_MS;
  const fetchFn: FetchFn = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(deadlineMs) }).catch((error: unknown) => {
    throw error instanceof DOMException && error.name === "TimeoutError" ? new TypeError(`no answer within ${deadlineMs} ms`) : error;
  });
  const client = new Client(settings.endpoint, { fetchFn });
  const options = settings.options ?? {};
  return settings.roomId ? client.joinById<RoomState>(settings.roomId, options) : settings.create ? client.create<RoomState>(ROOM_NAME, options) : client.join<RoomState>(ROOM_NAME, options);
}

/**
 * Resolves once the room's state is in (it follows the room's handshake at once). No clock: on a slow page a timer
 * can fire before the message that has long arrived is read; a room that closes fails it.
 */
export function roomState(room: PliantRoom): Promise<void> {
  return new Promise((resolve, reject) => {
    const left = (code: number) => reject(new Error(`the room closed before its state arrived (code ${code})`));
    const check = () => {
      const state = room.state;
      if (!state?.bodies || state.bodies.size === 0) return;
      room.onStateChange.remove(check);
      room.onLeave.remove(left);
      resolve();
    };
    room.onLeave(left);
    room.onStateChange(check);
    check();
  });
}
