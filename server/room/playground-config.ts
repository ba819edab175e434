// What a process's playground rooms are made of. Set once at start-up by the server (room options cannot carry
// functions across processes when Redis dispatches room creation, so this lives in the process).

import { PLAYGROUND, type SceneLayout } from "../../shared/scene";
import { UPLOAD_LIMITS } from "../../shared/net";
import { DEFAULT_IDLE_RESET_MINUTES } from "./table-reset";
import { ATTRACT_WOBBLE_SECONDS } from "./attract-wobble";
import { FIT_CUBATURE_BY_DEFAULT } from "../../shared/skinning";
import { fieldChoice, type FieldChoice } from "../skinning/weights-source";

export interface PlaygroundConfig {
  layout: SceneLayout;
  /** The bodies' skinning fields and their bake cache key; null: the default (DEFAULT_WEIGHTS), loaded on first use. */
  fields: FieldChoice | null;
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
  /** A bake another process made (Redis), when this one's cache lacks it; null when none is shared. */
  fetchSharedBake: (hash: string) => Promise<Uint8Array | null>;
  /** Log a line per dropped message (rate-limited per client). */
  log: (line: string) => void;
}

let config: PlaygroundConfig = {
  layout: PLAYGROUND,
  fields: null,
  fitCubature: FIT_CUBATURE_BY_DEFAULT,
  adminToken: "",
  reconnectSeconds: 20,
  idleResetMinutes: DEFAULT_IDLE_RESET_MINUTES,
  attractWobbleSeconds: ATTRACT_WOBBLE_SECONDS,
  uploadSize: UPLOAD_LIMITS.defaultSize,
  learnedFlesh: true,
  fetchSharedBake: async () => null,
  log: (line) => process.stderr.write(`${line}\n`),
};

export function configurePlayground(next: Partial<PlaygroundConfig>): void {
  config = { ...config, ...next };
}

export function playgroundConfig(): PlaygroundConfig {
  return config;
}

let defaultFields: Promise<FieldChoice> | undefined;

/** The configured fields, or the default ones (the network loads once per process). */
export async function roomFields(): Promise<FieldChoice> {
  if (config.fields) return config.fields;
  defaultFields ??= fieldChoice().catch((error) => {
    defaultFields = undefined;
    throw error;
  });
  return await defaultFields;
}
