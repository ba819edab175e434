// What a bake uses when nothing else is asked for: the CLIs, the server's SKINNING and the playground read these.

import { eigenProvider } from "./eigen";

/**
 * The default fields: the skinning eigenmodes, closest to full FEM of every provider measured (models/README.md:
 * 1.12x over 14 solids against the baseline's 1.40x and the network's), and within the bake-time budget.
 */
export const DEFAULT_FIELD_PROVIDER = eigenProvider;

/** Fit the cubature to the fields (cubature-fit.ts): clustered cubature softens bodies below their own fields. */
export const FIT_CUBATURE_BY_DEFAULT = true;
