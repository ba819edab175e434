// A baked body's fields integrated exactly instead of on its cubature points: the same skinning fields
// (rebuilt from the body's description) at a dense quadrature of the full solid (the FEM mesh's points), for
// both the stiffness and the mass. Its frequencies against the cubature's tell field quality from cubature error.

import { createInsideTest, jitteredInside, Random } from "../../shared/geometry";
import { Subspace } from "../../shared/sim";
import { fieldsFromDescription, handleCount, normalisedWithConstant, SkinningError, type BakedBody } from "../../shared/skinning";

/** Points evaluated at once (the fields' scratch grows with it). */
const CHUNK = 8192;

/**
 * Grid cells over the box of a dense quadrature (denseQuadrature): about 50,000 points inside the bunny. Its own
 * sampling still moves the bunny's lowest frequencies by up to 2 % from seed to seed (thin ears; the bake's 8,192-point
 * pool moves them by up to 8 %); compare two fields on one quadrature to see their difference alone.
 */
const DENSE_CELLS = 200_000;

/**
 * A dense quadrature of the body's own solid (its normalised mesh, at `size` metres): one jittered point in each of
 * about `cells` grid cells over its box, those inside, each standing for a cell's volume. For the fields' frequencies
 * where no FEM mesh is at hand.
 */
export function denseQuadrature(body: BakedBody, size: number, cells = DENSE_CELLS, seed = 1): { points: Float64Array; volumes: Float64Array } {
  const mesh = { positions: body.renderPositions, triangles: body.triangles };
  const inside = createInsideTest(mesh);
  try {
    const grid = jitteredInside(mesh, cells, new Random(seed), inside), s = size / 2;
    return { points: grid.points.map((v) => v * s), volumes: new Float64Array(grid.points.length / 3).fill(grid.cellVolume * s ** 3) };
  } finally {
    inside.dispose?.();
  }
}

/** The subspace of `body` (metres, body size `size`) with `points` (metres) and `volumes` as its quadrature. */
export async function exactlyIntegrated(body: BakedBody, size: number, points: ArrayLike<number>, volumes: ArrayLike<number>): Promise<Subspace> {
  if (!body.fieldKind) throw new SkinningError("these fields carry no description to evaluate them elsewhere");
  const fields = fieldsFromDescription({ kind: body.fieldKind, data: body.fieldDescription });
  const k = body.learnedHandles, h = handleCount(body), count = volumes.length, s = size / 2;
  const positions = Float64Array.from(points);
  const weights = new Float64Array(count * h), gradients = new Float64Array(count * h * 3);
  for (let start = 0; start < count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK), n = end - start;
    const normalised = positions.subarray(3 * start, 3 * end).map((v) => v / s);
    const raw = new Float64Array(n * k), rawGrad = new Float64Array(n * k * 3), grad = new Float64Array(n * h * 3);
    await fields.evaluate(normalised, raw, rawGrad);
    weights.set(normalisedWithConstant(raw, rawGrad, body.fieldNorms, n, k, grad), start * h);
    // Gradients per normalised unit to per metre.
    for (let i = 0; i < grad.length; i++) gradients[start * h * 3 + i] = grad[i] / s;
  }
  const quadrature = { positions, weights, volumes: Float64Array.from(volumes) };
  return new Subspace({
    handles: h,
    cubature: { ...quadrature, gradients },
    mass: quadrature,
    surface: { positions: body.surfacePositions.map((v) => v * s), weights: body.surfaceWeights },
  });
}
