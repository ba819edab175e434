// A visitor's character (an uploaded skinned glTF) as a player directs it: which one, what it plays, and the pick of
// the next clip (the wrist menu's "character" button; players send `direct-character`, the room's own characters are
// admins').

import { CHARACTER_MODES, MESSAGES, type CharacterMode, type DirectCharacterMessage } from "../protocol";
import type { PliantRoomClient } from "../room-client";

/** The character a visitor added most recently (the one the room holds), as the room state has it, or null. */
export function visitorsCharacter(client: PliantRoomClient): { id: string; name: string; mode: CharacterMode } | null {
  let found: { id: string; name: string; mode: CharacterMode } | null = null;
  client.room.state?.characters?.forEach((character) => {
    if (character.owner !== "") found = { id: character.id, name: character.name || character.id, mode: character.mode as CharacterMode };
  });
  return found;
}

/** The mode after `mode` in the pick's cycle (auto, walk, run, look, stop). */
export function nextCharacterMode(mode: CharacterMode): CharacterMode {
  return CHARACTER_MODES[(CHARACTER_MODES.indexOf(mode) + 1) % CHARACTER_MODES.length];
}

/** Asks the room to have a visitor's character play `mode` (a refusal comes back as a notice). */
export function directCharacter(client: PliantRoomClient, character: string, mode: CharacterMode): void {
  client.room.send(MESSAGES.directCharacter, { character, mode } satisfies DirectCharacterMessage);
}
