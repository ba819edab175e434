// Bake: mesh -> normalised samples -> skinning fields at every point set the solver and renderer need ->
// per-field normalisation by their RMS over the cubature's points or pool (METHOD.md section 2) -> cubature at
// cluster centroids, or fitted to the fields (fitCubature) -> BakedBody, with the fields' compact description when the provider gives one. The render weights stay in the server's bake (CLIs, scenarios); the
// copy clients download leaves them out when the fields are described (clientBakedBody), and the bake worker
// evaluates them from the description.

import { createInsideTest, DEFAULT_INTERIOR_CANDIDATES, farthestPoints, interiorCandidates, jitteredInside, meshBounds, normaliseMesh, Random, sampleInterior, sampleSurface, thickenFlatMesh, type InteriorSamples, type TriangleMesh } from "../geometry";
import { BAKED_BODY_VERSION, type BakedBody } from "./baked-body";
import { anchoredFields, type AnchorFrame } from "./anchored-prediction";
import { NO_RIG, packRig } from "./baked-rig";
import { fitCubature } from "./cubature-fit";
import { allFinite } from "../sim/linalg";
import { rigRegionsOf } from "./rig-regions";
import { FIT_CUBATURE_BY_DEFAULT } from "./defaults";
import { SkinningError, type SkinningFieldProvider, type SkinningFields } from "./fields";

export interface BakeOptions {
  /** Learned fields K (the subspace gets K + 1 handles). Default 16. */
  handles?: number;
  /** Cubature points (at most, when fitted). Default 256. */
  cubature?: number;
  /** Fit the cubature's points and volumes to the fields instead of the clusters' centroids and volumes (default: FIT_CUBATURE_BY_DEFAULT). */
  fitCubature?: boolean;
  /** Surface samples for contacts and grabs. Default 512. */
  surfaceSamples?: number;
  /** Surface points shown to the provider (the model's encoder). Default 4096. */
  encoderPoints?: number;
  /** Dense interior samples the mass matrix is integrated on. Default 4096. */
  massSamples?: number;
  seed?: number;
  /**
   * For a rigged mesh with clips, predict on the anchor frame and carry the fields back to the bind pose (default:
   * when the provider anchorsPoses, i.e. the network).
   */
  anchorFrame?: boolean;
  /** Called as each stage starts (progress for long bakes). */
  onProgress?: (stage: BakeStage, fraction: number) => void;
}

export type BakeStage = "sampling" | "fields" | "evaluating" | "cubature" | "done";

export interface BakeResult {
  body: BakedBody;
  /** Milliseconds per stage. */
  timings: { sampling: number; fields: number; evaluating: number; total: number };
  /** The frame the fields were predicted on, for an anchored bake. */
  anchor?: AnchorFrame;
  /** Set when the provider's own fields failed on this mesh and another provider's were baked instead. */
  fallback?: { provider: string; reason: string };
}

/**
 * Interior points (about, at least half) the fitted cubature chooses from and matches: a stratified sample of the
 * solid, the interior candidates when as many of them are inside.
 */
const CUBATURE_POOL = 8192;
/** Cells of the pool's grid at most (a very thin shape gets fewer pool points rather than a huge grid). */
const MAX_POOL_GRID = 1 << 19;

/**
 * Bumped whenever the same mesh, fields and options bake differently (a part of bake cache keys): a change of
 * EIGEN_DEFAULTS or RITZ_FINISH_DEFAULTS included.
 */
export const BAKE_RECIPE = 19;

export const BAKE_LIMITS = Object.freeze({ maxHandles: 64, maxCubature: 4096, maxSurfaceSamples: 4096 });

export async function bakeMesh(mesh: TriangleMesh, provider: SkinningFieldProvider, options: BakeOptions = {}): Promise<BakeResult> {
  const handles = options.handles ?? 16;
  const cubatureCount = options.cubature ?? 256;
  const surfaceSamples = options.surfaceSamples ?? 512;
  const encoderPoints = options.encoderPoints ?? 4096;
  const massSamples = options.massSamples ?? 4096;
  const seed = options.seed ?? 1;
  checkCount("handles", handles, 1, BAKE_LIMITS.maxHandles);
  checkCount("cubature", cubatureCount, 8, BAKE_LIMITS.maxCubature);
  checkCount("surfaceSamples", surfaceSamples, 8, BAKE_LIMITS.maxSurfaceSamples);
  checkCount("encoderPoints", encoderPoints, 64, 65536);
  checkCount("massSamples", massSamples, 64, 65536);
  if (!Number.isInteger(seed)) throw new SkinningError(`seed must be an integer, got ${seed}`);
  const progress = options.onProgress ?? (() => {});

  const t0 = performance.now();
  progress("sampling", 0);
  const normalised = normaliseMesh(thickenFlatMesh(mesh));
  const shapeMesh = normalised.mesh;
  const encoderSurface = sampleSurface(shapeMesh, encoderPoints, seed);
  // Contact and grab samples: farthest points over the vertices and area samples, so that tips (feet, ears,
  // corners) the body rests on are always among them.
  const contactPoints = farthestPoints(concat(shapeMesh.positions, encoderSurface.points), surfaceSamples);
  // One inside test serves the interior sampling and the providers that discretise the solid.
  const inside = createInsideTest(shapeMesh);
  const bounds = meshBounds(shapeMesh.positions), boxVolume = [0, 1, 2].reduce((v, a) => v * (bounds.max[a] - bounds.min[a]), 1);
  const fit = options.fitCubature ?? FIT_CUBATURE_BY_DEFAULT;
  let anchor: AnchorFrame | undefined;
  let interior: Pick<InteriorSamples, "points" | "volumes" | "candidates" | "candidateVolume">, fields: SkinningFields, t1: number, pool: { points: Float64Array; cellVolume: number } | undefined;
  try {
    // A fitted cubature chooses its own points: the candidates' clusters would go unused.
    interior = fit
      ? { points: new Float64Array(0), volumes: new Float64Array(0), ...interiorCandidates(shapeMesh, { count: cubatureCount, seed: seed + 2, insideTest: inside }) }
      : sampleInterior(shapeMesh, { count: cubatureCount, seed: seed + 2, insideTest: inside });
    if (fit) {
      // The candidates (at most CUBATURE_POOL of them, a stratified subset) when there are enough: they are a jittered
      // grid already, and a second one would cost another classification of the box, the sampling's largest part.
      // Else, for a thin shape that fills little of its box, a grid of its own, sized from the candidates' share of
      // the box so that about CUBATURE_POOL land inside.
      const found = interior.candidates.length / 3, share = found / DEFAULT_INTERIOR_CANDIDATES;
      if (found >= CUBATURE_POOL / 2) {
        const kept = subsample(interior.candidates, interior.candidateVolume, CUBATURE_POOL, new Random(seed + 4));
        pool = { points: kept.points, cellVolume: kept.volumes[0] };
      } else pool = jitteredInside(shapeMesh, Math.round(Math.min(MAX_POOL_GRID, CUBATURE_POOL / share)), new Random(seed + 3), inside);
    }
    t1 = performance.now();
    progress("fields", 0.4);
    const rigged = shapeMesh.rig && shapeMesh.skinJoints && shapeMesh.skinWeights && shapeMesh.rig.clips.length > 0;
    if (rigged && (options.anchorFrame ?? provider.anchorsPoses === true)) {
      const shape = { mesh: shapeMesh, rig: shapeMesh.rig!, skinJoints: shapeMesh.skinJoints!, skinWeights: shapeMesh.skinWeights!, center: normalised.center, scale: normalised.scale };
      ({ fields, anchor } = await anchoredFields(shape, provider.anchorProvider ?? provider, handles, { surfacePoints: encoderPoints, seed, interior: interior.candidates }));
    } else {
      fields = await provider.fieldsFor(
        {
          surfacePoints: encoderSurface.points,
          surfaceNormals: encoderSurface.normals,
          interiorPoints: interior.candidates,
          solid: { inside, ...bounds, share: (interior.candidates.length / 3) * interior.candidateVolume / boxVolume },
          ...(shapeMesh.rig && shapeMesh.skinJoints && shapeMesh.skinWeights
            ? { rigRegions: rigRegionsOf(shapeMesh.positions, shapeMesh.rig.parents, shapeMesh.rig.jointNodes, shapeMesh.skinJoints, shapeMesh.skinWeights) }
            : {}),
        },
        handles,
      );
    }
  } finally {
    inside.dispose?.();
  }
  const mass = subsample(interior.candidates, interior.candidateVolume, massSamples, new Random(seed + 5));
  if (fields.count !== handles) throw new SkinningError(`provider ${provider.name} made ${fields.count} fields, ${handles} were asked for`);
  const t2 = performance.now();

  progress("evaluating", 0.5);
  const k = handles;
  // The cubature: points and volumes fitted to the fields from a pool of interior candidates (cubature-fit.ts),
  // or, without fitting, the clusters' centroids with their clusters' volumes.
  const poolPoints = pool ? pool.points : interior.points;
  const np = poolPoints.length / 3;
  const poolRaw = new Float64Array(np * k), poolGradRaw = new Float64Array(np * k * 3);
  await fields.evaluate(poolPoints, poolRaw, poolGradRaw);
  const norms = new Float64Array(k);
  for (let f = 0; f < k; f++) {
    let ms = 0;
    for (let c = 0; c < np; c++) ms += poolRaw[c * k + f] ** 2;
    norms[f] = Math.sqrt(ms / np) + 1e-12;
  }
  const withConstant = async (points: Float64Array, gradients?: Float64Array) => {
    const count = points.length / 3;
    const raw = new Float64Array(count * k);
    const rawGrad = gradients ? new Float64Array(count * k * 3) : undefined;
    await fields.evaluate(points, raw, rawGrad);
    return normalisedWithConstant(raw, rawGrad, norms, count, k, gradients);
  };
  const poolGradients = new Float64Array(np * (k + 1) * 3);
  const poolWeights = normalisedWithConstant(poolRaw, poolGradRaw, norms, np, k, poolGradients);
  const massWeights = await withConstant(mass.points);
  const surfaceWeights = await withConstant(contactPoints);
  progress("evaluating", 0.7);
  const renderWeights = await withConstant(shapeMesh.positions);
  // allFinite is a small function the compiler optimises; the same loop inline in this long function was not (16 ms a bake).
  for (const [name, a] of [["cubature", poolWeights], ["render", renderWeights], ["gradient", poolGradients], ["mass", massWeights]] as const) {
    if (!allFinite(a)) throw new SkinningError(`provider ${provider.name} produced a non-finite ${name} weight`);
  }
  let cubature: { positions: Float64Array; volumes: Float64Array; weights: Float64Array; gradients: Float64Array } = {
    positions: interior.points, volumes: interior.volumes, weights: poolWeights, gradients: poolGradients,
  };
  if (pool) {
    progress("cubature", 0.8);
    const volumeEach = pool.cellVolume;
    const chosen = np > cubatureCount
      ? fitCubature({ handles: k + 1, positions: poolPoints, weights: poolWeights, gradients: poolGradients, volumeEach, mass: { positions: mass.points, weights: massWeights, volumes: mass.volumes } }, cubatureCount)
      : { indices: Int32Array.from({ length: np }, (_, i) => i), volumes: new Float64Array(np).fill(volumeEach) };
    cubature = {
      positions: pick(poolPoints, chosen.indices, 3),
      volumes: chosen.volumes,
      weights: pick(poolWeights, chosen.indices, k + 1),
      gradients: pick(poolGradients, chosen.indices, 3 * (k + 1)),
    };
  }
  const t3 = performance.now();
  progress("done", 1);

  // A rigged mesh keeps its rig: the render vertices (the bind pose) carry their skin weights.
  const packed = shapeMesh.rig && shapeMesh.skinJoints && shapeMesh.skinWeights ? packRig(shapeMesh.rig, shapeMesh.skinJoints, shapeMesh.skinWeights) : null;
  const rigged = packed ? { ...packed.arrays, rigInfo: packed.info } : { ...NO_RIG, rigInfo: null };
  const body: BakedBody = {
    version: BAKED_BODY_VERSION,
    provider: fields.fallback?.provider ?? provider.name,
    learnedHandles: k,
    seed,
    center: normalised.center,
    scale: normalised.scale,
    renderPositions: shapeMesh.positions,
    triangles: shapeMesh.triangles,
    renderUVs: shapeMesh.uvs ?? new Float64Array(0),
    renderUVTriangles: shapeMesh.uvTriangles ?? new Uint32Array(0),
    renderColors: shapeMesh.colors ?? new Float64Array(0),
    renderColorTriangles: shapeMesh.colorTriangles ?? new Uint32Array(0),
    ...rigged,
    renderWeights,
    cubaturePositions: cubature.positions,
    cubatureVolumes: cubature.volumes,
    cubatureWeights: cubature.weights,
    cubatureGradients: cubature.gradients,
    massPositions: mass.points,
    massVolumes: mass.volumes,
    massWeights,
    massIntegrals: new Float64Array(0),
    rigMoments: new Float64Array(0),
    surfacePositions: contactPoints,
    surfaceWeights,
    fieldNorms: norms,
    ...describedFields(fields),
    fieldRefinement: fields.refinement?.() ?? new Float64Array(0),
  };
  return { body, timings: { sampling: t1 - t0, fields: t2 - t1, evaluating: t3 - t2, total: t3 - t0 }, ...(anchor ? { anchor } : {}), ...(fields.fallback ? { fallback: fields.fallback } : {}) };
}

function describedFields(fields: SkinningFields): { fieldKind: string; fieldDescription: Float64Array } {
  const description = fields.describe?.();
  return description ? { fieldKind: description.kind, fieldDescription: description.data } : { fieldKind: "", fieldDescription: new Float64Array(0) };
}

/** Divides each learned field by its cubature norm and prepends the constant channel (weight 1, gradient 0). */
export function normalisedWithConstant(
  raw: Float64Array, rawGrad: Float64Array | undefined, norms: Float64Array, count: number, k: number, gradientsOut?: Float64Array,
): Float64Array {
  const out = new Float64Array(count * (k + 1));
  for (let i = 0; i < count; i++) {
    out[i * (k + 1)] = 1;
    for (let f = 0; f < k; f++) {
      const scale = 1 / norms[f];
      out[i * (k + 1) + f + 1] = raw[i * k + f] * scale;
      if (rawGrad && gradientsOut) {
        for (let a = 0; a < 3; a++) gradientsOut[3 * (i * (k + 1) + f + 1) + a] = rawGrad[3 * (i * k + f) + a] * scale;
      }
    }
  }
  return out;
}

/**
 * A stratified subset of the candidates, each carrying its share of the total volume: one random candidate from
 * each run of n / limit consecutive ones. Not every n / limit-th: the candidates are a grid's cells in order, so a
 * fixed stride lands on a few of its planes (a box's every 8th candidate of 32^3 on 4 of 32 x-planes, its centre
 * of mass 3.5 cells off).
 */
function subsample(points: Float64Array, volumeEach: number, limit: number, random: Random): { points: Float64Array; volumes: Float64Array } {
  const n = points.length / 3;
  const count = Math.min(n, limit);
  const out = new Float64Array(3 * count);
  for (let k = 0; k < count; k++) {
    const start = Math.floor((k * n) / count), end = Math.floor(((k + 1) * n) / count);
    const i = start + Math.floor(random.next() * (end - start));
    out.set(points.subarray(3 * i, 3 * i + 3), 3 * k);
  }
  return { points: out, volumes: new Float64Array(count).fill((volumeEach * n) / count) };
}

function checkCount(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SkinningError(`${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
}

/** The rows `indices` of a row-major array with `width` numbers per row. */
function pick(a: Float64Array, indices: Int32Array, width: number): Float64Array {
  const out = new Float64Array(indices.length * width);
  indices.forEach((i, r) => out.set(a.subarray(i * width, (i + 1) * width), r * width));
  return out;
}

function concat(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
