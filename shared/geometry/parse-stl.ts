// STL (binary or ASCII) through three's STLLoader: one triangle soup, welded later by cleanMesh like OBJ's corners.

import { STLLoader } from "three/examples/jsm/loaders/STLLoader.js";
import { checkCountLimits, type MeshLimits } from "./limits";
import { MeshError } from "./mesh-error";
import type { TriangleMesh } from "./types";

const HEADER_BYTES = 84, FACET_BYTES = 50;

export function parseStl(data: Uint8Array, limits: MeshLimits): TriangleMesh {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  // A binary file declares its facet count up front: check it before the loader allocates for it.
  if (data.byteLength >= HEADER_BYTES && HEADER_BYTES + FACET_BYTES * view.getUint32(80, true) === data.byteLength) {
    checkCountLimits(3 * view.getUint32(80, true), view.getUint32(80, true), limits);
  } else if (!/^\s*solid/.test(new TextDecoder().decode(data.subarray(0, 64)))) {
    throw new MeshError(`not an STL file: a binary STL of ${data.byteLength} bytes would declare ${Math.max(0, (data.byteLength - HEADER_BYTES) / FACET_BYTES)} facets, and an ASCII one starts with "solid"`);
  }
  let positions: ArrayLike<number>;
  try {
    const copy = data.slice().buffer;
    positions = new STLLoader().parse(copy).getAttribute("position").array;
  } catch (error) {
    throw new MeshError(`could not read STL: ${error instanceof Error ? error.message : String(error)}`);
  }
  const corners = positions.length / 3;
  if (corners < 3) throw new MeshError("STL file has no facets");
  checkCountLimits(corners, corners / 3, limits);
  const triangles = new Uint32Array(corners);
  for (let i = 0; i < corners; i++) triangles[i] = i;
  return { positions: Float64Array.from(positions), triangles };
}
