// Joining on a slow device or a bad network: every attempt asks for a fresh seat (a reservation the page was too slow
// to take up is gone for good), a failure is told to the visitor as what went wrong and what to do, with the count of
// attempts, and retries wait longer each time instead of looping.

import { ErrorCode } from "@colyseus/sdk";
import { SEAT_RESERVATION_SECONDS } from "./protocol";

/** Attempts after which the visitor is told plainly that joining is failing and what to do (trying goes on). */
export const JOIN_ATTEMPTS = 3;
/**
 * Most time the room may take to answer a seat request, ms: a later answer is a seat the server is about to give up
 * (it keeps one SEAT_RESERVATION_SECONDS), so the request is dropped and the room counted as not answering.
 */
export const SEAT_DEADLINE_MS = SEAT_RESERVATION_SECONDS * 1000;
/** Waits between attempts: doubling from the first, up to the last (ms). */
const RETRY_FIRST_MS = 1000;
const RETRY_MOST_MS = 15_000;

/**
 * What went wrong with a join: "slow", the page took its seat too late (a busy device); "unreachable", the room did
 * not answer (network, server down); "refused", the room said no and why (full, closed); "failed", anything after
 * the seat (loading the room).
 */
export type JoinProblemKind = "slow" | "unreachable" | "refused" | "failed";

export interface JoinProblem {
  kind: JoinProblemKind;
  /** For the visitor: what went wrong and what to do, with the attempts so far. */
  message: string;
  /** The attempt that failed (1 for the first). */
  attempt: number;
}

/** A join that gave up: its message is the last problem's, written for the visitor. */
export class JoinFailedError extends Error {
  constructor(readonly problem: JoinProblem) {
    super(problem.message);
    this.name = "JoinFailedError";
  }
}

/** Classifies a failed join attempt and words it for the visitor. */
export function joinProblem(error: unknown, attempt: number): JoinProblem {
  const kind = problemKind(error);
  const gaveUp = attempt >= JOIN_ATTEMPTS;
  const tries = `tried ${attempt} ${attempt === 1 ? "time" : "times"}`;
  const next = `trying again (attempt ${attempt + 1})`;
  let message: string;
  switch (kind) {
    case "slow":
      message = gaveUp
        ? `This device is too busy to take its seat in the room (${tries}). Close other tabs and apps, then reload the page.`
        : `This device was too slow to take its seat in time; asking for another (attempt ${attempt + 1}).`;
      break;
    case "unreachable":
      message = gaveUp
        ? `The room is not answering (${tries}). Check the Wi-Fi or network connection, then reload the page.`
        : `The room is not answering; ${next}.`;
      break;
    case "refused":
      message = refusal(error);
      break;
    default:
      message = gaveUp
        ? `The room could not be loaded (${tries}). Reload the page; if it keeps happening, the room may be having trouble.`
        : `The room could not be loaded; ${next}.`;
  }
  return { kind, message, attempt };
}

/** How long to wait before attempt `attempt + 1`, ms: at once for a seat taken too late (the first few times). */
export function retryDelayMs(problem: JoinProblem): number {
  if (problem.kind === "slow" && problem.attempt < JOIN_ATTEMPTS) return 0;
  return Math.min(RETRY_MOST_MS, RETRY_FIRST_MS * 2 ** (problem.attempt - 1));
}

export interface JoinAttempts<T> {
  /** One attempt, asking for a fresh seat (`attempt` counts from 1). */
  attempt(attempt: number): Promise<T>;
  /** Told of every failed attempt before the next one (or before giving up). */
  failed?(problem: JoinProblem): void;
  /** Attempts before giving up (default: until stopped). */
  maxAttempts?: number;
  /** Whether a refusal (a full room) is tried again (default: no; the visitor is told the room's reason). */
  retryRefusals?: boolean;
  /** Stops trying (the page closed); the join then fails with the last problem. */
  signal?: AbortSignal;
}

/** Attempts a join until one succeeds, waiting longer between failures; throws JoinFailedError when it gives up. */
export async function joinWithRetries<T>(join: JoinAttempts<T>): Promise<T> {
  const maxAttempts = join.maxAttempts ?? Infinity;
  for (let attempt = 1; ; attempt++) {
    try {
      return await join.attempt(attempt);
    } catch (error) {
      const problem = joinProblem(error, attempt);
      join.failed?.(problem);
      if (attempt >= maxAttempts || join.signal?.aborted || (problem.kind === "refused" && !join.retryRefusals)) throw new JoinFailedError(problem);
      await wait(retryDelayMs(problem), join.signal);
      if (join.signal?.aborted) throw new JoinFailedError(problem);
    }
  }
}

function problemKind(error: unknown): JoinProblemKind {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  if (code === ErrorCode.MATCHMAKE_EXPIRED) return "slow";
  if (name === "AbortError" || name === "TimeoutError" || error instanceof TypeError) return "unreachable";
  // The SDK's matchmaking errors: no code, or a system one ("ECONNREFUSED"), when the request never got an answer;
  // a WebSocket close code (1000-1015) when the socket closed before the room let it in; else the HTTP status or
  // the room's own error code, with the room's reason.
  if (name === "MatchMakeError" || name === "ServerError") {
    if (typeof code !== "number" || (code >= 1000 && code < 1100) || code === 502 || code === 503 || code === 504) return "unreachable";
    return "refused";
  }
  return "failed";
}

/** The room's reason for refusing a join, as a sentence (its own reasons are written for visitors). */
function refusal(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 429) return "Too many join requests came from this network just now; wait a few seconds and try again.";
  if (code === ErrorCode.MATCHMAKE_INVALID_ROOM_ID) return "This room has closed; reload the page to join the room again.";
  return sentence(error instanceof Error ? error.message : String(error));
}

/** "the room is full" -> "The room is full." */
function sentence(text: string): string {
  const trimmed = text.trim().replace(/[.\s]+$/, "") || "The room turned the page away";
  return `${trimmed[0].toUpperCase()}${trimmed.slice(1)}.`;
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
  });
}
