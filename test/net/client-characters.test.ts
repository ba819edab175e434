// A client builds a character once its bake has come, and shows where its flesh comes from as the room's state says
// it then, not as it said when the bake was asked for: an uploaded character's flesh changes once, right after it
// joins, and a room where nothing else changes sends no further state to correct it. A character beyond the room's
// budget is moved by the client's own spring layer, checked against the solver on the same poses; one whose springs
// cannot be made is shown as snapshots have it.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, it, vi } from "vitest";
import { parseMesh } from "../../shared/geometry";
import { ClientCharacters } from "../../shared/net/client-characters";
import { CharacterState, RoomState } from "../../shared/net/state";
import { bakeMesh, baselineProvider, clientBakedBody, decodeBakedBody, encodeBakedBody } from "../../shared/skinning";
import { CharacterBody, surfaceRms } from "../../shared/rig";
import { fleshFor } from "../../shared/rig/character-defaults";
import { TICK_RATE } from "../../shared/net/protocol";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");

it("a character whose flesh changed while its bake was on the way shows the flesh the state says now", async () => {
  const { body } = await bakeMesh(await parseMesh(new Uint8Array(await readFile(FOX)), "glb"), baselineProvider, { handles: 8, cubature: 64 });
  const bytes = encodeBakedBody(clientBakedBody(body), { floats: "f32" });
  let deliver!: (bytes: Uint8Array) => void;
  const characters = new ClientCharacters(() => new Promise((resolve) => (deliver = resolve)), () => undefined);
  // The SDK keeps one object per character and changes its fields in place.
  const room = new RoomState(), state = room.characters;
  const info = new CharacterState({ id: "little-fox", index: 4, bake: "hash", size: 0.3, texture: "", clips: "Run,Survey,Walk", mode: "walk", network: "", flesh: "sim" });
  state.set(info.id, info);
  characters.sync(state, Date.now());
  await vi.waitFor(() => expect(deliver).toBeDefined());
  info.flesh = "linear";
  characters.sync(state, Date.now());
  deliver(bytes);
  await vi.waitFor(() => expect(characters.all.get(info.id)).toBeDefined());
  expect(characters.all.get(info.id)!.flesh).toBe("linear");
  // And later changes are followed as they come.
  info.flesh = "sim";
  characters.sync(state, Date.now());
  expect(characters.all.get(info.id)!.flesh).toBe("sim");
});

it("a character the pages move is moved by the client's own springs on the pose it shows, nearer the solver's flesh than no soft part", async () => {
  const { body } = await bakeMesh(await parseMesh(new Uint8Array(await readFile(FOX)), "glb"), baselineProvider, { handles: 8, cubature: 64 });
  const baked = decodeBakedBody(encodeBakedBody(clientBakedBody(body), { floats: "f32" }));
  const characters = new ClientCharacters(async () => encodeBakedBody(clientBakedBody(body), { floats: "f32" }), () => undefined);
  const room = new RoomState(), state = room.characters, size = 0.3;
  const info = new CharacterState({ id: "little-fox", index: 4, bake: "hash", size, texture: "", clips: "Run,Survey,Walk", mode: "run", network: "", flesh: "springs" });
  state.set(info.id, info);
  characters.sync(state, 0);
  await vi.waitFor(() => expect(characters.all.get(info.id)).toBeDefined());
  const shown = characters.all.get(info.id)!;
  // Its springs' model was asked for with the character (a page's worker finds it; here, in this thread).
  await vi.waitFor(() => expect(shown.ownSprings).not.toBeNull());

  // The server's solver on the same poses: the flesh the springs stand in for.
  const flesh = fleshFor(size), solver = new CharacterBody(baked, size, flesh, { dt: 1 / TICK_RATE, damping: flesh.damping });
  const clip = solver.rig.clips.findIndex((c) => c.name === "Run"), run = solver.rig.clips[clip];
  const difference = new Float64Array(solver.body.n);
  let error2 = 0, none2 = 0;
  const ticks = 4 * TICK_RATE;
  for (let tick = 1; tick <= ticks; tick++) {
    // Snapshots carry its pose and no flesh; the client shows each as it comes.
    const time = tick / TICK_RATE, at = (1000 * tick) / TICK_RATE;
    characters.pose({ index: info.index, clip, time, clip2: clip, time2: time, blend: 1, running: true, running2: true, position: new Float64Array(3), yaw: 0 }, tick, at);
    characters.show(at);
    solver.pose.sample(run, time % run.duration);
    solver.step();
    if (tick <= TICK_RATE) continue;
    for (let i = 0; i < difference.length; i++) difference[i] = shown.displayQ[i] - solver.body.q[i];
    error2 += surfaceRms(solver.subspace, difference) ** 2;
    none2 += surfaceRms(solver.subspace, solver.body.q) ** 2;
  }
  const ratio = Math.sqrt(error2 / none2);
  console.info(`the client's springs on the Run: ${ratio.toFixed(3)}x the error of no soft part, ${shown.ownSprings!.steps} steps at ${(shown.ownSprings!.ms / shown.ownSprings!.steps).toFixed(3)} ms`);
  expect(shown.learnedWeight).toBe(1);
  expect(shown.ownSprings!.steps).toBeGreaterThanOrEqual(ticks - 1);
  expect(ratio).toBeLessThan(0.85);
}, 60_000);

it("a character whose springs cannot be made is shown as snapshots have it, with a warning, and nothing throws", async () => {
  const { body } = await bakeMesh(await parseMesh(new Uint8Array(await readFile(FOX)), "glb"), baselineProvider, { handles: 8, cubature: 64 });
  const characters = new ClientCharacters(async () => encodeBakedBody(clientBakedBody(body), { floats: "f32" }), () => undefined);
  characters.findSpringModel = async () => { throw new Error("the worker could not load"); };
  const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
  const room = new RoomState(), state = room.characters;
  const info = new CharacterState({ id: "little-fox", index: 4, bake: "hash", size: 0.3, texture: "", clips: "Run,Survey,Walk", mode: "run", network: "", flesh: "springs" });
  state.set(info.id, info);
  characters.sync(state, 0);
  await vi.waitFor(() => expect(characters.all.get(info.id)).toBeDefined());
  await vi.waitFor(() => expect(warn.mock.calls.some(([line]) => /little-fox.*springs could not be made.*the worker could not load/.test(String(line)))).toBe(true));
  const shown = characters.all.get(info.id)!;
  for (let tick = 1; tick <= 30; tick++) {
    characters.pose({ index: info.index, clip: 0, time: tick / TICK_RATE, clip2: 0, time2: tick / TICK_RATE, blend: 1, running: true, running2: true, position: new Float64Array(3), yaw: 0 }, tick, (1000 * tick) / TICK_RATE);
    characters.show((1000 * tick) / TICK_RATE);
  }
  expect(shown.ownSprings).toBeNull();
  expect(shown.learnedWeight).toBe(0);
  expect(shown.displayQ.every((v) => v === 0)).toBe(true);
  warn.mockRestore();
});
