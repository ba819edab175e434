// Bakes cached on disk by content hash: the same mesh, fields and bake options give the same file, so a
// restarted server (or a second process) skips the bake. A damaged cache file is re-baked, never trusted.

import { createHash } from "node:crypto";
import { access, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { TriangleMesh } from "../../shared/geometry";
import { BAKE_RECIPE, BAKED_BODY_VERSION, bakeMesh, packRig, FIT_CUBATURE_BY_DEFAULT, clientBakedBody, decodeBakedBody, encodeBakedBody, type BakedBody, type BakeOptions, type SkinningFieldProvider } from "../../shared/skinning";

/** Where bakes are kept: BAKE_CACHE_DIR, or .cache/bakes in the repository (processes on one machine share it). */
export const BAKE_CACHE_DIRECTORY = path.resolve(process.env.BAKE_CACHE_DIR || path.join(import.meta.dirname, "../../.cache/bakes"));

/** The file clients download for a hash: the bake without what they compute themselves (clientBakedBody). */
export function clientBakeFile(hash: string, directory = BAKE_CACHE_DIRECTORY): string {
  return path.join(directory, `${hash}.client.bake`);
}

/** The bake options of every room body, the layout's and uploads' alike (their coordinate counts must match). */
export const ROOM_BAKE_OPTIONS = Object.freeze({ handles: 16, cubature: 256 });

export interface CachedBake {
  body: BakedBody;
  /** The content hash (hex): also how clients ask for this bake. */
  hash: string;
  /** The encoded BakedBody. */
  bytes: Uint8Array;
  fromCache: boolean;
}

export function bakeKey(mesh: TriangleMesh, providerKey: string, options: BakeOptions): string {
  const hash = createHash("sha256");
  // The cubature's kind resolved, so that a change of its default never serves an old bake.
  const { onProgress: _progress, ...bakeOptions } = options;
  const resolved = { ...bakeOptions, fitCubature: options.fitCubature ?? FIT_CUBATURE_BY_DEFAULT };
  hash.update(`pliant-bake v${BAKED_BODY_VERSION} r${BAKE_RECIPE} ${providerKey} ${JSON.stringify(resolved)}\n`);
  hash.update(new Uint8Array(mesh.positions.buffer, mesh.positions.byteOffset, mesh.positions.byteLength));
  hash.update(new Uint8Array(mesh.triangles.buffer, mesh.triangles.byteOffset, mesh.triangles.byteLength));
  for (const a of [mesh.uvs, mesh.uvTriangles, mesh.colors, mesh.colorTriangles]) if (a) hash.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  // A rig is part of the bake: two files with one mesh and different rigs or clips are different bakes.
  if (mesh.rig && mesh.skinJoints && mesh.skinWeights) {
    const { info, arrays } = packRig(mesh.rig, mesh.skinJoints, mesh.skinWeights);
    hash.update(JSON.stringify(info));
    for (const a of Object.values(arrays)) hash.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }
  return hash.digest("hex").slice(0, 32);
}

/**
 * Bakes decoded lately, by file: a new room gets the very objects the running rooms use, so that what is built
 * from them once (shared/scene/body-shape-cache.ts) is shared too. Bounded: a layout has a handful of bodies.
 */
const RECENT_BAKES = 32;
const recent = new Map<string, CachedBake>();

function remember(file: string, bake: CachedBake): CachedBake {
  recent.delete(file);
  recent.set(file, bake);
  if (recent.size > RECENT_BAKES) recent.delete(recent.keys().next().value!);
  return bake;
}

/** The bake of a mesh, from the cache or baked now (`options.onProgress` hears a bake's stages). */
export async function cachedBake(
  mesh: TriangleMesh, provider: SkinningFieldProvider, providerKey: string, options: BakeOptions = {},
  directory = BAKE_CACHE_DIRECTORY,
): Promise<CachedBake> {
  const hash = bakeKey(mesh, providerKey, options);
  const file = path.join(directory, `${hash}.bake`);
  const known = recent.get(file);
  if (known) return remember(file, { ...known, fromCache: true });
  try {
    const bytes = new Uint8Array(await readFile(file));
    const body = decodeBakedBody(bytes);
    // Caches from before client copies existed get theirs now.
    await access(clientBakeFile(hash, directory)).catch(() => writeAtomically(clientBakeFile(hash, directory), encodeBakedBody(clientBakedBody(body), { floats: "f32" })));
    return remember(file, { body, hash, bytes, fromCache: true });
  } catch {
    // Missing or unreadable: bake it.
  }
  const { body } = await bakeMesh(mesh, provider, options);
  const bytes = encodeBakedBody(body);
  await mkdir(directory, { recursive: true });
  await writeAtomically(clientBakeFile(hash, directory), encodeBakedBody(clientBakedBody(body), { floats: "f32" }));
  await writeAtomically(file, bytes);
  return remember(file, { body, hash, bytes, fromCache: false });
}

/**
 * A bake known by its hash (an upload another thread or process baked): from memory, `directory` of this
 * machine's cache, or `fetchShared` (Redis); null when none has it.
 */
export async function bakeByHash(hash: string, directory: string, fetchShared?: (hash: string) => Promise<Uint8Array | null>): Promise<CachedBake | null> {
  const file = path.join(directory, `${hash}.bake`);
  const known = recent.get(file);
  if (known) return remember(file, { ...known, fromCache: true });
  const bytes = await readFile(file).then((b) => new Uint8Array(b), () => fetchShared?.(hash) ?? null);
  if (!bytes) return null;
  return remember(file, { body: decodeBakedBody(bytes), hash, bytes, fromCache: true });
}

/** Readers never see half a file (several processes may share the cache). */
async function writeAtomically(file: string, bytes: Uint8Array): Promise<void> {
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
}
