// Mesh geometry for Pliant: parsing and cleaning, normalisation, surface and interior (cubature) sampling,
// and a robust inside test. Isomorphic: no DOM, no Node built-ins.
export type { TriangleMesh, Bounds } from "./types";
export { MeshError } from "./mesh-error";
export { MESH_LIMITS, resolveLimits, type MeshLimits } from "./limits";
export { meshFormatFromName, type MeshFormat } from "./mesh-format";
export { parseMesh, type ParseMeshOptions } from "./parse-mesh";
export { cleanMesh, type CleanMeshOptions } from "./clean-mesh";
export { boxMesh } from "./box-mesh";
export { sphereMesh } from "./sphere-mesh";
export { meshBounds, boundsDiagonal } from "./bounds";
export { normaliseMesh } from "./normalise-mesh";
export { signedVolume, surfaceArea, triangleAreas } from "./mesh-measures";
export { sampleSurface, type SurfaceSamples } from "./sample-surface";
export { farthestPointIndices, farthestPoints } from "./farthest-points";
export { createInsideTest, insideAtGrid, type InsideTest, type WindingInsideTest } from "./inside-test";
export { WindingNumberTree, type WindingNumberTreeOptions } from "./winding-number-tree";
export {
  sampleInterior,
  DEFAULT_INTERIOR_CANDIDATES,
  jitteredInside,
  interiorCandidates,
  type InteriorSampleOptions,
  type InteriorSamples,
} from "./sample-interior";
export { Random, createRandom } from "./random";
export { thickenFlatMesh, flatPlane, FLAT_MESH_THICKNESS, NEARLY_FLAT, type FlatPlane } from "./thicken";
export { gltfBaseColourImage, type BaseColourImage } from "./gltf-base-colour";
export { imageSize, type ImageSize } from "./image-size";
export { readGltfDocument } from "./parse-gltf";
