// The base-colour image of a glTF file (.glb or .gltf with embedded data), so that an uploaded body keeps its look:
// the texture of the first material that has one, from the GLB's binary chunk or a data: URI.

import { isGlb, parseJsonText, splitGlb } from "./parse-gltf";

/** Image types pages can draw. */
const IMAGE_TYPES: Readonly<Record<string, string>> = Object.freeze({ "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" });

export interface BaseColourImage {
  bytes: Uint8Array;
  /** File extension for its type: png, jpg or webp. */
  extension: string;
}

/** The image, or null when the file has none usable (no textured material, an external or unknown image). */
export function gltfBaseColourImage(data: Uint8Array): BaseColourImage | null {
  try {
    const { json, resources } = isGlb(data) ? splitGlb(data) : { json: parseJsonText(data), resources: {} as Record<string, Uint8Array> };
    const material = (json.materials ?? []).find((m) => m.pbrMetallicRoughness?.baseColorTexture !== undefined);
    const texture = material && json.textures?.[material.pbrMetallicRoughness!.baseColorTexture!.index];
    const image = texture?.source !== undefined ? json.images?.[texture.source] : undefined;
    if (!image) return null;
    if (image.bufferView !== undefined) {
      const view = json.bufferViews?.[image.bufferView], bin = Object.values(resources)[0];
      const extension = IMAGE_TYPES[image.mimeType ?? ""];
      if (!view || !bin || !extension || view.buffer !== 0) return null;
      const start = view.byteOffset ?? 0;
      if (start + view.byteLength > bin.byteLength) return null;
      return { bytes: bin.slice(start, start + view.byteLength), extension };
    }
    const match = /^data:(image\/[a-z]+);base64,(.*)$/s.exec(image.uri ?? "");
    const extension = match && IMAGE_TYPES[match[1]];
    if (!match || !extension) return null;
    const text = atob(match[2]);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return { bytes, extension };
  } catch {
    return null; // the mesh itself is checked by parseGltf, with reasons
  }
}
