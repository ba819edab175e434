// A client builds a character once its bake has come, and shows where its flesh comes from as the room's state says
// it then, not as it said when the bake was asked for: an uploaded character's flesh changes once, right after it
// joins, and a room where nothing else changes sends no further state to correct it.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, it, vi } from "vitest";
import { parseMesh } from "../../shared/geometry";
import { ClientCharacters } from "../../shared/net/client-characters";
import { CharacterState, RoomState } from "../../shared/net/state";
import { bakeMesh, baselineProvider, clientBakedBody, encodeBakedBody } from "../../shared/skinning";

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
