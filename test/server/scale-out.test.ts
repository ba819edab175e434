// Scale-out: Debian's redis-server on a loopback port, two real server processes sharing it (Colyseus Redis
// presence and driver), and clients that enter through either process into one room and fetch its bakes there.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { PliantRoomClient, uploadMesh } from "../../shared/net";

const ROOT = path.resolve(import.meta.dirname, "../..");
const REDIS = "/usr/bin/redis-server";
const children: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Starts a process and resolves once a line of its output matches. */
function start(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let output = "";
    const timer = setTimeout(() => reject(new Error(`${command} did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${command} exited with ${code}:\n${output}`)));
  });
}

let redisUrl = "";
const endpoints: string[] = [];

beforeAll(async () => {
  if (!existsSync(REDIS)) throw new Error(`${REDIS} is missing: apt-get install redis-server (npm test's pretest installs it: test/setup/ensure-system-packages.sh)`);
  const redisPort = await freePort();
  await start(REDIS, ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {}, /Ready to accept connections/);
  redisUrl = `redis://127.0.0.1:${redisPort}`;
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    // Each process has a bake cache of its own (as on two machines), and they bake with different fields: the
    // first makes the public room, so its bodies are bakes only the first process has on disk, and a client that
    // joins through the second can fetch them only through Redis.
    await start(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "server/main.ts"], {
      PORT: String(port), HOST: "127.0.0.1", REDIS_URL: redisUrl, PUBLIC_ADDRESS: `127.0.0.1:${port}`, ADMIN_TOKEN: "scale-out",
      BAKE_CACHE_DIR: mkdtempSync(path.join(tmpdir(), `pliant-bakes-${i}-`)), SKINNING: i === 0 ? "baseline" : "eigen",
    }, /Pliant is running/);
    endpoints.push(`ws://127.0.0.1:${port}`);
  }
}, 120_000);

afterAll(async () => {
  // Wait until every process has really gone: a server still ticking would steal CPU from the next test file.
  await Promise.all(children.reverse().map((child) => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  })));
});

it("clients entering through either process share one room", async () => {
  const a = await PliantRoomClient.join({ endpoint: endpoints[0], options: { name: "via A", role: "player" } });
  // Joining through the other process finds the same public room: the first process made it, the second found it.
  const b = await PliantRoomClient.join({ endpoint: endpoints[1], options: { name: "via B", role: "spectator" } });
  const c = await PliantRoomClient.join({ endpoint: endpoints[1], roomId: a.room.roomId, options: { name: "by id via B", role: "spectator" } });
  try {
    expect(b.room.roomId).toBe(a.room.roomId);
    expect(c.room.roomId).toBe(a.room.roomId);
    await vi.waitFor(() => {
      const names = [...a.room.state.players.values()].map((p) => p.name).sort();
      expect(names).toEqual(["by id via B", "via A", "via B"]);
    }, { timeout: 30_000, interval: 50 });
    // Every body's bake can be fetched through either process (the second has none of them on its disk).
    for (const body of a.room.state.bodies.values()) {
      for (const endpoint of endpoints) expect((await fetch(`${endpoint.replace(/^ws/, "http")}/bakes/${body.bake}`)).status).toBe(200);
    }
    // And the world flows to everyone: snapshots with the bodies arrived through both processes.
    for (const client of [a, b, c]) {
      await vi.waitFor(() => expect(client.serverQ("spot")?.every(Number.isFinite)).toBe(true), { timeout: 30_000, interval: 50 });
    }
  } finally {
    await Promise.all([a.leave(), b.leave(), c.leave()]);
  }
});

it("a mesh uploaded through one process joins a room that lives in the other, and every process serves it", async () => {
  // The public room lives in the first process; the file goes to the second, which bakes it with its own worker.
  const player = await PliantRoomClient.join({ endpoint: endpoints[0], options: { name: "uploader", role: "player" } });
  const watcher = await PliantRoomClient.join({ endpoint: endpoints[1], options: { name: "watcher via B", role: "spectator" } });
  try {
    const { ticket } = await player.requestUploadTicket();
    const fox = await readFile(path.resolve(ROOT, "server/assets/fox.glb"));
    const answer = await uploadMesh(endpoints[1].replace(/^ws/, "http"), ticket, "fox.glb", fox, "fox via B");
    // The fox is rigged and animated: it becomes a character.
    await vi.waitFor(() => expect(watcher.characters.all.has(answer.id)).toBe(true), { timeout: 120_000, interval: 50 });
    const state = watcher.room.state.characters.get(answer.id)!;
    expect(state.owner).toBe(player.sessionId);
    for (const endpoint of endpoints) {
      const http = endpoint.replace(/^ws/, "http");
      expect((await fetch(`${http}/bakes/${state.bake}`)).status).toBe(200);
      expect((await fetch(`${http}${state.texture}`)).status).toBe(200);
    }
    // Its pose reaches the watcher through the other process: the character is shown.
    await vi.waitFor(() => expect(watcher.characters.all.get(answer.id)?.frames.some((f) => f.pose !== null)).toBe(true), { timeout: 30_000, interval: 50 });
  } finally {
    await Promise.all([player.leave(), watcher.leave()]);
  }
}, 240_000);
