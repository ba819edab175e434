// Load bots for `npm run bench:server`, in their own process so that their work is not counted as the
// server's: players that send head and hand poses at 72 Hz and keep grabbing bodies, pulling half of them about
// and throwing the others (a lift, then a swing at 1 to 6 m/s and a release), and spectators that only watch. Raw @colyseus/sdk clients (no prediction): the server's side is what is measured.
//
// With ROUGH = 1, a stand's rough edges join in: a spectator that joins and leaves every second (churn), a player
// whose connection drops every 15 s and comes back through the SDK's reconnection, and a misbehaving client (invalid
// messages at 100 a second, a malformed frame and a burst of 30 grab starts every 5 s). The last two take two of the
// PLAYERS seats, so a full room (16) stays full instead of refusing them.
//
//   tsx test/bench/server-bots.ts ENDPOINT ROOM_ID PLAYERS SPECTATORS SECONDS [ROUGH]

import { Client, type Room } from "@colyseus/sdk";
import { decodeSnapshot, type RoomState } from "../../shared/net";
import { ROUGH_PLAYER_SEATS } from "./bots-rough";

const [endpoint, roomId, players, spectators, seconds, rough] = process.argv.slice(2);
const until = Date.now() + Number(seconds) * 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface BodyInfo { id: string; index: number; spawnX: number; spawnY: number; spawnZ: number }

/** Rough centre of each body from the latest snapshot: spawn + the constant handle's translation. */
function tracker(room: Room) {
  const centres = new Map<number, [number, number, number]>();
  room.onMessage("snapshot", (bytes: Uint8Array) => {
    for (const body of decodeSnapshot(bytes).bodies) {
      const m = body.q.length / 3;
      centres.set(body.index, [body.q[3], body.q[m + 3], body.q[2 * m + 3]]);
    }
  });
  room.onMessage("*", () => {});
  return (info: BodyInfo): [number, number, number] => {
    const c = centres.get(info.index) ?? [0, 0, 0];
    return [info.spawnX + c[0], info.spawnY + c[1] + 0.02, info.spawnZ + c[2]];
  };
}

async function player(client: Client, n: number): Promise<void> {
  const room = await client.joinById<RoomState>(roomId, { name: `bot ${n}`, role: "player" });
  const centreOf = tracker(room);
  let seq = 0;
  const head = [Math.sin(n), 1.6, 1 + Math.cos(n)];
  const pose = setInterval(() => {
    const t = Date.now() / 1000;
    room.send("pose", {
      head: [head[0], head[1] + 0.02 * Math.sin(t), head[2], 0, 0, 0, 1],
      left: [head[0] - 0.2, 1.2, head[2] - 0.3, 0, 0, 0, 1],
      right: [head[0] + 0.2, 1.2 + 0.05 * Math.sin(3 * t), head[2] - 0.3, 0, 0, 0, 1],
    });
  }, 1000 / 72);
  while (Date.now() < until) {
    const bodies = [...(room.state?.bodies?.values() ?? [])];
    if (bodies.length === 0) { await sleep(100); continue; }
    const body = bodies[Math.floor(Math.random() * bodies.length)];
    const start = centreOf(body);
    const hand = Math.random() < 0.5 ? "left" : "right";
    room.send("grab-start", { hand, body: body.id, point: start, seq: ++seq });
    if (Math.random() < 0.5) {
      const frames = 60 + Math.floor(Math.random() * 60);
      for (let f = 0; f < frames && Date.now() < until; f++) {
        const a = (f / 60) * Math.PI;
        room.send("grab-move", { hand, target: [start[0] + 0.08 * Math.sin(a), start[1] + 0.1 * (1 - Math.cos(a)), start[2]], seq: ++seq });
        await sleep(1000 / 60);
      }
    } else {
      // A throw: lift 15 cm over a quarter second, then swing at 1 to 6 m/s for 0.1 s towards the room's centre.
      const speed = 1 + 5 * Math.random(), target = [...start];
      const heading = Math.atan2(-start[2], -start[0]);
      for (let f = 1; f <= 21 && Date.now() < until; f++) {
        if (f <= 15) target[1] = start[1] + 0.01 * f;
        else {
          target[0] += (speed / 60) * Math.cos(heading);
          target[2] += (speed / 60) * Math.sin(heading);
          target[1] += (0.5 * speed) / 60;
        }
        room.send("grab-move", { hand, target, seq: ++seq });
        await sleep(1000 / 60);
      }
    }
    room.send("grab-end", { hand, seq: ++seq });
    await sleep(300 + Math.random() * 500);
  }
  clearInterval(pose);
  await room.leave();
}

async function spectator(client: Client, n: number): Promise<void> {
  const room = await client.joinById<RoomState>(roomId, { name: `viewer ${n}`, role: "spectator" });
  room.onMessage("*", () => {});
  while (Date.now() < until) await sleep(200);
  await room.leave();
}

/** A visitor after another: joins as a spectator, looks for a moment, leaves. */
async function churn(client: Client): Promise<void> {
  for (let n = 0; Date.now() < until; n++) {
    const room = await client.joinById<RoomState>(roomId, { name: `passer-by ${n}`, role: "spectator" });
    room.onMessage("*", () => {});
    await sleep(500);
    await room.leave();
    await sleep(500);
  }
}

/** A headset on bad Wi-Fi: its socket drops without a goodbye every 15 s, and the SDK gets its seat back. */
async function flaky(client: Client): Promise<void> {
  const room = await client.joinById<RoomState>(roomId, { name: "flaky", role: "player" });
  room.onMessage("*", () => {});
  room.reconnection.minUptime = 1000;
  while (Date.now() < until) {
    await sleep(15_000);
    if (Date.now() < until) room.connection.close(4010, "wi-fi lost");
  }
  await room.leave().catch(() => undefined);
}

/** A client that sends rubbish as fast as it may without being kicked. */
async function misbehaving(client: Client): Promise<void> {
  const room = await client.joinById<RoomState>(roomId, { name: "mallory", role: "player" });
  room.onMessage("*", () => {});
  let seq = 0;
  for (let tick = 0; Date.now() < until; tick++) {
    room.send("grab-move", { hand: "tail", target: [0, 1, 0], seq: 1 });
    if (tick % 500 === 0) {
      (room.connection as unknown as { send(data: Uint8Array): void }).send(Uint8Array.from([13, 0xa4, 0x70, 0x6f, 0x73, 0x65, 0x92, 0x01]));
      for (let i = 0; i < 30; i++) {
        room.send("grab-start", { hand: "left", body: "spot", point: [0, 0.9, -0.6], seq: ++seq });
        room.send("grab-end", { hand: "left", seq: ++seq });
      }
    }
    await sleep(10);
  }
  await room.leave().catch(() => undefined);
}

const client = new Client(endpoint);
const jobs: Promise<void>[] = [];
const roughSeats = rough === "1" ? Math.min(ROUGH_PLAYER_SEATS, Number(players)) : 0;
for (let i = 0; i < Number(players) - roughSeats; i++) jobs.push(player(client, i));
for (let i = 0; i < Number(spectators); i++) jobs.push(spectator(client, i));
if (rough === "1") jobs.push(churn(client), flaky(client), misbehaving(client));
await Promise.all(jobs);
process.exit(0);
