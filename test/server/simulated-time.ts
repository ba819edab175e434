// Simulated time for tests of a real server and real clients in one process: the room's 60 Hz timestep, the
// clients' frame loops, their simulated networks and every Date.now() run on vitest's fake clock, advanced one
// millisecond at a time, with the loopback sockets' real I/O let through after each. A loaded machine then takes
// longer to run a test but runs the same test: timing is what the test says it is, and lateness (a server that
// loses ticks, a client whose frames come late, a process that stalls) is something a test injects on purpose.

import { matchMaker } from "@colyseus/core";
import { vi } from "vitest";

const realSetImmediate = setImmediate;

/** Lets pending socket I/O and promise callbacks run (real event-loop turns; simulated time stands still). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => realSetImmediate(resolve));
}

/**
 * Runs `body` with the fake clock installed: setTimeout, setInterval, Date and performance.now() (the room's
 * per-tick solver budget is wall time: simulated, a loaded machine cannot make it run out); not setImmediate or I/O.
 */
export async function withSimulatedTime<T>(body: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
  try {
    return await body();
  } finally {
    vi.useRealTimers();
  }
}

/** Advances simulated time by `ms`, a millisecond at a time; `each` runs after every millisecond. */
export async function advance(ms: number, each?: () => void): Promise<void> {
  for (let t = 0; t < ms; t++) {
    vi.advanceTimersByTime(1);
    await settle();
    each?.();
  }
}

/** Advances simulated time until a promise settles (at most `limitMs` of it). */
export async function until<T>(promise: Promise<T>, limitMs = 60_000): Promise<T> {
  let done = false, value: T | undefined, failure: unknown;
  promise.then((v) => { done = true; value = v; }, (e) => { done = true; failure = e; });
  for (let t = 0; !done; t++) {
    if (t >= limitMs) throw new Error(`not settled within ${limitMs} ms of simulated time`);
    await advance(1);
  }
  if (failure !== undefined) throw failure;
  return value as T;
}

/** Advances simulated time until `condition` holds (at most `limitMs` of it); returns the simulated ms taken. */
export async function advanceUntil(condition: () => boolean, limitMs = 60_000, each?: () => void): Promise<number> {
  for (let t = 0; ; t++) {
    if (condition()) return t;
    if (t >= limitMs) throw new Error(`condition not met within ${limitMs} ms of simulated time`);
    await advance(1, each);
  }
}

/** Advances simulated time until the room is gone (its last client left): its fake-clock timers go with it. */
export async function untilDisposed(roomId: string, limitMs = 10_000): Promise<void> {
  await advanceUntil(() => matchMaker.getLocalRoomById(roomId) === undefined, limitMs);
}
