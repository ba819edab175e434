// Skinning eigenmodes (Benchekroun et al. 2023): the lowest non-constant eigenfunctions of the shape's Laplacian
// with free (Neumann) boundaries, the fields whose affine handles span the softest deformations of a uniform
// isotropic solid (its stiffness summed over the three components is (4 mu + lambda) times the Laplacian), and on
// request a few local bumps on the surface beside them (global modes alone cannot dent where a fingertip presses).
// Discretised on a voxel grid classified by the inside test (trilinear elements, each cell weighted by its inside
// share), solved by shift-invert Lanczos with a sparse Cholesky factor, all in TypeScript so that a
// browser's bake worker runs it too.

import { lowestEigenpairs, shiftedStiffness } from "../linalg/shift-invert-lanczos";
import { SparseCholesky } from "../linalg/sparse-cholesky";
import { SkinningError, type ShapeSamples, type SkinningFieldProvider } from "./fields";
import { GridFields } from "./grid-fields";
import { voxelSolid, type GridFrame, type VoxelSolid } from "./voxel-solid";

export interface EigenOptions {
  /** Grid cells inside the solid to aim for: resolution against bake time. */
  targetCells?: number;
  /** At most this many cells along any axis. */
  maxCellsPerAxis?: number;
  /**
   * Of the fields asked for, how many are local bumps on the surface instead of higher modes: screened-Poisson
   * responses (K + M / r^2) g = M s to a small blob s at surface points spread farthest apart, with reach r
   * (`localReach`, normalised units). The global modes get the frequencies right; the bumps let a fingertip dent.
   */
  localFields?: number;
  localReach?: number;
}

/**
 * Defaults: see the resolution table in models/README.md. Of 16 fields, 4 are surface bumps: the dough ball then
 * dented under a fingertip (5.7 mm held for a 1 cm press, against 1.2 mm with 16 modes, where the ball rolls out
 * from under the finger), at about the same ratio to FEM. Since BAKE_RECIPE 19 the dent moves with the bake's seed
 * more than with the bumps (seeds 1-6: 2.8-6.0 mm with bumps, 3.7-4.9 mm with 16 modes for seeds 1-3). More bumps dent no better and let a yanked body tangle
 * (models/README.md). Changing these changes bakes: bump BAKE_RECIPE (bake.ts).
 */
export const EIGEN_DEFAULTS = Object.freeze({ targetCells: 6000, maxCellsPerAxis: 128, localFields: 4, localReach: 0.5 });
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
    /** Laplacian eigenvalues of the modes (normalised units), ascending, then the bumps' Rayleigh quotients. */
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
  const settings = { ...EIGEN_DEFAULTS, ...options };
  // Its own probe sizes the grid, not the bake's measure of the solid (solidOf.share): the characters' secondary-motion
  // networks were trained in these fields' coordinates, and a grid a few cells larger is another basis to them.
  const solid = voxelSolid(solidOf.inside, solidOf.min, solidOf.max, settings);
  if (solid.unknowns < 4 * (count + 1)) throw new SkinningError(`the shape's grid has ${solid.unknowns} nodes, too few for ${count} handles`);
  let volume = 0;
  for (let i = 0; i < solid.unknowns; i++) volume += solid.mass[i];
  const constant = new Float64Array(solid.unknowns).fill(1 / Math.sqrt(volume));
  // Bumps never outnumber modes: a handful of fields are all modes.
  const local = Math.max(0, Math.min(Math.floor(count / 2), Math.floor(settings.localFields)));
  const { values: modeValues, vectors: modes } = lowestEigenpairs(solid.stiffness, solid.mass, count - local, { shift: SHIFT, deflate: [constant] });
  // The bumps made M-orthonormal to the constant, the modes and each other (twice, for round-off): the same span,
  // but without nearly parallel fields, which would blur the solver's rigid motions into slow spurious modes.
  const bumps = local > 0 ? massOrthonormalised(surfaceBumps(solid, local, settings.localReach), [constant, ...modes], solid.mass) : [];
  const vectors = [...modes, ...bumps];
  // A bump's "eigenvalue": its Rayleigh quotient, so that the list stays a measure of each field's roughness.
  const values = Float64Array.from([...modeValues, ...bumps.map((b) => rayleigh(solid, b))]);
  const nodes = solid.unknownOf.length, data = new Float64Array(nodes * count), known = new Uint8Array(nodes);
  for (let node = 0; node < nodes; node++) {
    const u = solid.unknownOf[node];
    if (u < 0) continue;
    known[node] = 1;
    for (let f = 0; f < count; f++) data[node * count + f] = vectors[f][u];
  }
  return new EigenFields(solid, values, data, known);
}

/** Node positions of the solid's unknowns (normalised units). */
export function unknownPositions(solid: VoxelSolid): Float64Array {
  const [cx, cy] = solid.cells, nx = cx + 1, ny = cy + 1, h = solid.spacing, o = solid.origin;
  const out = new Float64Array(3 * solid.unknowns);
  for (let node = 0; node < solid.unknownOf.length; node++) {
    const u = solid.unknownOf[node];
    if (u < 0) continue;
    const i = node % nx, j = Math.floor(node / nx) % ny, k = Math.floor(node / (nx * ny));
    out[3 * u] = o[0] + i * h; out[3 * u + 1] = o[1] + j * h; out[3 * u + 2] = o[2] + k * h;
  }
  return out;
}

/**
 * `count` screened-Poisson bumps centred on surface nodes spread farthest apart (the first is the node farthest
 * from the centroid), solved with a sparse Cholesky factor of K + M / r^2.
 */
function surfaceBumps(solid: VoxelSolid, count: number, reach: number): Float64Array[] {
  const sources = surfaceBumpSources(solid, count, reach);
  const factor = SparseCholesky.factor(shiftedStiffness(solid.stiffness, solid.mass, 1 / (reach * reach)));
  for (const g of sources) factor.solve(g);
  return sources;
}

/**
 * The right-hand sides M s of `count` surface bumps (K + M / r^2) g = M s: a Gaussian blob s of width r / 2 at
 * each of `count` surface nodes spread farthest apart (the first is the node farthest from the centroid).
 */
export function surfaceBumpSources(solid: VoxelSolid, count: number, reach: number): Float64Array[] {
  const n = solid.unknowns, mass = solid.mass, positions = unknownPositions(solid);
  const full = solid.spacing ** 3;
  // Surface nodes: those with less than a full cell's worth of inside around them.
  const surface: number[] = [];
  for (let u = 0; u < n; u++) if (mass[u] < 0.99 * full) surface.push(u);
  if (surface.length < count) throw new SkinningError(`the shape's grid has ${surface.length} surface nodes, too few for ${count} local fields`);
  let cx = 0, cy = 0, cz = 0, total = 0;
  for (let u = 0; u < n; u++) { cx += mass[u] * positions[3 * u]; cy += mass[u] * positions[3 * u + 1]; cz += mass[u] * positions[3 * u + 2]; total += mass[u]; }
  cx /= total; cy /= total; cz /= total;
  const distance = new Float64Array(surface.length).fill(Infinity);
  const centres: number[] = [];
  let next = 0, best = -1;
  surface.forEach((u, a) => {
    const d = Math.hypot(positions[3 * u] - cx, positions[3 * u + 1] - cy, positions[3 * u + 2] - cz);
    if (d > best) { best = d; next = a; }
  });
  while (centres.length < count) {
    const c = surface[next];
    centres.push(c);
    let far = -1;
    surface.forEach((u, a) => {
      distance[a] = Math.min(distance[a], Math.hypot(positions[3 * u] - positions[3 * c], positions[3 * u + 1] - positions[3 * c + 1], positions[3 * u + 2] - positions[3 * c + 2]));
      if (distance[a] > far) { far = distance[a]; next = a; }
    });
  }
  const blob = 0.5 * reach;
  return centres.map((c) => {
    const g = new Float64Array(n);
    for (let u = 0; u < n; u++) {
      const r2 = (positions[3 * u] - positions[3 * c]) ** 2 + (positions[3 * u + 1] - positions[3 * c + 1]) ** 2 + (positions[3 * u + 2] - positions[3 * c + 2]) ** 2;
      g[u] = mass[u] * Math.exp(-r2 / (2 * blob * blob));
    }
    return g;
  });
}

/** u^T K u / u^T M u. */
export function rayleigh(solid: VoxelSolid, u: Float64Array): number {
  const k = solid.stiffness;
  let top = 0, bottom = 0;
  for (let col = 0; col < k.n; col++) {
    for (let at = k.columnStart[col]; at < k.columnStart[col + 1]; at++) {
      const row = k.rows[at], v = k.values[at];
      top += row === col ? v * u[row] * u[col] : 2 * v * u[row] * u[col];
    }
    bottom += solid.mass[col] * u[col] * u[col];
  }
  return top / bottom;
}

/** Gram-Schmidt in the M inner product, against `fixed` (M-orthonormal) and the earlier vectors, twice over. */
export function massOrthonormalised(vectors: Float64Array[], fixed: Float64Array[], mass: Float64Array): Float64Array[] {
  const done: Float64Array[] = [];
  for (const v of vectors) {
    const norm0 = Math.sqrt(massDot(v, v, mass));
    for (let pass = 0; pass < 2; pass++) {
      for (const u of [...fixed, ...done]) {
        const c = massDot(u, v, mass);
        for (let i = 0; i < v.length; i++) v[i] -= c * u[i];
      }
    }
    const norm = Math.sqrt(massDot(v, v, mass));
    if (!(norm > 1e-6 * norm0)) throw new SkinningError("a surface bump is a combination of the other fields: the shape's grid is too coarse for this many local fields");
    for (let i = 0; i < v.length; i++) v[i] /= norm;
    done.push(v);
  }
  return done;
}

/** a^T diag(mass) b (four running sums: one would wait on each addition). */
export function massDot(a: Float64Array, b: Float64Array, mass: Float64Array): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, i = 0;
  for (; i + 3 < a.length; i += 4) {
    s0 += mass[i] * a[i] * b[i];
    s1 += mass[i + 1] * a[i + 1] * b[i + 1];
    s2 += mass[i + 2] * a[i + 2] * b[i + 2];
    s3 += mass[i + 3] * a[i + 3] * b[i + 3];
  }
  for (; i < a.length; i++) s0 += mass[i] * a[i] * b[i];
  return s0 + s1 + s2 + s3;
}
