// Skinning eigenmodes (Benchekroun et al. 2023): the K lowest non-constant eigenfunctions of the shape's
// Laplacian with free (Neumann) boundaries, the fields whose affine handles span the softest deformations of a
// uniform isotropic solid (its stiffness summed over the three components is (4 mu + lambda) times the
// Laplacian). Discretised on a voxel grid classified by the inside test (trilinear elements, each cell weighted
// by its inside share), solved by shift-invert Lanczos with a sparse Cholesky factor, all in TypeScript so that a
// browser's bake worker runs it too.

import { lowestEigenpairs } from "../linalg/shift-invert-lanczos";
import { SkinningError, type ShapeSamples, type SkinningFieldProvider } from "./fields";
import { GridFields } from "./grid-fields";
import { voxelSolid, type GridFrame } from "./voxel-solid";

export interface EigenOptions {
  /** Grid cells inside the solid to aim for: resolution against bake time. */
  targetCells?: number;
  /** At most this many cells along any axis. */
  maxCellsPerAxis?: number;
}

/** Defaults: see the resolution table in models/README.md. */
export const EIGEN_DEFAULTS = Object.freeze({ targetCells: 6000, maxCellsPerAxis: 128 });
/** Shift of the shift-invert (normalised units, where the lowest non-constant eigenvalue of a compact shape is ~2.5). */
const SHIFT = 1;

export function eigenProviderWith(options: EigenOptions = {}): SkinningFieldProvider {
  return {
    name: "eigen",
    async fieldsFor(shape: ShapeSamples, count: number) {
      if (!shape.solid) throw new SkinningError("eigen fields need the solid (its inside test and bounds) to discretise");
      return createEigenFields(shape.solid, count, options);
    },
  };
}

export const eigenProvider = eigenProviderWith();

export class EigenFields extends GridFields {
  constructor(
    frame: GridFrame,
    /** Laplacian eigenvalues of the fields (normalised units), ascending. */
    readonly eigenvalues: Float64Array,
    values: Float64Array,
    known: Uint8Array,
  ) {
    super(frame, eigenvalues.length, values, known);
  }
}

export function createEigenFields(
  solidOf: NonNullable<ShapeSamples["solid"]>, count: number, options: EigenOptions = {},
): EigenFields {
  if (!Number.isInteger(count) || count < 1) throw new SkinningError(`handle count must be a positive integer, got ${count}`);
  const solid = voxelSolid(solidOf.inside, solidOf.min, solidOf.max, { ...EIGEN_DEFAULTS, ...options });
  if (solid.unknowns < 4 * (count + 1)) throw new SkinningError(`the shape's grid has ${solid.unknowns} nodes, too few for ${count} handles`);
  let volume = 0;
  for (let i = 0; i < solid.unknowns; i++) volume += solid.mass[i];
  const constant = new Float64Array(solid.unknowns).fill(1 / Math.sqrt(volume));
  const { values, vectors } = lowestEigenpairs(solid.stiffness, solid.mass, count, { shift: SHIFT, deflate: [constant] });
  const nodes = solid.unknownOf.length, data = new Float64Array(nodes * count), known = new Uint8Array(nodes);
  for (let node = 0; node < nodes; node++) {
    const u = solid.unknownOf[node];
    if (u < 0) continue;
    known[node] = 1;
    for (let f = 0; f < count; f++) data[node * count + f] = vectors[f][u];
  }
  return new EigenFields(solid, values, data, known);
}
