import { cleanMesh } from "./clean-mesh";
import { resolveLimits, type MeshLimits } from "./limits";
import { MeshError } from "./mesh-error";
import type { MeshFormat } from "./mesh-format";
import { parseGltf } from "./parse-gltf";
import { parseObj } from "./parse-obj";
import { parseStl } from "./parse-stl";
import type { TriangleMesh } from "./types";

export interface ParseMeshOptions {
  /** Stricter (or, for trusted tools, looser) limits than MESH_LIMITS. */
  limits?: Partial<MeshLimits>;
}

/**
 * Reads an OBJ, glTF, GLB or STL file into one cleaned triangle mesh (all objects, groups, primitives and
 * instances merged, in file units). Throws MeshError, with the reason, on anything unusable.
 */
export async function parseMesh(data: Uint8Array, format: MeshFormat, options: ParseMeshOptions = {}): Promise<TriangleMesh> {
  const limits = resolveLimits(options.limits);
  if (!(data instanceof Uint8Array)) throw new MeshError("mesh data must be a Uint8Array");
  if (data.byteLength === 0) throw new MeshError("mesh file is empty (0 bytes)");
  if (data.byteLength > limits.maxBytes) {
    throw new MeshError(`mesh file is ${data.byteLength.toLocaleString("en")} bytes; the limit is ${limits.maxBytes.toLocaleString("en")}`);
  }
  let raw: TriangleMesh;
  switch (format) {
    case "obj":
      raw = parseObj(new TextDecoder().decode(data), limits);
      break;
    case "gltf":
    case "glb":
      raw = await parseGltf(data, limits);
      break;
    case "stl":
      raw = parseStl(data, limits);
      break;
    default:
      throw new MeshError(`unknown mesh format ${JSON.stringify(format)}; expected "obj", "gltf", "glb" or "stl"`);
  }
  return cleanMesh(raw, { limits });
}
