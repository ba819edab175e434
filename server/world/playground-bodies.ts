// Turns a layout's soft-body specs into meshes and baked SoftEntities (cached bakes, baseline or model fields).

import path from "node:path";
import { boxMesh, sphereMesh, type TriangleMesh } from "../../shared/geometry";
import { MATERIALS, SoftEntity, type SoftBodySpec } from "../../shared/scene";
import { SkinningError, type SkinningFieldProvider } from "../../shared/skinning";
import { readMeshFile } from "../mesh-file";
import { cachedBake, type CachedBake } from "./bake-cache";

export const ASSET_DIRECTORY = path.resolve(import.meta.dirname, "../assets");

export interface PlacedBody {
  spec: SoftBodySpec;
  entity: SoftEntity;
  bake: CachedBake;
}

export async function meshForSpec(spec: SoftBodySpec): Promise<{ mesh: TriangleMesh; size: number }> {
  const [kind, value] = spec.mesh.split(":", 2);
  if (kind === "asset" && /^[a-z0-9-]+$/.test(value ?? "")) return { mesh: await readMeshFile(path.join(ASSET_DIRECTORY, `${value}.obj`)), size: spec.size };
  if (kind === "box") {
    const sides = (value ?? "").split("x").map(Number);
    if (sides.length === 3 && sides.every((v) => v > 0 && v <= 2)) return { mesh: boxMesh(sides[0], sides[1], sides[2]), size: Math.max(...sides) };
  }
  if (kind === "sphere") {
    const radius = Number(value);
    if (radius > 0 && radius <= 1) return { mesh: sphereMesh(radius, 3), size: 2 * radius };
  }
  throw new SkinningError(`unknown soft-body mesh "${spec.mesh}": use asset:NAME, box:LxWxH or sphere:R (metres)`);
}

export async function placeBodies(specs: SoftBodySpec[], provider: SkinningFieldProvider, providerKey: string): Promise<PlacedBody[]> {
  const placed: PlacedBody[] = [];
  for (const spec of specs) {
    const { mesh, size } = await meshForSpec(spec);
    const bake = await cachedBake(mesh, provider, providerKey, { handles: 16, cubature: 256 });
    placed.push({ spec, bake, entity: new SoftEntity(spec.id, bake.body, size, MATERIALS[spec.material], spec.position) });
  }
  return placed;
}
