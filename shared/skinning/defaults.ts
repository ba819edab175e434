// What a bake uses when nothing else is asked for: the CLIs, the server's SKINNING and the playground read these.

import { baselineProvider } from "./baseline";

/**
 * The default fields: still the baseline. The skinning eigenmodes with fitted cubature are closest to full FEM
 * (models/README.md), but 16 global modes have no local detail: in the room, a fingertip pressed 1 cm into the
 * dough ball rolls the ball out from under it instead of denting it (the headset test's poke fails; in Node,
 * test/scene/fingertip-dent.test.ts). The switch waits for
 * local fields beside the modes that hold up under rough play: surface bumps (eigen.ts, `localFields`) dent, but
 * with fitted cubature they let the jelly spot buzz and a yanked body tangle (issue 11's note).
 */
export const DEFAULT_FIELD_PROVIDER = baselineProvider;

/** Fit the cubature to the fields (cubature-fit.ts) by default? Not yet: the room's materials and grabs were tuned on clustered bodies. */
export const FIT_CUBATURE_BY_DEFAULT = false;
