// A textured or vertex-coloured body's render mesh: the physics' mesh has one vertex per point of the surface, but
// a texture seam (or a colour edge) needs two: one UV or colour on each side. The render influences are copied to
// one vertex per (vertex, UV point, colour point) that a triangle corner uses, so the GPU draws them without
// touching the solver's mesh.

import type { RenderInfluences } from "./render-influences";
import { SkinningError } from "./fields";

/** A per-corner attribute: values (`width` per point) and, for each triangle corner, the point it uses. */
export interface CornerAttribute {
  values: ArrayLike<number>;
  corners: ArrayLike<number>;
}

/**
 * The influences with their vertices split along texture seams and colour edges, with `uvs` and `colors`
 * attributes for what the bake has; unchanged when it has neither.
 */
export function splitTextureSeams(table: RenderInfluences, uv: CornerAttribute, colour: CornerAttribute = { values: [], corners: [] }): RenderInfluences {
  const hasUV = uv.corners.length > 0, hasColour = colour.corners.length > 0;
  if (!hasUV && !hasColour) return table;
  const uvCount = uv.values.length / 2, colourCount = colour.values.length / 3;
  for (const [name, a] of [["texture", uv], ["colour", colour]] as const) {
    if (a.corners.length > 0 && a.corners.length !== table.triangles.length) throw new SkinningError(`${name} corners: ${a.corners.length} for ${table.triangles.length} triangle corners`);
  }
  const split = new Map<string, number>(), source: number[] = [], uvOf: number[] = [], colourOf: number[] = [];
  const triangles = new Uint32Array(table.triangles.length);
  for (let k = 0; k < triangles.length; k++) {
    const vertex = table.triangles[k], u = hasUV ? uv.corners[k] : 0, c = hasColour ? colour.corners[k] : 0;
    if (hasUV && !(u < uvCount)) throw new SkinningError(`texture corner ${k} names UV point ${u} of ${uvCount}`);
    if (hasColour && !(c < colourCount)) throw new SkinningError(`colour corner ${k} names colour ${c} of ${colourCount}`);
    const key = `${vertex},${u},${c}`;
    let index = split.get(key);
    if (index === undefined) {
      index = source.length;
      split.set(key, index);
      source.push(vertex);
      uvOf.push(u);
      colourOf.push(c);
    }
    triangles[k] = index;
  }
  const count = source.length, n = table.influences;
  const copy = <T extends Float32Array | Uint8Array>(from: T, width: number, make: (length: number) => T): T => {
    const out = make(count * width);
    for (let i = 0; i < count; i++) out.set(from.subarray(source[i] * width, (source[i] + 1) * width), i * width);
    return out;
  };
  const gather = (values: ArrayLike<number>, of: number[], width: number): Float32Array => {
    const out = new Float32Array(width * count);
    for (let i = 0; i < count; i++) for (let w = 0; w < width; w++) out[width * i + w] = values[width * of[i] + w];
    return out;
  };
  const floats = (length: number) => new Float32Array(length);
  return {
    influences: n, vertexCount: count, triangles,
    positions: copy(table.positions, 3, floats), normals: copy(table.normals, 3, floats),
    handles: copy(table.handles, n, (length) => new Uint8Array(length)), weights: copy(table.weights, n, floats),
    tangentDerivatives1: copy(table.tangentDerivatives1, n, floats), tangentDerivatives2: copy(table.tangentDerivatives2, n, floats),
    ...(hasUV ? { uvs: gather(uv.values, uvOf, 2) } : {}),
    ...(hasColour ? { colors: gather(colour.values, colourOf, 3) } : {}),
  };
}
