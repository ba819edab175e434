// Reads a mesh file from disk with a clear error for missing or unreadable files, and names a box by its size ("box:LxWxH").

import { readFile, stat } from "node:fs/promises";
import { MESH_LIMITS, MeshError, meshFormatFromName, parseMesh, type TriangleMesh } from "../../shared/geometry";

export async function readMeshFile(path: string): Promise<TriangleMesh> {
  const format = meshFormatFromName(path);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    throw new MeshError(`cannot read mesh file "${path}": no such file`);
  }
  if (size > MESH_LIMITS.maxBytes) throw new MeshError(`mesh file "${path}" is ${size} bytes; the limit is ${MESH_LIMITS.maxBytes}`);
  const data = new Uint8Array(await readFile(path));
  return parseMesh(data, format);
}

/** "box:1x0.1x0.1" -> [1, 0.1, 0.1], or null for a file path. */
export function parseBoxSpec(spec: string): [number, number, number] | null {
  if (!spec.startsWith("box:")) return null;
  const parts = spec.slice(4).split("x").map(Number);
  if (parts.length !== 3 || !parts.every((v) => Number.isFinite(v) && v > 0 && v <= 100)) {
    throw new MeshError(`box size must be LxWxH in metres, each in (0, 100], got "${spec}"`);
  }
  return parts as [number, number, number];
}
