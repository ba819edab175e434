// Turns a layout's soft-body specs into meshes and baked SoftEntities (cached bakes, baseline or model fields).

import path from "node:path";
import { boxMesh, sphereMesh, type TriangleMesh } from "../../shared/geometry";
import { MATERIALS, SoftEntity, type SoftBodySpec } from "../../shared/scene";
import { FIT_CUBATURE_BY_DEFAULT, SkinningError, type SkinningFieldProvider } from "../../shared/skinning";
import { parseBoxSpec, readMeshFile } from "./mesh-file";
import { cachedBake, ROOM_BAKE_OPTIONS, type CachedBake } from "./bake-cache";

export const ASSET_DIRECTORY = path.resolve(import.meta.dirname, "../assets");

export interface PlacedBody {
  spec: SoftBodySpec;
  entity: SoftEntity;
  bake: CachedBake;
}

export async function meshForSpec(spec: SoftBodySpec): Promise<{ mesh: TriangleMesh; size: number }> {
  const { mesh, size } = await unturnedMeshForSpec(spec);
  if (spec.yaw) turnAboutY(mesh, (spec.yaw * Math.PI) / 180);
  return { mesh, size };
}

/** Turns a mesh in place about the vertical axis (right-handed, y up). */
function turnAboutY(mesh: TriangleMesh, angle: number): void {
  const c = Math.cos(angle), s = Math.sin(angle), p = mesh.positions;
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i], z = p[i + 2];
    p[i] = c * x + s * z;
    p[i + 2] = -s * x + c * z;
  }
}

async function unturnedMeshForSpec(spec: SoftBodySpec): Promise<{ mesh: TriangleMesh; size: number }> {
  const [kind, value] = spec.mesh.split(":", 2);
  if (kind === "asset" && /^[a-z0-9-]+$/.test(value ?? "")) return { mesh: await readMeshFile(path.join(ASSET_DIRECTORY, `${value}.obj`)), size: spec.size };
  // A mesh file anywhere on the server's disk: layouts are server code (benchmarks, custom rooms), never client input.
  if (kind === "file" && value && path.isAbsolute(spec.mesh.slice(5))) return { mesh: await readMeshFile(spec.mesh.slice(5)), size: spec.size };
  if (kind === "box") {
    const [x, y, z] = parseBoxSpec(spec.mesh)!;
    return { mesh: boxMesh(x, y, z), size: Math.max(x, y, z) };
  }
  if (kind === "sphere") {
    const radius = Number(value);
    if (radius > 0 && radius <= 1) return { mesh: sphereMesh(radius, 3), size: 2 * radius };
  }
  throw new SkinningError(`unknown soft-body mesh "${spec.mesh}": use asset:NAME, file:/absolute/path.obj, box:LxWxH or sphere:R (metres)`);
}

/**
 * Bakes of the built-in meshes (assets, boxes, spheres: they never change while the server runs) by spec, so that
 * a new room neither reads nor hashes their meshes again. Files on disk are looked up each time.
 */
const builtInBakes = new Map<string, { size: number; bake: CachedBake }>();
const BUILT_IN_BAKES = 32;

/** Bakes (or finds in the cache) every body of a layout. */
export async function bakeBodies(
  specs: SoftBodySpec[], provider: SkinningFieldProvider, providerKey: string, fitCubature = FIT_CUBATURE_BY_DEFAULT,
): Promise<{ spec: SoftBodySpec; size: number; bake: CachedBake }[]> {
  const baked = [];
  for (const spec of specs) {
    const key = spec.mesh.startsWith("file:") ? null : JSON.stringify([spec.mesh, spec.size, spec.yaw ?? 0, providerKey, fitCubature]);
    const known = key === null ? undefined : builtInBakes.get(key);
    if (known) {
      baked.push({ spec, ...known });
      continue;
    }
    const { mesh, size } = await meshForSpec(spec);
    const bake = await cachedBake(mesh, provider, providerKey, { ...ROOM_BAKE_OPTIONS, fitCubature });
    if (key !== null) {
      if (builtInBakes.size >= BUILT_IN_BAKES) builtInBakes.delete(builtInBakes.keys().next().value!);
      builtInBakes.set(key, { size, bake });
    }
    baked.push({ spec, size, bake });
  }
  return baked;
}

/** Lets a running room's ticks in between the pieces of a new room's set-up. */
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A room's bodies: baked, then placed as solver bodies with their proxies. */
export async function placeBodies(
  specs: SoftBodySpec[], provider: SkinningFieldProvider, providerKey: string, fitCubature = FIT_CUBATURE_BY_DEFAULT,
): Promise<PlacedBody[]> {
  const placed: PlacedBody[] = [];
  for (const { spec, size, bake } of await bakeBodies(specs, provider, providerKey, fitCubature)) {
    await nextMacrotask();
    placed.push({ spec, bake, entity: new SoftEntity(spec.id, bake.body, size, MATERIALS[spec.material], spec.position) });
  }
  return placed;
}
