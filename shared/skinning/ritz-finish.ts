// The network's fields finished by Rayleigh-Ritz (METHOD.md section 8): the network's K fields are decoded at the
// nodes of a coarse voxel solid and interpolated at a finer one's (the eigen provider's kind of solid, on fewer
// cells than its own), their span is enlarged cheaply (the fields times each coordinate, low polynomials), and the
// Rayleigh-Ritz solution of the Neumann Laplacian's pencil L w = lambda M w over that span gives the lowest modes;
// optionally a few Chebyshev-filtered subspace iterations with the matrix-free voxel operator refine them. Then
// surface bumps of the eigen provider's kind, solved by conjugate gradients on the coarse grid. No factorisation
// anywhere: the network stands in for the eigensolver's.
// The result is a grid description ("eigen-grid"), as the eigen provider's, so pages evaluate it the same way.

import { solveShiftedCg } from "../linalg/conjugate-gradient";
import { stiffnessTimesBlock } from "../linalg/block-product";
import { chebyshevFilter, joinBlocks, rayleighRitz, spectrumUpperBound, type RitzPairs } from "../linalg/rayleigh-ritz";
import { EIGEN_DEFAULTS, massOrthonormalised, rayleigh, surfaceBumpSources, unknownPositions } from "./eigen";
import { SkinningError, type FieldDescription, type ShapeSamples, type SkinningFieldProvider, type SkinningFields } from "./fields";
import { MODEL_DESCRIPTION } from "./onnx-provider";
import { describeRefinement, networkCombination } from "./refined-fields";
import { GridFields } from "./grid-fields";
import { voxelSolid, type GridFrame, type VoxelSolid } from "./voxel-solid";
import { complementaryConstraints, type RigRegions } from "./rig-regions";
import { meshBounds } from "../geometry";
import { NearestPointGrid } from "../geometry/nearest-point-grid";

export interface RitzFinishOptions {
  targetCells?: number;
  maxCellsPerAxis?: number;
  /** Of the fields, how many are surface bumps (as EigenOptions.localFields). */
  localFields?: number;
  localReach?: number;
  /** Add each field times each (centred) coordinate: 3 K more directions. */
  coordinateProducts?: boolean;
  /** Add the polynomials up to this degree (0: none beyond the constant; 1: x, y, z; 2: and their products; 3). */
  polynomialDegree?: number;
  /** Add the squares of the fields (K more). */
  fieldSquares?: boolean;
  /** Chebyshev-filtered subspace iterations after the first Rayleigh-Ritz. */
  iterations?: number;
  /** Degree of each iteration's Chebyshev filter (products with L per vector). */
  chebyshevDegree?: number;
  /** Block size of the iterations: the lowest modes kept plus this many guard vectors. */
  guardVectors?: number;
  /**
   * Fields complementary to a rigged mesh's rig (PhysSkin++'s complementarity, by construction rather than by a
   * loss): the lowest modes among fields mass-orthogonal to every joint subtree's share times every polynomial of
   * degree two (rig-regions.ts), so that no handle direction overlaps a motion of the rig at its bind pose. Needs
   * the shape's rigRegions.
   */
  complementary?: boolean;
}

/**
 * Relative residual of the bumps' conjugate gradients: a bump is any smooth local field (its exact shape does not
 * matter, only that the same description reaches every page), so 1e-6 is ample.
 */
const BUMP_TOLERANCE = 1e-6;
/**
 * The coarse grid (the bumps', and the network's decoded fields') is this many times coarser along each axis than
 * the modes' (a reach of 0.5 is about seven of the modes' cells): the bumps' conjugate gradients cost about a
 * sixteenth, the decoder an eighth.
 */
const BUMP_COARSENING = 2;
/** Cells of the coarse grid at least. */
const MIN_BUMP_CELLS = 500;

/**
 * Defaults: the network's 16 fields as they are on a grid of about 4,000 cells, then two Chebyshev iterations of
 * degree 8 (models/README.md, "Faster still": 1.128x full FEM over 14 held-out meshes, eigen on its 6,000 cells
 * 1.128x). Enlarging the span first (the fields times each coordinate and the quadratics: 73 directions) gives the
 * same at 0.3-0.45 s more; it matters only without iterations (1.243x).
 */
export const RITZ_FINISH_DEFAULTS = Object.freeze({
  targetCells: 4000, maxCellsPerAxis: EIGEN_DEFAULTS.maxCellsPerAxis,
  localFields: EIGEN_DEFAULTS.localFields, localReach: EIGEN_DEFAULTS.localReach,
  coordinateProducts: false, polynomialDegree: 0, fieldSquares: false, iterations: 2, chebyshevDegree: 8, guardVectors: 8,
  complementary: false,
});

/** Milliseconds per stage of a finish. */
export interface RitzTimings {
  voxels: number;
  decode: number;
  ritz: number;
  iterations: number;
  bumps: number;
}

export class RitzFields extends GridFields {
  constructor(
    frame: GridFrame, values: Float64Array, known: Uint8Array,
    /** Ritz values of the modes (normalised units), ascending, then the bumps' Rayleigh quotients. */
    readonly eigenvalues: Float64Array,
    readonly timings: RitzTimings,
    /** Dimension of the enlarged span after the dependence cut. */
    readonly spanRank: number,
    /**
     * The network's own description and its fields' combination closest to these (refined-fields.ts), when it has
     * one: made from the finished fields as they evaluate (hence a function of them).
     */
    refinerOf?: (fields: GridFields) => { network: FieldDescription; combination: Float64Array },
  ) {
    super(frame, eigenvalues.length, values, known);
    this.refiner = refinerOf?.(this);
  }

  private readonly refiner?: { network: FieldDescription; combination: Float64Array };

  /** The network's latents and combination with which a page that has the decoder refines these fields between nodes. */
  refinement(): Float64Array | undefined {
    return this.refiner ? describeRefinement(this.frame, this.count, this.refiner.network, this.refiner.combination) : undefined;
  }
}

/**
 * A provider whose fields are `inner`'s (the network's) finished by Rayleigh-Ritz on the voxel solid: "model" in
 * baked bodies, the product's default fields. Predicts on the shape as given (not a rigged mesh's anchor frame: the
 * grid belongs to the bind pose). When the network or its finish fails on a shape (an error, a span too narrow for
 * the modes), `fallback` makes the fields instead and the fields say so (SkinningFields.fallback).
 */
export function ritzFinishProvider(inner: SkinningFieldProvider, fallback?: SkinningFieldProvider, options: RitzFinishOptions = {}): SkinningFieldProvider {
  return {
    name: "model",
    async fieldsFor(shape: ShapeSamples, count: number) {
      if (!shape.solid) throw new SkinningError("the Rayleigh-Ritz finish needs the solid (its inside test and bounds) to discretise");
      // Not a shape the network fails on but a request no shape without a rig can meet: refused, not fallen back from.
      if (options.complementary && !shape.rigRegions) throw new SkinningError("complementary fields need a rigged mesh (its skin's regions)");
      try {
        // All the network's fields span the start, whatever the body keeps of them.
        const network = await inner.fieldsFor(shape, inner.fieldCount ?? count);
        return await createRitzFields(shape.solid, network, count, options, shape.rigRegions);
      } catch (error) {
        // What the network or its finish refuses for this shape (a SkinningError); any other failure is a fault to
        // see, not to bake around (the fallback's bake is cached under the network's key).
        if (!fallback || !(error instanceof SkinningError)) throw error;
        const reason = error.message;
        let fields: SkinningFields;
        try {
          fields = await fallback.fieldsFor(shape, count);
        } catch (fallbackError) {
          throw new SkinningError(`${reason}; and the ${fallback.name} fields failed too: ${(fallbackError as Error)?.message ?? String(fallbackError)}`);
        }
        return {
          count: fields.count,
          evaluate: (points, weights, gradients) => fields.evaluate(points, weights, gradients),
          ...(fields.describe ? { describe: () => fields.describe!() } : {}),
          fallback: { provider: fallback.name, reason },
        } satisfies SkinningFields;
      }
    },
  };
}

export async function createRitzFields(
  solidOf: NonNullable<ShapeSamples["solid"]>, network: SkinningFields, count: number, options: RitzFinishOptions = {}, regionsOf?: () => RigRegions,
): Promise<RitzFields> {
  if (!Number.isInteger(count) || count < 1) throw new SkinningError(`handle count must be a positive integer, got ${count}`);
  const settings = { ...RITZ_FINISH_DEFAULTS, ...options };
  if (settings.complementary && !regionsOf) throw new SkinningError("complementary fields need a rigged mesh (its skin's regions)");
  const t0 = performance.now();
  const solid = voxelSolid(solidOf.inside, solidOf.min, solidOf.max, { ...settings, filledShare: solidOf.share });
  const n = solid.unknowns;
  if (n < 4 * (count + 1)) throw new SkinningError(`the shape's grid has ${n} nodes, too few for ${count} handles`);
  const positions = unknownPositions(solid);
  // The bumps' coarser grid also carries the network's fields: decoded at its nodes and interpolated at the modes'
  // (a start for the iterations that follow, which the decoder's cost at every fine node would not improve).
  const coarse = voxelSolid(solidOf.inside, solidOf.min, solidOf.max, {
    targetCells: Math.max(MIN_BUMP_CELLS, Math.round(settings.targetCells / BUMP_COARSENING ** 3)), maxCellsPerAxis: settings.maxCellsPerAxis, filledShare: solidOf.share,
  });
  const t1 = performance.now();
  const k = network.count, decoded = await decodedAtNodes(network, coarse), raw = atFineNodes(coarse, k, decoded, positions);
  const t2 = performance.now();

  const local = Math.max(0, Math.min(Math.floor(count / 2), Math.floor(settings.localFields)));
  const modeCount = count - local;
  const constant = constantOf(solid);
  // What every field is kept M-orthogonal to: the constant (the handle it belongs to), and for complementary fields
  // the rig's motions at its bind pose.
  const deflate = [constant, ...(settings.complementary && regionsOf ? rigConstraints(solid, positions, regionsOf(), constant) : [])];
  const span = enlargedSpan(solid, positions, raw, k, settings);
  // Iterations follow (when asked for): the vectors are whitened again by the next Rayleigh-Ritz.
  const iterating = settings.iterations > 0;
  let pairs = rayleighRitz(solid.stiffness, solid.mass, span.data, span.width, { deflate, keep: modeCount + settings.guardVectors, reorthonormalise: !iterating });
  if (pairs.count < modeCount) throw new SkinningError(`the network's fields span only ${pairs.rank} directions, fewer than ${modeCount} modes`);
  const spanRank = pairs.rank;
  const t3 = performance.now();
  pairs = subspaceIterations(solid, deflate, pairs, modeCount, settings);
  const t4 = performance.now();

  const modes: Float64Array[] = [];
  for (let f = 0; f < modeCount; f++) {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = pairs.vectors[i * pairs.count + f];
    modes.push(v);
  }
  const bumps = local > 0 ? massOrthonormalised(coarseBumps(coarse, settings.localReach, positions, local), [...deflate, ...modes], solid.mass) : [];
  const t5 = performance.now();
  const vectors = [...modes, ...bumps];
  const values = Float64Array.from([...pairs.values.subarray(0, modeCount), ...bumps.map((b) => rayleigh(solid, b))]);
  const nodes = solid.unknownOf.length, data = new Float64Array(nodes * count), known = new Uint8Array(nodes);
  for (let node = 0; node < nodes; node++) {
    const u = solid.unknownOf[node];
    if (u < 0) continue;
    known[node] = 1;
    for (let f = 0; f < count; f++) data[node * count + f] = vectors[f][u];
  }
  const timings = { voxels: t1 - t0, decode: t2 - t1, ritz: t3 - t2, iterations: t4 - t3, bumps: t5 - t4 };
  const described = network.describe?.();
  // The combination is fitted where the network was decoded (the coarse nodes), to its own values there: a page
  // applies it to the network's output, not to an interpolation of it.
  const refinerOf = described?.kind === MODEL_DESCRIPTION
    ? (fields: GridFields) => {
        const finished = new Float64Array(coarse.unknowns * count);
        fields.evaluateSync(unknownPositions(coarse), finished);
        return { network: described, combination: networkCombination(decoded, finished, coarse.mass, k, count) };
      }
    : undefined;
  return new RitzFields(solid, data, known, values, timings, spanRank, refinerOf);
}

/** The rig's constraints at the solid's unknowns, each unknown with the shares of its nearest vertex. */
function rigConstraints(solid: VoxelSolid, positions: Float64Array, regions: RigRegions, constant: Float64Array): Float64Array[] {
  const bounds = meshBounds(regions.vertices), spacing = solid.spacing;
  const grid = new NearestPointGrid(regions.vertices, { min: [bounds.min[0] - spacing, bounds.min[1] - spacing, bounds.min[2] - spacing], max: [bounds.max[0] + spacing, bounds.max[1] + spacing, bounds.max[2] + spacing] }, spacing);
  return complementaryConstraints(positions, solid.mass, regions, [constant], (x, y, z) => grid.nearest(x, y, z));
}

function constantOf(solid: VoxelSolid): Float64Array {
  let volume = 0;
  for (let i = 0; i < solid.unknowns; i++) volume += solid.mass[i];
  return new Float64Array(solid.unknowns).fill(1 / Math.sqrt(volume));
}

/**
 * The fields, and on request the fields times each coordinate, the polynomials up to a degree and the fields'
 * squares (coordinates centred on the mass centroid), node-major. The constant is left out: it is deflated.
 */
export function enlargedSpan(
  solid: VoxelSolid, positions: Float64Array, raw: Float64Array, k: number,
  settings: { coordinateProducts: boolean; polynomialDegree: number; fieldSquares: boolean },
): { data: Float64Array; width: number } {
  const n = solid.unknowns, mass = solid.mass;
  const centroid = [0, 0, 0];
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += mass[i];
    for (let a = 0; a < 3; a++) centroid[a] += mass[i] * positions[3 * i + a];
  }
  for (let a = 0; a < 3; a++) centroid[a] /= total;
  const monomials = monomialExponents(Math.max(0, Math.floor(settings.polynomialDegree)));
  const width = k + (settings.coordinateProducts ? 3 * k : 0) + monomials.length / 3 + (settings.fieldSquares ? k : 0);
  const data = new Float64Array(n * width), x = new Float64Array(3);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) x[a] = positions[3 * i + a] - centroid[a];
    const o = i * width, w = i * k;
    let c = 0;
    for (let f = 0; f < k; f++) data[o + c++] = raw[w + f];
    if (settings.coordinateProducts) for (let a = 0; a < 3; a++) for (let f = 0; f < k; f++) data[o + c++] = x[a] * raw[w + f];
    for (let m = 0; m < monomials.length; m += 3) data[o + c++] = x[0] ** monomials[m] * x[1] ** monomials[m + 1] * x[2] ** monomials[m + 2];
    if (settings.fieldSquares) for (let f = 0; f < k; f++) data[o + c++] = raw[w + f] ** 2;
  }
  return { data, width };
}

/** Exponents (x, y, z per monomial, flat) of the non-constant monomials up to `degree`. */
function monomialExponents(degree: number): Int32Array {
  const out: number[] = [];
  for (let d = 1; d <= degree; d++) for (let ex = d; ex >= 0; ex--) for (let ey = d - ex; ey >= 0; ey--) out.push(ex, ey, d - ex - ey);
  return Int32Array.from(out);
}

/**
 * Chebyshev-filtered subspace iteration: the lowest modeCount + guard Ritz vectors are filtered by a polynomial in
 * M^-1 L that damps the spectrum above the block's top Ritz value, then Rayleigh-Ritz over the filtered block and
 * the previous one together.
 */
function subspaceIterations(
  solid: VoxelSolid, deflate: Float64Array[], start: RitzPairs, modeCount: number,
  settings: { iterations: number; chebyshevDegree: number; guardVectors: number },
): RitzPairs {
  let pairs = start;
  if (settings.iterations <= 0) return pairs;
  const n = solid.unknowns, high = spectrumUpperBound(solid.stiffness, solid.mass);
  for (let it = 0; it < settings.iterations; it++) {
    const block = Math.min(pairs.count, modeCount + settings.guardVectors);
    const x = sliceColumns(pairs.vectors, pairs.count, block, n);
    const low = pairs.values[block - 1], target = pairs.values[0];
    const filtered = chebyshevFilter(solid.stiffness, solid.mass, x, block, settings.chebyshevDegree, low, high, target);
    const span = joinBlocks(n, [{ data: x, width: block }, { data: filtered, width: block }]);
    // Keep up to the full block, not only as many as came in: a start narrower than the block (the network's 16
    // fields for 12 modes and 8 guards) grows to it, and the guards are what let the highest kept modes converge.
    pairs = rayleighRitz(solid.stiffness, solid.mass, span.data, span.width, { deflate, keep: modeCount + settings.guardVectors, reorthonormalise: it === settings.iterations - 1 });
  }
  return pairs;
}

function sliceColumns(x: Float64Array, width: number, keep: number, n: number): Float64Array {
  const out = new Float64Array(n * keep);
  for (let i = 0; i < n; i++) for (let c = 0; c < keep; c++) out[i * keep + c] = x[i * width + c];
  return out;
}

/**
 * The eigen provider's kind of surface bumps, (K + M / r^2) g = M s, solved by conjugate gradients on the coarse
 * grid (no factor; a bump's reach spans several coarse cells) and interpolated trilinearly at the modes' unknowns
 * (`positions`), as pages interpolate grid fields.
 */
function coarseBumps(coarse: VoxelSolid, reach: number, positions: Float64Array, count: number): Float64Array[] {
  const sources = surfaceBumpSources(coarse, count, reach), n = coarse.unknowns;
  const block = new Float64Array(n * count);
  for (let i = 0; i < n; i++) for (let c = 0; c < count; c++) block[i * count + c] = sources[c][i];
  solveShiftedCg(coarse.stiffness, coarse.mass, 1 / (reach * reach), block, count, BUMP_TOLERANCE);
  const fine = positions.length / 3, values = atFineNodes(coarse, count, block, positions);
  const bumps: Float64Array[] = [];
  for (let c = 0; c < count; c++) {
    const bump = new Float64Array(fine);
    for (let u = 0; u < fine; u++) bump[u] = values[u * count + c];
    bumps.push(bump);
  }
  return bumps;
}

/** The network's fields at a solid's unknowns (unknown-major, network.count a node). */
async function decodedAtNodes(network: SkinningFields, solid: VoxelSolid): Promise<Float64Array> {
  const values = new Float64Array(solid.unknowns * network.count);
  await network.evaluate(unknownPositions(solid), values);
  return values;
}

/** Values at a coarse solid's unknowns (`count` a node), filled outwards and interpolated trilinearly at `positions`. */
function atFineNodes(coarse: VoxelSolid, count: number, atUnknowns: Float64Array, positions: Float64Array): Float64Array {
  const nodes = coarse.unknownOf.length, data = new Float64Array(nodes * count), known = new Uint8Array(nodes);
  for (let node = 0; node < nodes; node++) {
    const u = coarse.unknownOf[node];
    if (u < 0) continue;
    known[node] = 1;
    for (let c = 0; c < count; c++) data[node * count + c] = atUnknowns[u * count + c];
  }
  const values = new Float64Array((positions.length / 3) * count);
  new GridFields(coarse, count, data, known).evaluateSync(positions, values);
  return values;
}

/** Relative residuals ||L x - lambda M x||_M^-1 / (lambda ||x||_M) of Ritz pairs (a convergence measure). */
export function ritzResiduals(solid: VoxelSolid, pairs: RitzPairs): Float64Array {
  const n = solid.unknowns, p = pairs.count, out = new Float64Array(p);
  const lx = new Float64Array(n * p);
  stiffnessTimesBlock(solid.stiffness, pairs.vectors, p, lx);
  for (let c = 0; c < p; c++) {
    let top = 0, bottom = 0;
    for (let i = 0; i < n; i++) {
      const r = lx[i * p + c] - pairs.values[c] * solid.mass[i] * pairs.vectors[i * p + c];
      top += (r * r) / solid.mass[i];
      bottom += solid.mass[i] * pairs.vectors[i * p + c] ** 2;
    }
    out[c] = Math.sqrt(top / bottom) / Math.abs(pairs.values[c]);
  }
  return out;
}
