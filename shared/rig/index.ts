export * from "./rig";
export { RigPose, skinVertices } from "./rig-pose";
export { readRig } from "./gltf-rig";
export { RigBasis } from "./rig-basis";
export { complementaryDirections, type Complementarity } from "./complementary";
