// A room's characters: the layout's rigged characters baked, each a RoomCharacter with its slot in snapshots, in the
// room's state with its clips, and moved by its trained secondary-motion network when it has one.

import { CharacterState, type RoomState } from "../../shared/net";
import type { SceneWorld, SceneLayout } from "../../shared/scene";
import { createSecondaryNetwork, readSecondaryModel, secondaryModelName } from "../characters/secondary-model";
import { bakeCharacters } from "../world/playground-characters";
import { characterFields, playgroundConfig } from "./playground-config";
import { RoomCharacter } from "./room-character";

export interface CharacterSetting {
  world: SceneWorld;
  state: RoomState;
  tickSeconds: number;
  fitCubature: boolean;
  /** Move the flesh with the trained network where there is one (else the solver does). */
  learnedFlesh: boolean;
  /** The next free snapshot slot. */
  nextSlot(): number;
  /** Throws when the room was closed meanwhile (each character's setup waits on files). */
  stillWanted(): void;
}

/** Bakes the layout's characters and seats them in the room, one by one (`added` hears each as it comes). */
export async function addCharacters(specs: NonNullable<SceneLayout["characters"]>, setting: CharacterSetting, added: (character: RoomCharacter) => void): Promise<void> {
  const choice = await characterFields();
  for (const { spec, bake, texture } of await bakeCharacters(specs, choice.provider, choice.providerKey, setting.fitCubature)) {
    const character = new RoomCharacter(spec.id, setting.nextSlot(), spec, bake.body, setting.world.sceneObstacles(), setting.tickSeconds);
    added(character);
    setting.state.characters.set(spec.id, new CharacterState({
      id: spec.id, index: character.index, mesh: spec.mesh, bake: bake.hash, size: spec.size, texture,
      clips: character.character.rig.clips.map((c) => c.name).join(","), mode: character.mode, credit: spec.credit,
    }));
    if (setting.learnedFlesh) await attachNetwork(character, spec.mesh, setting.state);
    setting.stillWanted();
  }
}

/** A character's trained secondary-motion network, when there is one: it moves the flesh while nothing touches it. */
async function attachNetwork(character: RoomCharacter, mesh: string, state: RoomState): Promise<void> {
  const name = secondaryModelName(mesh), files = await readSecondaryModel(name);
  if (!files) return;
  try {
    character.attachNetwork(await createSecondaryNetwork(files));
    state.characters.get(character.id)!.network = `secondary-${name}`;
  } catch (error) {
    playgroundConfig().log(`the ${character.id}'s secondary-motion network did not load (${(error as Error).message}); the solver moves its flesh`);
  }
}
