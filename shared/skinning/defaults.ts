// What a bake uses when nothing else is asked for: the CLIs, the server's SKINNING and the playground read these.

import { baselineProvider } from "./baseline";

/**
 * The default fields: still the baseline. The skinning eigenmodes with fitted cubature are closest to full FEM
 * (models/README.md), but 16 global modes have no local detail (a fingertip poke no longer dents the dough ball)
 * and fitted bodies are stiffer than the clustered ones the room's materials were tuned on: the switch waits for
 * local fields beside the modes and retuned materials (issue 11's note).
 */
export const DEFAULT_FIELD_PROVIDER = baselineProvider;

/** Fit the cubature to the fields (cubature-fit.ts) by default? Not yet, for the same reason. */
export const FIT_CUBATURE_BY_DEFAULT = false;
