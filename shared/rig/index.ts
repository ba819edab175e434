export * from "./rig";
export { RigPose, skinVertices } from "./rig-pose";
export { readRig } from "./gltf-rig";
export { RigBasis } from "./rig-basis";
export { complementaryDirections, ComplementarityMeter, type Complementarity } from "./complementary";
export { RigMoments, skinWeightsAt } from "./rig-moments";
export { ComplementaryProjection } from "./complementary-projection";
export { CharacterBody } from "./character-body";
