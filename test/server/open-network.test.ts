// The matchmaking endpoints on an open network, tried as an outsider would: raw HTTP requests written from
// docs/protocol.md against a real server on loopback. Nobody but the server makes rooms, foreign web pages get no
// CORS grant, oversized bodies are refused unread, and seat reservations that never connect neither fill the room
// nor split the players who come next.

import { request } from "node:http";
import { Client } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { originAllowed } from "../../server/matchmaking/matchmake-policy";
import { DEFAULT_MATCHMAKE_LIMITS } from "../../server/matchmaking/matchmake-guard";
import { serverRoom, startTestServer, type TestServer } from "./helpers";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request, optionally from another loopback address (another machine on the stand's Wi-Fi). */
function http(server: TestServer, method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string>; from?: string; chunked?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined && !options.chunked) headers["Content-Length"] = String(Buffer.byteLength(options.body));
    if (options.body !== undefined && !headers["Content-Type"]) headers["Content-Type"] = "application/json";
    const req = request({ host: "127.0.0.1", port: server.server.port, method, path, headers, localAddress: options.from }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    // The server may close the socket before a refused body is all sent: the answer still arrives.
    req.on("error", (error) => (error as NodeJS.ErrnoException).code === "EPIPE" || (error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error));
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

async function roomCount(server: TestServer): Promise<number> {
  return (JSON.parse((await http(server, "GET", "/status")).body) as { rooms: unknown[] }).rooms.length;
}

describe("matchmaking on an open network (default limits)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ matchmakeLimits: {} });
  });
  afterAll(async () => {
    await server?.server.close();
  });

  it("refuses anonymous room creation, and joinOrCreate joins the server's own room instead of making one", async () => {
    expect(await roomCount(server)).toBe(1);
    const create = await http(server, "POST", "/matchmake/create/playground", { body: "{}", from: "127.0.0.3" });
    expect(create.status).toBe(403);
    expect(JSON.parse(create.body).error).toMatch(/rooms are made by the server/);
    const wrongToken = await http(server, "POST", "/matchmake/create/playground", { body: JSON.stringify({ adminToken: "guess" }), from: "127.0.0.3" });
    expect(wrongToken.status).toBe(403);
    const join = await http(server, "POST", "/matchmake/joinOrCreate/playground", { body: JSON.stringify({ role: "spectator" }), from: "127.0.0.3" });
    expect(join.status).toBe(200);
    expect(JSON.parse(join.body).roomId).toBe(server.server.publicRoomId);
    expect(await roomCount(server)).toBe(1);
  });

  it("answers CORS only for the app's own origin (and origins the operator lists)", async () => {
    const own = `http://127.0.0.1:${server.server.port}`;
    for (const method of ["OPTIONS", "POST"]) {
      const foreign = await http(server, method, "/matchmake/join/playground", { body: "{}", headers: { Origin: "https://evil.example" }, from: "127.0.0.4" });
      expect(foreign.headers["access-control-allow-origin"], `${method} from a foreign page`).toBeUndefined();
      expect(foreign.headers["access-control-allow-credentials"]).toBeUndefined();
      const same = await http(server, method, "/matchmake/join/playground", { body: "{}", headers: { Origin: own }, from: "127.0.0.4" });
      expect(same.headers["access-control-allow-origin"], `${method} from the app's page`).toBe(own);
    }
    expect(originAllowed("https://stand.example", "127.0.0.1:2567", ["https://stand.example"])).toBe(true);
    expect(originAllowed("https://stand.example.evil", "127.0.0.1:2567", ["https://stand.example"])).toBe(false);
    expect(originAllowed("not a url", "127.0.0.1:2567", [])).toBe(false);
  });

  it("refuses an 8 MB join body unread (413) and a body without a length (411), and the room carries on", async () => {
    // The body is made before the measurement: only what the request costs counts (a loaded machine's run measured
    // 73 MB with the test's own strings and their encoding inside it).
    const body = Buffer.from(JSON.stringify({ name: "x".repeat(8 << 20) }));
    const rssBefore = process.memoryUsage().rss;
    const huge = await http(server, "POST", "/matchmake/joinOrCreate/playground", { body, from: "127.0.0.5" });
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body).error).toMatch(/at most 4096 bytes/);
    const chunked = await http(server, "POST", "/matchmake/joinOrCreate/playground", { body: "{}", chunked: true, from: "127.0.0.5" });
    expect(chunked.status).toBe(411);
    // The refused body was never parsed into the server's heap.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 << 20);
    const join = await http(server, "POST", "/matchmake/join/playground", { body: "{}", from: "127.0.0.5" });
    expect(join.status).toBe(200);
  });

  it("80 seat reservations that never connect neither fill the room nor split the next two players", async () => {
    const fakes = await Promise.all(Array.from({ length: 80 }, () =>
      http(server, "POST", "/matchmake/joinOrCreate/playground", { body: JSON.stringify({ role: "player" }), from: "127.0.0.6" })));
    const granted = fakes.filter((a) => a.status === 200).length;
    expect(granted).toBe(DEFAULT_MATCHMAKE_LIMITS.requestsPerAddress);
    const refused = fakes.find((a) => a.status === 429)!;
    expect(JSON.parse(refused.body).error).toMatch(/too many join requests/);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    // Two friends on other phones come next: both get a seat, in the same (the public) room, as players.
    const players = [];
    for (const from of ["127.0.0.7", "127.0.0.8"]) {
      const reservation = await http(server, "POST", "/matchmake/joinOrCreate/playground", { body: JSON.stringify({ role: "player", name: from }), from });
      expect(reservation.status, reservation.body).toBe(200);
      players.push(await new Client(`ws://127.0.0.1:${server.server.port}`).consumeSeatReservation(JSON.parse(reservation.body)));
    }
    try {
      for (const room of players) expect(room.roomId).toBe(server.server.publicRoomId);
      expect(await roomCount(server)).toBe(1);
    } finally {
      await Promise.all(players.map((room) => room.leave()));
    }
  });
});

describe("matchmaking speaks JSON only", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.server.close();
  });
  const reservedSeats = () => Object.keys((serverRoom(server.server.publicRoomId) as unknown as { _reservedSeats: object })._reservedSeats).length;

  it("a foreign page's simple request (text/plain, a form: no preflight) gets 415 and no seat; JSON still gets one", async () => {
    // A browser sends these cross-origin without asking first: the server must not act on them.
    for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      for (const method of ["join", "joinOrCreate", "joinById"]) {
        const path = method === "joinById" ? `/matchmake/joinById/${server.server.publicRoomId}` : `/matchmake/${method}/playground`;
        const answer = await http(server, "POST", path, { body: JSON.stringify({ role: "player" }), headers: { "Content-Type": type, Origin: "https://evil.example" } });
        expect(answer.status, `${method} as ${type}`).toBe(415);
        expect(JSON.parse(answer.body).error).toMatch(/Content-Type: application\/json/);
        expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
      }
    }
    expect(reservedSeats()).toBe(0);
    // The app's own requests (the SDK sends application/json), with or without a charset, are served as before.
    for (const type of ["application/json", "application/json; charset=utf-8"]) {
      const answer = await http(server, "POST", "/matchmake/join/playground", { body: JSON.stringify({ role: "spectator" }), headers: { "Content-Type": type } });
      expect(answer.status, `${type}: ${answer.body}`).toBe(200);
      const reservation = JSON.parse(answer.body) as { roomId: string; sessionId: string };
      expect(reservation.roomId).toBe(server.server.publicRoomId);
      expect(typeof reservation.sessionId).toBe("string");
    }
    const room = await new Client(`ws://127.0.0.1:${server.server.port}`).join("playground", { role: "player", name: "SDK" });
    await room.leave();
  });
});

describe("seat reservations without the per-address limit", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(); // every address unlimited: only the room's own bound holds
  });
  afterAll(async () => {
    await server?.server.close();
  });

  it("reservations are not seats: 80 that never connect leave the players' and spectators' places free", async () => {
    const fakes = await Promise.all(Array.from({ length: 80 }, () =>
      http(server, "POST", "/matchmake/join/playground", { body: JSON.stringify({ role: "player" }) })));
    expect(fakes.every((a) => a.status === 200)).toBe(true);
    const client = new Client(`ws://127.0.0.1:${server.server.port}`);
    const players = await Promise.all(["A", "B"].map((name) => client.join("playground", { role: "player", name })));
    try {
      for (const room of players) expect(room.roomId).toBe(server.server.publicRoomId);
    } finally {
      await Promise.all(players.map((room) => room.leave()));
    }
  });
});
