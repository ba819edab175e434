// What a bake uses when nothing else is asked for. The default fields themselves (the network finished by
// Rayleigh-Ritz) need onnxruntime, so they are named on the server: server/skinning/weights-source.ts.

/** Fit the cubature to the fields (cubature-fit.ts): clustered cubature softens thin parts far below their own fields. */
export const FIT_CUBATURE_BY_DEFAULT = true;
