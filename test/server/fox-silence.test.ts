// What the fox costs an empty room, from outside: walking its whole loop past the props resting on the floor, its
// flesh stays its network's (nothing touches it), so snapshots carry its pose and never its soft part; stopped by an
// admin it falls silent, and with a prop pressed against its leg (the solver's flesh, held by the prop) it falls
// silent again once that flesh settles, while a page shows the dent the room holds.

import { Client } from "@colyseus/sdk";
import { expect, it, vi } from "vitest";
import { decodeSnapshot, MESSAGES, SNAPSHOT_RATE, type DecodedSnapshot, type RoomState } from "../../shared/net";
import { PLAYGROUND } from "../../shared/scene";
import { IDLE_SOFT_DISTANCE } from "../../server/room/room-character";
import { displacementAt, type Subspace } from "../../shared/sim";
import { ADMIN_TOKEN, joinClient, serverRoom, useTestServer } from "./helpers";

const server = useTestServer();
const FOX = PLAYGROUND.characters![0];
const FLOOR_PROPS = PLAYGROUND.props.filter((p) => p.position[1] - p.size < 0.01);
/** Room seconds without a snapshot that count as silent. */
const SILENT_SECONDS = 3;

const foxState = (room: { state: RoomState }) => room.state?.characters?.get("fox");

interface Received { snapshot: DecodedSnapshot; bytes: number }

/** The largest surface sample's displacement B q over a subspace's surface samples (m). */
function largestSurfaceDisplacement(subspace: Subspace, q: ArrayLike<number>): number {
  const u = new Float64Array(3);
  let largest = 0;
  for (let j = 0; j < subspace.surfaceCount; j++) {
    displacementAt(subspace.surfaceRows, q, j, u);
    largest = Math.max(largest, Math.hypot(u[0], u[1], u[2]));
  }
  return largest;
}

function watchSnapshots(room: { onMessage(type: string, listener: (bytes: Uint8Array) => void): () => void }) {
  const received: Received[] = [];
  const stop = room.onMessage(MESSAGES.snapshot, (bytes) => received.push({ snapshot: decodeSnapshot(bytes), bytes: bytes.byteLength }));
  return { received, stop };
}

it("walking its whole loop past the props on the floor, the fox keeps its network's flesh: snapshots carry its pose only", async () => {
  expect(FLOOR_PROPS.length).toBeGreaterThan(0);
  const spectator = await new Client(server.endpoint).join<RoomState>("playground", { role: "spectator", name: "Watcher" });
  const room = serverRoom(spectator.roomId), fox = room.roomCharacters[0];
  try {
    await vi.waitFor(() => expect(foxState(spectator)?.flesh).toBe("rnn"), { timeout: 20_000, interval: 20 });
    const index = foxState(spectator)!.index;
    const watch = watchSnapshots(spectator);
    const fleshSeen = new Set<string>();
    // Once round its loop (the angle about the loop's centre, unwrapped), noting how near it came to each floor prop.
    const angle = () => Math.atan2(fox.pose.z - FOX.path.centre[1], fox.pose.x - FOX.path.centre[0]);
    const nearest = FLOOR_PROPS.map(() => Infinity);
    let last = angle(), turned = 0;
    const startTick = room.sceneWorld.tick;
    await vi.waitFor(() => {
      const now = angle();
      let step = now - last;
      if (step > Math.PI) step -= 2 * Math.PI;
      if (step < -Math.PI) step += 2 * Math.PI;
      turned += step;
      last = now;
      fleshSeen.add(foxState(spectator)!.flesh);
      FLOOR_PROPS.forEach((p, k) => { nearest[k] = Math.min(nearest[k], Math.hypot(fox.bound[0] - p.position[0], fox.bound[2] - p.position[2])); });
      expect(Math.abs(turned)).toBeGreaterThan(2 * Math.PI);
    }, { timeout: 180_000, interval: 20 });
    const seconds = (room.sceneWorld.tick - startTick) / 60;
    watch.stop();
    const bytes = watch.received.reduce((a, r) => a + r.bytes, 0);
    const soft = watch.received.filter((r) => r.snapshot.bodies.some((b) => b.index === index)).length;
    const poses = watch.received.filter((r) => r.snapshot.characters.some((c) => c.index === index)).length;
    console.info(`one loop (${seconds.toFixed(1)} s of room time): ${watch.received.length} snapshots, ${(bytes / seconds).toFixed(0)} B/s, ` +
      `${soft} with its soft part, ${poses} with its pose; the fox's centre came within ${nearest.map((d) => d.toFixed(2)).join(" and ")} m of the floor props`);
    // It passed them within its bounding sphere's reach (0.48 m and 0.1 m), where the solver used to take over.
    for (const d of nearest) expect(d).toBeLessThan(0.7);
    expect([...fleshSeen]).toEqual(["rnn"]);
    expect(soft).toBe(0);
    // Its pose goes out while it walks (it stops to look around for a while each lap, standing still).
    expect(poses).toBeGreaterThan(0.5 * seconds * SNAPSHOT_RATE);
  } finally {
    await spectator.leave();
  }
}, 240_000);

it("stopped, the fox falls silent; with a prop pressed against its leg the solver holds its flesh, which settles and falls silent too", async () => {
  const admin = await new Client(server.endpoint).join<RoomState>("playground", { role: "spectator", name: "Admin", adminToken: ADMIN_TOKEN });
  const room = serverRoom(admin.roomId), fox = room.roomCharacters[0], world = room.sceneWorld;
  const page = await joinClient(server, { roomId: admin.roomId, options: { role: "spectator", name: "Page" } });
  const watch = watchSnapshots(page.room);
  let lastTick = world.tick;
  const stopListening = page.room.onMessage(MESSAGES.snapshot, () => { lastTick = world.tick; });
  const silentFor = (seconds: number) => world.tick - lastTick >= seconds * 60;
  try {
    await vi.waitFor(() => expect(page.characters.all.get("fox")?.shown).toBe(true), { timeout: 20_000, interval: 20 });
    admin.send(MESSAGES.admin, { action: "character", character: "fox", mode: "stop" });
    await vi.waitFor(() => expect(room.state.characters.get("fox")!.mode).toBe("stop"), { timeout: 10_000, interval: 20 });
    // The room's bodies settle too; then nothing at all is sent.
    await vi.waitFor(() => expect(silentFor(SILENT_SECONDS)).toBe(true), { timeout: 60_000, interval: 50 });

    // The floor's ball against a leg: the leg's sample nearest the ball's centre height, furthest to the side, and
    // the ball 1 cm further in than touching it there (the fox does not push props: it stays).
    const ballIndex = PLAYGROUND.props.findIndex((p) => p.shape === "ball" && p.position[1] - p.size < 0.01);
    const ball = world.props[ballIndex], radius = PLAYGROUND.props[ballIndex].size;
    const motion = fox.character.motion, p = motion.posedSurface, at = new Float64Array(3), centre = new Float64Array(3);
    let side = -1;
    for (let i = 0; i < p.length / 3; i++) {
      motion.toWorld(p[3 * i], p[3 * i + 1], p[3 * i + 2], at);
      if (Math.abs(at[1] - radius) < 0.02 && (side < 0 || p[3 * i] < p[3 * side])) side = i;
    }
    expect(side).toBeGreaterThanOrEqual(0);
    motion.toWorld(p[3 * side], p[3 * side + 1], p[3 * side + 2], at);
    motion.toWorld(0, p[3 * side + 1], p[3 * side + 2], centre);
    const out = [at[0] - centre[0], at[2] - centre[2]], length = Math.hypot(out[0], out[1]);
    ball.body.setTranslation({ x: at[0] + ((radius - 0.01) * out[0]) / length, y: radius, z: at[2] + ((radius - 0.01) * out[1]) / length }, true);
    ball.body.setLinvel({ x: 0, y: 0, z: 0 }, true);
    ball.body.setAngvel({ x: 0, y: 0, z: 0 }, true);
    const index = foxState(admin)!.index, since = watch.received.length;
    await vi.waitFor(() => expect(foxState(admin)!.flesh).toBe("sim"), { timeout: 10_000, interval: 20 });
    await vi.waitFor(() => expect(watch.received.slice(since).some((r) => r.snapshot.bodies.some((b) => b.index === index))).toBe(true), { timeout: 10_000, interval: 20 });
    // The solver keeps the flesh (the ball stays against it), and once it settles nothing more is sent.
    await vi.waitFor(() => expect(silentFor(SILENT_SECONDS)).toBe(true), { timeout: 60_000, interval: 50 });
    expect(foxState(admin)!.flesh).toBe("sim");
    // What the room holds must be a visible dent, and the silent page must show it to within what the room leaves
    // unsent: no surface sample of the shown flesh further than IDLE_SOFT_DISTANCE from the room's (q itself may
    // differ by more in directions the surface hardly shows), and 0.1 mm for the snapshot's 16-bit q.
    const held = fox.softQ, shown = page.characters.all.get("fox")!.displayQ, subspace = fox.character.subspace;
    const dent = largestSurfaceDisplacement(subspace, held);
    const gap = largestSurfaceDisplacement(subspace, Array.from(shown, (v, k) => v - held[k]));
    console.info(`a ball against the stopped fox's leg: the room's flesh moved up to ${(1000 * dent).toFixed(1)} mm, the silent page's within ${(1000 * gap).toFixed(2)} mm of it`);
    expect(dent).toBeGreaterThan(3 * IDLE_SOFT_DISTANCE);
    expect(gap).toBeLessThan(IDLE_SOFT_DISTANCE + 1e-4);
  } finally {
    await page.stop();
    stopListening();
    watch.stop();
    await admin.leave();
  }
}, 240_000);
