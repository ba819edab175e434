import { MeshError } from "./mesh-error";

export type MeshFormat = "obj" | "gltf" | "glb" | "stl";

const FORMATS: readonly MeshFormat[] = ["obj", "gltf", "glb", "stl"];

/** The mesh format named by a file's extension (case-insensitive). */
export function meshFormatFromName(fileName: string): MeshFormat {
  const baseName = fileName.slice(Math.max(fileName.lastIndexOf("/"), fileName.lastIndexOf("\\")) + 1);
  const dot = baseName.lastIndexOf(".");
  const extension = dot >= 0 ? baseName.slice(dot + 1).toLowerCase() : "";
  const format = FORMATS.find((f) => f === extension);
  if (format === undefined) {
    const shown = extension === "" ? "no extension" : `extension ".${extension}"`;
    throw new MeshError(`"${fileName}" has ${shown}; supported mesh files are .obj, .gltf, .glb and .stl`);
  }
  return format;
}
