// Bakes cached on disk by content hash: the same mesh, fields and bake options give the same file, so a
// restarted server (or a second process) skips the bake. A damaged cache file is re-baked, never trusted.

import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { TriangleMesh } from "../../shared/geometry";
import { BAKED_BODY_VERSION, bakeMesh, decodeBakedBody, encodeBakedBody, type BakedBody, type BakeOptions, type SkinningFieldProvider } from "../../shared/skinning";

export const BAKE_CACHE_DIRECTORY = path.resolve(import.meta.dirname, "../../.cache/bakes");

export interface CachedBake {
  body: BakedBody;
  /** The content hash (hex): also how clients ask for this bake. */
  hash: string;
  /** The encoded BakedBody. */
  bytes: Uint8Array;
  fromCache: boolean;
}

export function bakeKey(mesh: TriangleMesh, providerKey: string, options: Omit<BakeOptions, "onProgress">): string {
  const hash = createHash("sha256");
  hash.update(`pliant-bake v${BAKED_BODY_VERSION} ${providerKey} ${JSON.stringify(options)}\n`);
  hash.update(new Uint8Array(mesh.positions.buffer, mesh.positions.byteOffset, mesh.positions.byteLength));
  hash.update(new Uint8Array(mesh.triangles.buffer, mesh.triangles.byteOffset, mesh.triangles.byteLength));
  return hash.digest("hex").slice(0, 32);
}

export async function cachedBake(
  mesh: TriangleMesh, provider: SkinningFieldProvider, providerKey: string, options: Omit<BakeOptions, "onProgress"> = {},
  directory = BAKE_CACHE_DIRECTORY,
): Promise<CachedBake> {
  const hash = bakeKey(mesh, providerKey, options);
  const file = path.join(directory, `${hash}.bake`);
  try {
    const bytes = new Uint8Array(await readFile(file));
    return { body: decodeBakedBody(bytes), hash, bytes, fromCache: true };
  } catch {
    // Missing or unreadable: bake it.
  }
  const { body } = await bakeMesh(mesh, provider, options);
  const bytes = encodeBakedBody(body);
  await mkdir(directory, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
  return { body, hash, bytes, fromCache: false };
}
