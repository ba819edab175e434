// Mesh -> baked body -> a SoftBody at a physical size, with the render mesh's basis rows for measuring.

import { boxMesh, type TriangleMesh } from "../../shared/geometry";
import { basisRows, SoftBody, Subspace, type Material, type SolverOptions } from "../../shared/sim";
import { bakeMesh, handleCount, SkinningError, toSubspaceSource, type BakedBody, type BakeResult, type SkinningFieldProvider } from "../../shared/skinning";
import { parseBoxSpec, readMeshFile } from "../world/mesh-file";
import { heldOutShape } from "../modes/heldout-shapes";
import { providerFor, type WeightsSource } from "../skinning/weights-source";

export interface BodySetup {
  /** A mesh file path, "box:LxWxH" in metres, or "heldout:N" (server/modes/heldout-shapes.ts). */
  mesh: string;
  weights: WeightsSource;
  handles: number;
  cubature: number;
  /** Largest extent of a mesh file's body, m (a box keeps its own size). */
  size: number;
  seed?: number;
  /** A provider to use instead of `weights` (evaluations of other fields). */
  provider?: SkinningFieldProvider;
  /** Cubature fitted to the fields or at the clusters' centroids (BakeOptions.fitCubature; default as the bake's). */
  fitCubature?: boolean;
}

export interface LoadedBody {
  baked: BakedBody;
  bakeMs: number;
  /** Milliseconds per bake stage. */
  timings: BakeResult["timings"];
  /** Largest extent in metres. */
  size: number;
  subspace: Subspace;
  /** Render vertices in body metres (relative to the body origin) and their basis rows. */
  renderRest: Float64Array;
  renderRows: Float64Array;
  /** Set when the asked-for fields failed on this mesh and another provider's were baked (BakeResult.fallback). */
  fallback?: BakeResult["fallback"];
}

export async function loadMesh(spec: string): Promise<{ mesh: TriangleMesh; size?: number }> {
  const box = parseBoxSpec(spec);
  if (box) return { mesh: boxMesh(box[0], box[1], box[2]), size: Math.max(...box) };
  if (spec.startsWith("heldout:")) {
    const index = Number(spec.slice("heldout:".length));
    if (!Number.isInteger(index) || index < 0 || index > 9999) throw new SkinningError(`a held-out shape is heldout:N with N an integer in [0, 9999], got "${spec}"`);
    return { mesh: heldOutShape(index).mesh };
  }
  return { mesh: await readMeshFile(spec) };
}

export async function loadBody(setup: BodySetup): Promise<LoadedBody> {
  const { mesh, size: boxSize } = await loadMesh(setup.mesh);
  const size = boxSize ?? setup.size;
  const { body: baked, timings, fallback } = await bakeMesh(mesh, setup.provider ?? (await providerFor(setup.weights)), {
    handles: setup.handles,
    cubature: setup.cubature,
    seed: setup.seed,
    fitCubature: setup.fitCubature,
  });
  const subspace = new Subspace(toSubspaceSource(baked, size));
  const s = size / 2;
  const renderRest = baked.renderPositions.map((v) => v * s);
  const renderRows = basisRows({ positions: renderRest, weights: baked.renderWeights }, handleCount(baked));
  return { baked, bakeMs: timings.total, timings, size, subspace, renderRest, renderRows, ...(fallback ? { fallback } : {}) };
}

export function createSoftBody(loaded: LoadedBody, material: Material, options: Partial<SolverOptions>, origin: ArrayLike<number>): SoftBody {
  return new SoftBody(loaded.subspace, material, options, origin);
}
