// A textured body's render mesh: the physics' mesh has one vertex per point of the surface, but a texture seam
// needs two (one UV on each side). The render influences are copied to one vertex per (vertex, UV point) pair that
// a triangle corner uses, so the GPU draws the texture without touching the solver's mesh.

import type { RenderInfluences } from "./render-influences";
import { SkinningError } from "./fields";

/** The influences with their vertices split along texture seams, and a `uvs` attribute; unchanged without UVs. */
export function splitTextureSeams(table: RenderInfluences, uvs: ArrayLike<number>, uvTriangles: ArrayLike<number>): RenderInfluences {
  if (uvTriangles.length === 0) return table;
  if (uvTriangles.length !== table.triangles.length) throw new SkinningError(`texture corners: ${uvTriangles.length} for ${table.triangles.length} triangle corners`);
  const uvCount = uvs.length / 2;
  const split = new Map<number, number>(), source: number[] = [], uvOf: number[] = [];
  const triangles = new Uint32Array(table.triangles.length);
  for (let k = 0; k < triangles.length; k++) {
    const vertex = table.triangles[k], uv = uvTriangles[k];
    if (!(uv < uvCount)) throw new SkinningError(`texture corner ${k} names UV point ${uv} of ${uvCount}`);
    const key = vertex * uvCount + uv;
    let index = split.get(key);
    if (index === undefined) {
      index = source.length;
      split.set(key, index);
      source.push(vertex);
      uvOf.push(uv);
    }
    triangles[k] = index;
  }
  const count = source.length, n = table.influences;
  const copy = <T extends Float32Array | Uint8Array>(from: T, width: number, make: (length: number) => T): T => {
    const out = make(count * width);
    for (let i = 0; i < count; i++) out.set(from.subarray(source[i] * width, (source[i] + 1) * width), i * width);
    return out;
  };
  const floats = (length: number) => new Float32Array(length);
  const outUVs = new Float32Array(2 * count);
  for (let i = 0; i < count; i++) {
    outUVs[2 * i] = uvs[2 * uvOf[i]];
    outUVs[2 * i + 1] = uvs[2 * uvOf[i] + 1];
  }
  return {
    influences: n, vertexCount: count, triangles,
    positions: copy(table.positions, 3, floats), normals: copy(table.normals, 3, floats),
    handles: copy(table.handles, n, (length) => new Uint8Array(length)), weights: copy(table.weights, n, floats),
    tangentDerivatives1: copy(table.tangentDerivatives1, n, floats), tangentDerivatives2: copy(table.tangentDerivatives2, n, floats),
    uvs: outUVs,
  };
}
