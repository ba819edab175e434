// Any rigged glTF becomes a living character, as an outsider does it from docs/protocol.md: a ticket, POST /meshes
// with a skinned, animated glTF, and the room's `characters` gains it with its clips. It plays in place on the room's
// stage, its flesh answers its motion (untouched, the pages' springs; the solver under a hand), and a hand can hold it. A character in parts (two
// skins) and one without clips (it stands in its bind pose) come in too; a newer character sends the older away; a
// broken rig is refused with the reason and changes nothing.

import { matchMaker } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { expect, it, vi } from "vitest";
import { MESSAGES, ROOM_NAME, UPLOAD_LIMITS, type RoomState } from "../../shared/net";
import { PLAYGROUND } from "../../shared/scene";
import { ADMIN_TOKEN, pressIntoFlank, serverRoom, useTestServer, type TestServer } from "./helpers";
import { upload, uploadLanded } from "./upload-helpers";
import { REST_POSE_CLIP } from "../../server/uploads/upload-character";
import { editedFox, foxWithClipLasting, foxWithExtraJoints, foxWithoutClips, foxWithUnweightedVertex, nudgedFox, twoSkinFox } from "../rig/rigged-files";

const BAKED = { timeout: 120_000, interval: 50 };
const GLB = { "Content-Type": "model/gltf-binary" };
const STAGE = PLAYGROUND.stage!;

const server = useTestServer({ uploadRate: { perMinute: 600, burst: 100 }, warmUploads: true });

async function outsider(s: TestServer, roomId: string, role: "player" | "spectator"): Promise<Room<RoomState>> {
  const room = await new Client(s.endpoint).joinById<RoomState>(roomId, { role, name: `Outsider ${role}` });
  room.onMessage("*", () => undefined);
  return room;
}

function askTicket(room: Room): Promise<string> {
  return new Promise((resolve, reject) => {
    room.onMessage("upload-ticket", (message: { ticket: string; error?: string }) => (message.error ? reject(new Error(message.error)) : resolve(message.ticket)));
    room.send("upload-ticket", {});
  });
}

/** Waits for an upload's character; fails at once with the server's reason when its bake failed. */
const characterLanded = (roomId: string, id: string) => uploadLanded(server, roomId, id, "characters");

const freshRoom = async () => (await matchMaker.createRoom(ROOM_NAME, {})).roomId;

it("an outsider's rigged, animated glTF joins the room as a character: its clips, in place on the stage, its flesh moving, a hand holds it, a fingertip dents it, a player picks its clip", async () => {
  const roomId = await freshRoom();
  const player = await outsider(server, roomId, "player");
  const spectator = await outsider(server, roomId, "spectator");
  try {
    // Where the spectator saw its placeholder (a fox no run has baked before: the bake really runs).
    const placeholders = new Map<string, [number, number, number]>();
    spectator.onStateChange((state) => state.uploads?.forEach((u) => placeholders.set(u.id, [u.x, u.y, u.z])));
    const ticket = await askTicket(player);
    const sent = performance.now();
    const answer = await upload(server, `ticket=${ticket}&name=fox`, await nudgedFox(), GLB);
    expect(answer.status, answer.body.error).toBe(202);
    const { id } = answer.body as { id: string };
    expect((answer.body as { kind?: string }).kind).toBe("character");
    await characterLanded(roomId, id);
    console.info(`the fox was a character in the room ${((performance.now() - sent) / 1000).toFixed(2)} s after its request`);
    await vi.waitFor(() => expect(spectator.state.characters.get(id)).toBeDefined(), BAKED);
    // Its placeholder stood on the stage, where it plays.
    const [x, y, z] = placeholders.get(id)!;
    expect([x, y, z].map((v) => Math.round(v * 1e6) / 1e6)).toEqual([STAGE.centre[0], STAGE.ground, STAGE.centre[1]].map((v) => Math.round(Math.fround(v) * 1e6) / 1e6));
    const state = spectator.state.characters.get(id)!;
    expect(state.clips).toBe("Survey,Walk,Run");
    expect(state.owner).toBe(player.sessionId);
    expect(state.name).toBe("fox");
    expect(state.size).toBeCloseTo(UPLOAD_LIMITS.characterSize, 5);
    expect(state.mode).toBe("auto");
    expect((await fetch(`http://127.0.0.1:${server.server.port}/bakes/${state.bake}`)).status).toBe(200);

    // It walks in place: its clip's time runs on while it stays on the stage. Untouched, with no network, beyond the
    // room's budget of flesh it moves itself (its own fox's: SERVER_FLESH_CHARACTERS), its flesh is the pages' springs:
    // the state says so, and the server steps none of it (pages run them: test/net/client-characters.test.ts).
    const room = serverRoom(roomId), character = room.roomCharacters.find((c) => c.id === id)!;
    const times = new Set<number>();
    await vi.waitFor(() => {
      const frame = character.character.motion.framePosition, root = character.pose;
      expect(Math.hypot(root.x - STAGE.centre[0], root.z - STAGE.centre[1])).toBeLessThan(1e-9);
      expect(character.character.motion.frameYaw).toBeCloseTo(STAGE.facing, 9);
      expect(Number.isFinite(frame[0] + frame[1] + frame[2])).toBe(true);
      times.add(root.time2);
      expect(times.size).toBeGreaterThan(30);
      expect(spectator.state.characters.get(id)!.flesh).toBe("springs");
    }, BAKED);
    expect(character.fleshSource).toBe("springs");
    expect(character.softQ.every((v) => v === 0)).toBe(true);
    expect(character.character.body.q.every((v) => v === 0)).toBe(true);

    // A hand on its surface holds it (nobody predicts characters: the answer carries no samples).
    const motion = character.character.motion, posed = motion.posedSurface, point = new Float64Array(3);
    motion.toWorld(posed[0], posed[1], posed[2], point);
    const result = new Promise<{ ok: boolean; reason?: string }>((resolve) => player.onMessage(MESSAGES.grabResult, resolve));
    player.send(MESSAGES.grabStart, { hand: "right", body: id, point: [point[0], point[1], point[2]], seq: 1 });
    const answered = await result;
    expect(answered.ok, answered.reason).toBe(true);
    player.send(MESSAGES.grabEnd, { hand: "right", seq: 2 });
    // A fingertip pressed into its flank dents it, as the fox's (pressIntoFlank).
    const dents = await pressIntoFlank(room, character.character, (centre, radius) => player.send(MESSAGES.poke, { hand: "left", center: centre, radius }));
    console.info(`a fingertip pushed its skin in by up to ${(1000 * Math.max(...dents)).toFixed(1)} mm`);
    expect(Math.max(...dents)).toBeGreaterThan(0.001);

    // A player picks what it plays (the headset's wrist menu sends this): its run clip, in place. The room's own fox
    // is an admin's to direct; a mode that is none is refused; both change nothing.
    const notices: string[] = [];
    player.onMessage(MESSAGES.notice, (notice: { kind: string; message: string }) => notices.push(`${notice.kind}: ${notice.message}`));
    player.send(MESSAGES.directCharacter, { character: id, mode: "run" });
    await vi.waitFor(() => {
      expect(spectator.state.characters.get(id)!.mode).toBe("run");
      expect(character.character.rig.clips[character.pose.clip2].name).toBe("Run");
      expect(Math.hypot(character.pose.x - STAGE.centre[0], character.pose.z - STAGE.centre[1])).toBeLessThan(1e-9);
    }, BAKED);
    player.send(MESSAGES.directCharacter, { character: "fox", mode: "stop" });
    await vi.waitFor(() => expect(notices.some((n) => /^rejected: direct-character: the fox is the room's own: only an admin directs it/.test(n)), notices.join("; ")).toBe(true), BAKED);
    expect(room.state.characters.get("fox")!.mode).toBe("auto");
    // (At most one notice a second: the next refusal waits for it.)
    await vi.waitFor(() => {
      player.send(MESSAGES.directCharacter, { character: id, mode: "dance" });
      expect(notices.some((n) => /character mode must be auto, walk, run, look, stop/.test(n)), notices.join("; ")).toBe(true);
    }, { timeout: 120_000, interval: 200 });
    expect(room.state.characters.get(id)!.mode).toBe("run");
  } finally {
    await Promise.all([player.leave(), spectator.leave()]);
  }
}, 240_000);

it("a character in two parts with two skins, and then one without clips: each sends the one before away, the last stands still in its rest pose", async () => {
  const roomId = await freshRoom();
  const watcher = await outsider(server, roomId, "spectator");
  try {
    const notices: string[] = [];
    watcher.onMessage(MESSAGES.notice, (notice: { message: string }) => notices.push(notice.message));
    let sent = performance.now();
    const parts = await upload(server, `token=${ADMIN_TOKEN}&room=${roomId}&name=fox-in-parts`, await twoSkinFox(), GLB);
    expect(parts.status, parts.body.error).toBe(202);
    await characterLanded(roomId, parts.body.id!);
    console.info(`the fox in two parts was a character ${((performance.now() - sent) / 1000).toFixed(2)} s after its request`);
    await vi.waitFor(() => expect(watcher.state.characters.get(parts.body.id!)?.clips).toBe("Survey,Walk,Run"), BAKED);

    sent = performance.now();
    const still = await upload(server, `token=${ADMIN_TOKEN}&room=${roomId}&name=still-fox`, await foxWithoutClips(), GLB);
    expect(still.status, still.body.error).toBe(202);
    await characterLanded(roomId, still.body.id!);
    console.info(`the fox without clips was a character ${((performance.now() - sent) / 1000).toFixed(2)} s after its request`);
    await vi.waitFor(() => {
      expect(watcher.state.characters.get(still.body.id!)?.clips).toBe(REST_POSE_CLIP);
      expect(watcher.state.characters.has(parts.body.id!)).toBe(false);
      expect(notices.some((n) => n.includes("fox-in-parts left the table for still-fox"))).toBe(true);
    }, BAKED);
    // The layout's own fox stays; one uploaded character at a time.
    const room = serverRoom(roomId);
    expect(room.roomCharacters.map((c) => c.id).sort()).toEqual(["fox", still.body.id!].sort());
    // Standing still: its clip's time stays 0 and is not running (its pose is sent once), its flesh finite.
    const character = room.roomCharacters.find((c) => c.id === still.body.id)!;
    for (let k = 0; k < 30; k++) {
      const tick = room.sceneWorld.tick;
      await vi.waitFor(() => expect(room.sceneWorld.tick).toBeGreaterThan(tick), BAKED);
      expect(character.pose.time2).toBe(0);
      expect(character.pose.running2).toBe(false);
      expect(character.softQ.every(Number.isFinite)).toBe(true);
    }
  } finally {
    await watcher.leave();
  }
}, 300_000);

it("broken rigs are refused with the reason, and nothing in the room changes", async () => {
  const roomId = await freshRoom();
  const watcher = await outsider(server, roomId, "spectator");
  try {
    const state = serverRoom(roomId).state;
    const before = { bodies: [...state.bodies.keys()], characters: [...state.characters.keys()] };
    const files: [string, Uint8Array, RegExp][] = [
      ["500 joints", await foxWithExtraJoints(476), /its rig has 500 joints; a character may have at most 64/],
      ["a cycle", await editedFox((json) => {
        const leaf = json.skins![0].joints.at(-1)!;
        json.nodes![leaf].children = [...(json.nodes![leaf].children ?? []), 0];
      }), /cycle/],
      ["no inverse binds", await editedFox((json) => { delete json.skins![0].inverseBindMatrices; }), /no inverse bind matrices/],
      ["an unweighted vertex", await foxWithUnweightedVertex(), /has no skin weight/],
      ["a clip of a billion seconds", await foxWithClipLasting(1e9), /lasts 1000000000 s; a clip may last at most 600 s/],
      ["a key time that is no number", await foxWithClipLasting(Number.NaN), /key times must be finite, from 0 and in order/],
    ];
    for (const [what, bytes, reason] of files) {
      const answer = await upload(server, `token=${ADMIN_TOKEN}&room=${roomId}&name=${encodeURIComponent(what)}`, bytes, GLB);
      expect(answer.status, what).toBe(400);
      expect(answer.body.error, what).toMatch(reason);
    }
    expect(state.uploads.size).toBe(0);
    expect({ bodies: [...state.bodies.keys()], characters: [...state.characters.keys()] }).toEqual(before);
  } finally {
    await watcher.leave();
  }
}, 240_000);
