// What a bake uses when nothing else is asked for: the CLIs, the server's SKINNING and the playground read these.

import { eigenProvider } from "./eigen";

/**
 * The default fields: skinning eigenmodes with four surface bumps beside them (eigen.ts), the closest to full FEM
 * of every provider measured (models/README.md: a mean frequency ratio of 1.13 over 14 solids against the
 * baseline's 1.40 and the network's 1.49), within the bake-time budget; the bumps let a fingertip dent the dough
 * ball instead of rolling it away (test/scene/fingertip-dent.test.ts).
 */
export const DEFAULT_FIELD_PROVIDER = eigenProvider;

/** Fit the cubature to the fields (cubature-fit.ts): clustered cubature softens thin parts far below their own fields. */
export const FIT_CUBATURE_BY_DEFAULT = true;
