// A room's characters: the layout's rigged characters baked, and those visitors upload; each a RoomCharacter with its
// slot in snapshots, in the room's state with its clips, stepped every tick, and, while nothing touches it, moved by
// the linearised flesh, or by its trained secondary-motion network on the clips that network learned; those beyond
// the room's budget (serverFleshCharacters) by every page's springs instead of the linearised flesh.

import { CharacterState, UPLOAD_LIMITS, type CharacterMode, type RoomState } from "../../shared/net";
import type { SceneWorld, SceneLayout } from "../../shared/scene";
import type { CharacterSpec } from "../../shared/scene/layout";
import type { BakedBody } from "../../shared/skinning";
import type { Subspace } from "../../shared/sim";
import { createSecondaryNetwork, readSecondaryModel, secondaryModelName } from "../characters/secondary-model";
import { bakeCharacters } from "../world/playground-characters";
import { characterFields, playgroundConfig } from "./playground-config";
import { RoomCharacter } from "./room-character";

export interface CharacterSetting {
  world: SceneWorld;
  state: RoomState;
  tickSeconds: number;
  fitCubature: boolean;
  /**
   * Move untouched flesh by layers cheaper than the solver: the linearised flesh, and the trained network on the clips
   * it learned where there is one (else the solver always moves it).
   */
  untouchedLayers: boolean;
  /**
   * How many characters, in the order they came, have their untouched flesh off their networks' clips moved by the
   * room (the linearised flesh); every page moves the others' with the spring layer.
   */
  serverFleshCharacters: number;
  /** The next free snapshot slot. */
  nextSlot(): number;
  /** Throws when the room was closed meanwhile (each character's setup waits on files). */
  stillWanted(): void;
}

export class RoomCharacters {
  /** Every character in the room, in the order they came (snapshots and grabs read this array; it is never replaced). */
  readonly all: RoomCharacter[] = [];

  constructor(private readonly setting: CharacterSetting) {}

  /** Bakes the layout's characters and seats them in the room, one by one. */
  async addLayout(specs: NonNullable<SceneLayout["characters"]>): Promise<void> {
    const setting = this.setting, choice = await characterFields();
    for (const { spec, bake, texture } of await bakeCharacters(specs, choice.provider, choice.providerKey, setting.fitCubature)) {
      const character = this.enter(spec, bake.body, bake.hash, texture, "", spec.id);
      if (setting.untouchedLayers) await attachNetwork(character, spec.mesh, setting.state);
      setting.stillWanted();
    }
  }

  /** Seats a character (its bake at hand) in the room and its state; `owner` who added it ("" for the layout's). */
  enter(spec: CharacterSpec, body: BakedBody, bakeHash: string, texture: string, owner: string, name: string): RoomCharacter {
    return this.seat(this.build(spec, body, name), bakeHash, texture, owner);
  }

  /**
   * A character made for this room, not yet in it (making one may throw: its rig is the file's); `subspace` its bake's
   * at its size when another thread built it.
   */
  build(spec: CharacterSpec, body: BakedBody, name: string, subspace?: Subspace): RoomCharacter {
    const setting = this.setting;
    const character = new RoomCharacter(spec.id, setting.nextSlot(), spec, body, setting.world.sceneObstacles(), setting.tickSeconds, name, subspace);
    if (setting.untouchedLayers) character.useUntouchedLayers();
    return character;
  }

  /** Puts a built character in the room and its state. */
  seat(character: RoomCharacter, bakeHash: string, texture: string, owner: string): RoomCharacter {
    const setting = this.setting, spec = character.spec, name = character.name;
    character.pagesMoveFlesh = this.all.filter((c) => !c.pagesMoveFlesh).length >= setting.serverFleshCharacters;
    this.all.push(character);
    setting.state.characters.set(spec.id, new CharacterState({
      id: spec.id, index: character.index, mesh: spec.mesh, bake: bakeHash, size: spec.size, texture,
      clips: character.character.rig.clips.map((c) => c.name).join(","), mode: character.mode, credit: spec.credit, owner, name,
    }));
    return character;
  }

  /** Takes a character out of the room and its state (whoever held it must have been let go first). */
  remove(character: RoomCharacter): void {
    const index = this.all.indexOf(character);
    if (index >= 0) this.all.splice(index, 1);
    this.setting.state.characters.delete(character.id);
  }

  /** A player's pick of what a visitor's character plays: null when done, else why not (the room's own are admins'). */
  direct(id: string, mode: CharacterMode): string | null {
    const character = this.all.find((c) => c.id === id);
    if (!character) return `no character "${id}" in this room`;
    if (!this.uploaded().includes(character)) return `the ${character.name} is the room's own: only an admin directs it`;
    setCharacterMode(character, this.setting.state, mode);
    return null;
  }

  /** The characters visitors added, oldest first. */
  uploaded(): RoomCharacter[] {
    return this.all.filter((c) => (this.setting.state.characters.get(c.id)?.owner ?? "") !== "");
  }

  /** One tick of every character; the state says where each one's flesh comes from. */
  step(): void {
    for (const character of this.all) {
      character.step();
      const state = this.setting.state.characters.get(character.id)!;
      if (state.flesh !== character.fleshSource) state.flesh = character.fleshSource;
    }
  }
}

/** Sets what a character plays, in its director and the room's state (an admin's pick, or a player's: `direct`). */
export function setCharacterMode(character: RoomCharacter, state: RoomState, mode: CharacterMode): void {
  character.setMode(mode);
  state.characters.get(character.id)!.mode = mode;
}

/**
 * An uploaded rigged mesh as a character: it plays in place on the room's stage (a loop of radius 0), at
 * UPLOAD_LIMITS.characterSize, its walk, run and look clips picked by their names (the first clip where none fits).
 */
export function uploadedCharacterSpec(id: string, hash: string, clips: readonly string[], stage: NonNullable<SceneLayout["stage"]>, credit: string): CharacterSpec {
  const named = (pattern: RegExp, otherwise: string) => clips.find((c) => pattern.test(c)) ?? otherwise;
  const walk = named(/walk/i, named(/run|jog/i, clips[0]));
  return {
    id, mesh: `upload:${hash}`, size: UPLOAD_LIMITS.characterSize, path: { centre: [stage.centre[0], stage.centre[1]], radii: [0, 0] },
    clips: { walk, run: named(/run|jog|sprint/i, walk), look: named(/idle|survey|look|stand|breath/i, walk) }, speeds: { walk: 0, run: 0 },
    credit, facing: stage.facing, ground: stage.ground,
  };
}

/** A character's trained secondary-motion network, when there is one: it moves the flesh of clips it learned while nothing touches it. */
async function attachNetwork(character: RoomCharacter, mesh: string, state: RoomState): Promise<void> {
  const name = secondaryModelName(mesh), files = await readSecondaryModel(name);
  if (!files) return;
  try {
    character.useUntouchedLayers(await createSecondaryNetwork(files));
    state.characters.get(character.id)!.network = `secondary-${name}`;
  } catch (error) {
    playgroundConfig().log(`the ${character.id}'s secondary-motion network did not load (${(error as Error).message}); the solver and the linearised flesh move its flesh`);
  }
}
