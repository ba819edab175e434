// What a process's playground rooms are made of. Set once at start-up by the server (room options cannot carry
// functions across processes when Redis dispatches room creation, so this lives in the process).

import { PLAYGROUND, type SceneLayout } from "../../shared/scene";
import { UPLOAD_LIMITS } from "../../shared/net";
import { DEFAULT_IDLE_RESET_MINUTES } from "./table-reset";
import { ATTRACT_WOBBLE_SECONDS } from "./attract-wobble";
import { DEFAULT_FIELD_PROVIDER, FIT_CUBATURE_BY_DEFAULT, type SkinningFieldProvider } from "../../shared/skinning";

export interface PlaygroundConfig {
  layout: SceneLayout;
  provider: SkinningFieldProvider;
  /** Identifies the provider's fields in bake cache keys ("eigen", "baseline", or the model files' hash). */
  providerKey: string;
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
  provider: DEFAULT_FIELD_PROVIDER,
  providerKey: DEFAULT_FIELD_PROVIDER.name,
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
