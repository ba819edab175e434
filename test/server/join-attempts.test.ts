// Joins that go wrong, against a real server: a seat taken up after the server gave it up is asked for again (a fresh
// one, not the stale one) and the join succeeds; a room that cannot be reached, or that never answers, is reported
// as not answering after JOIN_ATTEMPTS attempts with what to do; a refusal is told in the room's words and not
// retried. Every failure is worded for a visitor.

import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { JOIN_ATTEMPTS, JoinFailedError, PliantRoomClient, SEAT_RESERVATION_SECONDS, joinProblem, joinWithRetries, retryDelayMs, type JoinProblem } from "../../shared/net";
import { serverRoom, useTestServer } from "./helpers";

const server = useTestServer();

/** Words no visitor should be shown. */
const DEVELOPER_WORDING = /fetch|ECONN|code \d|reservation|undefined|null|Error\b|"/;

/** A TCP port that accepts connections and never answers (a room behind a network that drops its answers). */
async function silentPort(): Promise<{ port: number; server: Server }> {
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  return { port: (silent.address() as { port: number }).port, server: silent };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const { port, server: probe } = await silentPort();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("join attempts", () => {
  it("a seat the client took up after the server gave it up is asked for afresh, and the next attempt joins", async () => {
    const room = serverRoom(server.server.publicRoomId);
    const problems: JoinProblem[] = [];
    let attempts = 0;
    // The first reservation expires before any socket could take it up; the next one is kept as usual.
    room.seatReservationTimeout = 0.001;
    try {
      const client = await joinWithRetries({
        attempt: () => {
          attempts++;
          return PliantRoomClient.join({ endpoint: server.endpoint, options: { role: "spectator" } });
        },
        failed: (problem) => {
          problems.push(problem);
          room.seatReservationTimeout = SEAT_RESERVATION_SECONDS;
        },
        maxAttempts: JOIN_ATTEMPTS,
      });
      expect(room.clients.some((c) => c.sessionId === client.sessionId)).toBe(true);
      await client.leave();
    } finally {
      room.seatReservationTimeout = SEAT_RESERVATION_SECONDS;
    }
    expect(attempts).toBe(2);
    expect(problems.map((p) => [p.kind, p.attempt])).toEqual([["slow", 1]]);
    expect(problems[0].message).toMatch(/too slow to take its seat in time; asking for another \(attempt 2\)/);
    expect(problems[0].message).not.toMatch(DEVELOPER_WORDING);
  });

  it("a room nothing listens for is not answering: JOIN_ATTEMPTS attempts, waiting longer each time, then the visitor is told to check the network and reload", async () => {
    const endpoint = `ws://127.0.0.1:${await closedPort()}`;
    const problems: JoinProblem[] = [];
    const failure = await joinWithRetries({
      attempt: () => PliantRoomClient.join({ endpoint }),
      failed: (problem) => problems.push(problem),
      maxAttempts: JOIN_ATTEMPTS,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JoinFailedError);
    expect(problems.map((p) => p.kind)).toEqual(Array(JOIN_ATTEMPTS).fill("unreachable"));
    expect(problems.map((p) => p.attempt)).toEqual(Array.from({ length: JOIN_ATTEMPTS }, (_, i) => i + 1));
    for (const problem of problems.slice(0, -1)) expect(problem.message).toBe(`The room is not answering; trying again (attempt ${problem.attempt + 1}).`);
    const last = (failure as JoinFailedError).message;
    expect(last).toBe(problems.at(-1)!.message);
    expect(last).toMatch(new RegExp(`not answering \\(tried ${JOIN_ATTEMPTS} times\\)\\. Check the Wi-Fi or network connection, then reload the page\\.`));
    for (const problem of problems) expect(problem.message).not.toMatch(DEVELOPER_WORDING);
    // The waits between attempts grow (a loop, it is not), up to a bound.
    const waits = [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => retryDelayMs({ kind: "unreachable", message: "", attempt }));
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]);
    expect(waits[1]).toBeGreaterThan(waits[0]);
    expect(waits.at(-1)).toBe(waits.at(-2));
  });

  it("a seat request that gets no answer fails at the seat deadline as the room not answering, and the page's frames are let go", async () => {
    const silent = await silentPort();
    try {
      let holds = 0, released = 0;
      const error = await PliantRoomClient.join({
        endpoint: `ws://127.0.0.1:${silent.port}`, seatDeadlineMs: 300,
        whileSeating: () => {
          holds++;
          return () => released++;
        },
      }).catch((e: unknown) => e);
      expect(joinProblem(error, 1).kind).toBe("unreachable");
      expect([holds, released]).toEqual([1, 1]);
    } finally {
      silent.server.close();
    }
  });

  it("a refusal is told in the room's words and not tried again", async () => {
    let attempts = 0;
    const failure = await joinWithRetries({
      attempt: () => {
        attempts++;
        return PliantRoomClient.join({ endpoint: server.endpoint, options: { role: "captain" as "player" } });
      },
      maxAttempts: JOIN_ATTEMPTS,
    }).then(() => undefined, (error: unknown) => error as JoinFailedError);
    expect(attempts).toBe(1);
    expect(failure).toBeInstanceOf(JoinFailedError);
    expect(failure!.problem.kind).toBe("refused");
    expect(failure!.message).toMatch(/^Role must be/);
  });
});
