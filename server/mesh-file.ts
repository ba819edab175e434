// Reads a mesh file from disk with a clear error for missing or unreadable files.

import { readFile, stat } from "node:fs/promises";
import { MESH_LIMITS, MeshError, meshFormatFromName, parseMesh, type TriangleMesh } from "../shared/geometry";

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
