// What a process's playground rooms are made of. Set once at start-up by the server (room options cannot carry
// functions across processes when Redis dispatches room creation, so this lives in the process).

import { PLAYGROUND, type SceneLayout } from "../../shared/scene";
import { UPLOAD_LIMITS } from "../../shared/net";
import { DEFAULT_IDLE_RESET_MINUTES } from "./table-reset";
import { ATTRACT_WOBBLE_SECONDS } from "./attract-wobble";
import { FIT_CUBATURE_BY_DEFAULT } from "../../shared/skinning";
import { SERVER_FLESH_CHARACTERS } from "../../shared/rig/character-defaults";
import { CHARACTER_WEIGHTS, DEFAULT_WEIGHTS, fieldChoice, type FieldChoice, type WeightsSource } from "../skinning/weights-source";

export interface PlaygroundConfig {
  layout: SceneLayout;
  /** The bodies' skinning fields and their bake cache key; null: the default (DEFAULT_WEIGHTS), loaded on first use. */
  fields: FieldChoice | null;
  /** The characters' (CHARACTER_WEIGHTS when null: their secondary-motion networks were trained on those). */
  characterFields: FieldChoice | null;
  /** Bake the bodies with cubature fitted to their fields (BakeOptions.fitCubature). */
  fitCubature: boolean;
  adminToken: string;
  /** Seconds a dropped client keeps its seat, name, colour and slot for a reconnection. */
  reconnectSeconds: number;
  /** Minutes without a grab or a poke after which a room's table is reset (0: never); an admin may change it per room. */
  idleResetMinutes: number;
  /** Seconds between the bounces of an idle room's bodies while a kiosk watches (0: never; attract-wobble.ts). */
  attractWobbleSeconds: number;
  /** Largest extent added bodies are scaled to, m. */
  uploadSize: number;
  /**
   * Characters with a trained secondary-motion network (models/secondary-NAME.onnx) let it move their flesh while
   * nothing touches them (server/characters/flesh-switch.ts); false: the solver always does.
   */
  learnedFlesh: boolean;
  /**
   * With learnedFlesh: how many characters, the room's own first, have their untouched flesh moved by the room (the
   * linearised flesh, off their networks' clips); each page moves the others' with the spring layer.
   */
  serverFleshCharacters: number;
  /** A bake another process made (Redis), when this one's cache lacks it; null when none is shared. */
  fetchSharedBake: (hash: string) => Promise<Uint8Array | null>;
  /** Log a line per dropped message (rate-limited per client). */
  log: (line: string) => void;
}

let config: PlaygroundConfig = {
  layout: PLAYGROUND,
  fields: null,
  characterFields: null,
  fitCubature: FIT_CUBATURE_BY_DEFAULT,
  adminToken: "",
  reconnectSeconds: 20,
  idleResetMinutes: DEFAULT_IDLE_RESET_MINUTES,
  attractWobbleSeconds: ATTRACT_WOBBLE_SECONDS,
  uploadSize: UPLOAD_LIMITS.defaultSize,
  learnedFlesh: true,
  serverFleshCharacters: SERVER_FLESH_CHARACTERS,
  fetchSharedBake: async () => null,
  log: (line) => process.stderr.write(`${line}\n`),
};

export function configurePlayground(next: Partial<PlaygroundConfig>): void {
  config = { ...config, ...next };
}

export function playgroundConfig(): PlaygroundConfig {
  return config;
}

const defaultFields = new Map<WeightsSource, Promise<FieldChoice>>();

function fieldsOnce(weights: WeightsSource): Promise<FieldChoice> {
  let choice = defaultFields.get(weights);
  if (!choice) {
    defaultFields.set(weights, (choice = fieldChoice(weights)));
    choice.catch(() => defaultFields.delete(weights));
  }
  return choice;
}

/** The bodies' configured fields, or the default ones (the network loads once per process). */
export async function roomFields(): Promise<FieldChoice> {
  return config.fields ?? (await fieldsOnce(DEFAULT_WEIGHTS));
}

/** The characters' configured fields, or CHARACTER_WEIGHTS'. */
export async function characterFields(): Promise<FieldChoice> {
  return config.characterFields ?? (await fieldsOnce(CHARACTER_WEIGHTS));
}
