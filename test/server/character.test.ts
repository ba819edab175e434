// The fox in the room, from outside: a raw client written from docs/protocol.md sees it in the state and follows it
// in snapshots (its pose walking the loop around the table on the server's clock, its soft part as a body's q);
// players grab and poke it while it walks, and its flesh answers; an admin stops it and makes it run, and
// malformed character commands change nothing. Here the solver always moves its flesh (its network's part, and the
// hand-over between the two, are learned-flesh.test.ts's).

import { Client } from "@colyseus/sdk";
import { expect, it, vi } from "vitest";
import { decodeSnapshot, MESSAGES, type CharacterSnapshot, type DecodedSnapshot, type RoomState } from "../../shared/net";
import { PLAYGROUND } from "../../shared/scene";
import { CHARACTER_GRAB_SLIP } from "../../shared/rig/character-defaults";
import { configurePlayground } from "../../server/room/playground-config";
import { ADMIN_TOKEN, flankSample, joinClient, pressIntoFlank, serverRoom, ticksPass, useTestServer } from "./helpers";

configurePlayground({ learnedFlesh: false });
const server = useTestServer();
const FOX = PLAYGROUND.characters![0];

interface Watch { snapshots: DecodedSnapshot[]; stop(): void }

function watchSnapshots(room: { onMessage(type: string, listener: (bytes: Uint8Array) => void): () => void }): Watch {
  const snapshots: DecodedSnapshot[] = [];
  const stop = room.onMessage(MESSAGES.snapshot, (bytes) => snapshots.push(decodeSnapshot(bytes)));
  return { snapshots, stop };
}

function foxEntries(watch: Watch, index: number): CharacterSnapshot[] {
  return watch.snapshots.flatMap((s) => s.characters.filter((c) => c.index === index));
}

it("a spectator sees the fox walk its loop around the table, its pose and soft part in snapshots", async () => {
  const spectator = await new Client(server.endpoint).join<RoomState>("playground", { role: "spectator", name: "Watcher" });
  const watch = watchSnapshots(spectator);
  try {
    await vi.waitFor(() => expect(spectator.state.characters?.size).toBe(1), { timeout: 20_000 });
    const fox = spectator.state.characters.get("fox")!;
    expect(fox.clips.split(",").sort()).toEqual(["Run", "Survey", "Walk"]);
    expect(fox.mode).toBe("auto");
    expect(fox.size).toBeCloseTo(FOX.size, 5);
    const bake = await fetch(`http://127.0.0.1:${server.server.port}/bakes/${fox.bake}`);
    expect(bake.status).toBe(200);
    await vi.waitFor(() => expect(foxEntries(watch, fox.index).length).toBeGreaterThan(30), { timeout: 20_000, interval: 50 });
    const entries = foxEntries(watch, fox.index), first = entries[0], last = entries[entries.length - 1];
    // Walking (the loop begins with a walk): the Walk clip's time runs on and the frame moves along the loop.
    const walk = fox.clips.split(",").indexOf("Walk");
    expect(last.clip2).toBe(walk);
    expect(last.running2).toBe(true);
    const travelled = Math.hypot(last.position[0] - first.position[0], last.position[2] - first.position[2]);
    console.info(`${entries.length} poses over ${((entries.length - 1) / 20).toFixed(1)} s of snapshots: the fox's frame moved ${travelled.toFixed(2)} m`);
    expect(travelled).toBeGreaterThan(0.3);
    // Its root stays on the loop: an ellipse about the table's centre, as far as its frame's offset from the root.
    for (const e of entries) {
      const x = e.position[0] - FOX.path.centre[0], z = e.position[2] - FOX.path.centre[1];
      const onLoop = Math.hypot(x / FOX.path.radii[0], z / FOX.path.radii[1]);
      expect(onLoop).toBeGreaterThan(0.7);
      expect(onLoop).toBeLessThan(1.3);
    }
    // The soft part travels as a body under the fox's index: 204 numbers, finite, not all zero.
    const soft = watch.snapshots.flatMap((s) => s.bodies.filter((b) => b.index === fox.index));
    expect(soft.length).toBeGreaterThan(10);
    expect(soft.every((b) => b.q.length === 204 && b.q.every(Number.isFinite))).toBe(true);
    expect(soft.some((b) => b.q.some((v) => v !== 0))).toBe(true);
  } finally {
    watch.stop();
    await spectator.leave();
  }
}, 120_000);

it("a player grabs the walking fox and its flesh stretches; a fingertip dents it; both let go", async () => {
  const player = await joinClient(server, { options: { role: "player", name: "Hands" } });
  const room = serverRoom(player.roomId), fox = room.roomCharacters[0], character = fox.character;
  try {
    await vi.waitFor(() => expect(player.characters.all.get("fox")?.shown).toBe(true), { timeout: 20_000, interval: 20 });
    const shown = player.characters.all.get("fox")!;
    // The highest point of its back as this client shows it: grab there, and pull up 15 cm.
    let top = 0;
    for (let i = 1; i < shown.surfaceWorld.length; i += 3) if (shown.surfaceWorld[i] > shown.surfaceWorld[top + 1]) top = i - 1;
    const point: [number, number, number] = [shown.surfaceWorld[top], shown.surfaceWorld[top + 1], shown.surfaceWorld[top + 2]];
    const result = await player.grab("right", "fox", point);
    expect(result.ok, result.reason).toBe(true);
    const stretches: number[] = [], rms: number[] = [];
    for (let k = 0; k < 30; k++) {
      player.moveGrab("right", [point[0], point[1] + 0.05, point[2]]);
      await ticksPass(room, 2);
      stretches.push(fox.stretch(`${player.room.sessionId}:right`));
      rms.push(character.softRms());
    }
    // The hand pulls the flesh: the held material trails its target by centimetres (the rig keeps walking, the hand
    // holds on), and the soft part is far from rest.
    console.info(`grab: the held flesh was drawn out by up to ${(1000 * Math.max(...stretches)).toFixed(1)} mm; soft RMS up to ${(1000 * Math.max(...rms)).toFixed(1)} mm`);
    expect(Math.max(...stretches)).toBeGreaterThan(0.005);
    expect(Math.max(...rms)).toBeGreaterThan(0.003);
    // However it walks on, a hand never draws the flesh out further than a slip.
    expect(Math.max(...stretches)).toBeLessThan(CHARACTER_GRAB_SLIP + 0.05);
    player.release("right");
    await vi.waitFor(() => expect(character.body.activeGrabs()).toBe(0), { timeout: 10_000, interval: 20 });

    // A fingertip pressed 1 cm into its flank as it walks, for half a second (pressIntoFlank).
    const dents = await pressIntoFlank(room, character, (centre, radius) => player.poke("left", centre, radius));
    console.info(`poke: the skin near the fingertip was pushed away from it by up to ${(1000 * Math.max(...dents)).toFixed(1)} mm`);
    // Pushed in by millimetres where the fingertip presses.
    expect(Math.max(...dents)).toBeGreaterThan(0.003);
  } finally {
    await player.stop();
  }
}, 120_000);

it("an admin stops the fox where it stands and makes it run; bad character commands are refused and change nothing", async () => {
  const admin = await new Client(server.endpoint).join<RoomState>("playground", { role: "spectator", name: "Admin", adminToken: ADMIN_TOKEN });
  const notices: { kind: string; message: string }[] = [];
  admin.onMessage(MESSAGES.notice, (n: { kind: string; message: string }) => notices.push(n));
  const room = serverRoom(admin.roomId), fox = room.roomCharacters[0];
  try {
    const framePosition = () => Array.from(fox.character.motion.framePosition);
    admin.send(MESSAGES.admin, { action: "character", character: "fox", mode: "stop" });
    await vi.waitFor(() => expect(room.state.characters.get("fox")!.mode).toBe("stop"), { timeout: 10_000, interval: 20 });
    await ticksPass(room, 30);
    const stopped = framePosition();
    await ticksPass(room, 60);
    expect(framePosition()).toEqual(stopped);
    expect(fox.pose.running).toBe(false);
    expect(fox.pose.running2).toBe(false);
    // Standing still, it is sent no more: a page joining now shows it from the full snapshot a joiner gets, where it
    // stands.
    const late = await joinClient(server, { roomId: admin.roomId, options: { role: "spectator", name: "Late" } });
    try {
      await vi.waitFor(() => expect(late.characters.all.get("fox")?.shown, "the stopped fox shown to a late joiner").toBe(true), { timeout: 20_000, interval: 20 });
      const shownFrame = late.characters.all.get("fox")!.motion.framePosition;
      expect(Math.hypot(shownFrame[0] - stopped[0], shownFrame[2] - stopped[2])).toBeLessThan(0.01);
      // A fingertip pressed into the standing fox's flank, held (refreshed): its pose is sent no more, only its soft
      // part, and the page must follow that to the dent the room holds.
      const player = await joinClient(server, { roomId: admin.roomId, options: { role: "player", name: "Finger" } });
      try {
        const motion = fox.character.motion, sample = flankSample(fox.character), p = motion.posedSurface;
        const skin = new Float64Array(3), centre = new Float64Array(3);
        motion.toWorld(p[3 * sample], p[3 * sample + 1], p[3 * sample + 2], skin);
        motion.toWorld(0, p[3 * sample + 1], 0, centre);
        const inward = [centre[0] - skin[0], 0, centre[2] - skin[2]], length = Math.hypot(inward[0], inward[2]);
        const tip: [number, number, number] = [skin[0] - (0.005 * inward[0]) / length, skin[1], skin[2] - (0.005 * inward[2]) / length];
        const shown = late.characters.all.get("fox")!, norm = (q: ArrayLike<number>) => Math.hypot(...Array.from(q));
        let gap = Infinity, held = 0;
        await vi.waitFor(async () => {
          player.poke("left", tip, 0.015);
          await ticksPass(room, 6);
          held = norm(fox.softQ);
          gap = norm(Array.from(shown.displayQ, (v, k) => v - fox.softQ[k]));
          expect(held, "the room's soft part under the fingertip").toBeGreaterThan(0.01);
          expect(gap, `the page's soft part from the room's (|q| ${held.toFixed(4)})`).toBeLessThan(0.1 * held);
        }, { timeout: 20_000, interval: 20 });
        console.info(`fingertip on the stopped fox: |q| ${held.toFixed(4)} in the room, the page ${gap.toFixed(5)} from it`);
        player.poke("left", tip, 0);
      } finally {
        await player.stop();
      }
    } finally {
      await late.stop();
    }

    admin.send(MESSAGES.admin, { action: "character", character: "fox", mode: "run" });
    await vi.waitFor(() => expect(room.state.characters.get("fox")!.mode).toBe("run"), { timeout: 10_000, interval: 20 });
    await ticksPass(room, 30);
    const before = framePosition();
    await ticksPass(room, 60);
    const after = framePosition();
    // A second of running covers well over the walk's half metre (the run is 1.8 m/s along the loop).
    expect(Math.hypot(after[0] - before[0], after[2] - before[2])).toBeGreaterThan(1);
    expect(fox.character.rig.clips[fox.pose.clip2].name).toBe(FOX.clips.run);

    for (const bad of [
      { action: "character", character: "wolf", mode: "run" },
      { action: "character", character: "fox", mode: "fly" },
      { action: "character", mode: "stop" },
      { action: "character", character: "fox", mode: ["stop"] },
    ]) admin.send(MESSAGES.admin, bad);
    await ticksPass(room, 30);
    expect(room.state.characters.get("fox")!.mode).toBe("run");
    admin.send(MESSAGES.admin, { action: "character", character: "fox", mode: "auto" });
    await vi.waitFor(() => expect(room.state.characters.get("fox")!.mode).toBe("auto"), { timeout: 10_000, interval: 20 });
    expect(notices.some((n) => n.kind === "admin" && /fox/.test(n.message))).toBe(true);
  } finally {
    await admin.leave();
  }
}, 120_000);
