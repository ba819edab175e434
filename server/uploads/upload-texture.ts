// An upload's base-colour image goes to every page in its room, and each decodes it whole: its size in pixels, not
// its bytes, is what costs them (a 261 KB PNG of 16,384 x 16,384 is 1 GiB decoded). So its header is read before
// the file is accepted, and a file whose image is too big, or whose image's size cannot be read, is refused with
// the reason.

import { gltfBaseColourImage, imageSize, type BaseColourImage, type MeshFormat, type TriangleMesh } from "../../shared/geometry";
import { UPLOAD_LIMITS } from "../../shared/net";

/** The image an uploaded mesh would wear: a glTF's base-colour image, when the mesh has texture coordinates for it. */
export function uploadTexture(format: MeshFormat, bytes: Uint8Array, mesh: TriangleMesh): BaseColourImage | null {
  return (format === "glb" || format === "gltf") && mesh.uvs ? gltfBaseColourImage(bytes) : null;
}

/** Why the upload cannot wear this image (more than UPLOAD_LIMITS.maxTextureSide pixels a side, or no readable size), or null. */
export function textureRefusal(image: BaseColourImage | null): string | null {
  if (!image) return null;
  const size = imageSize(image.bytes, image.extension);
  const name = `the base-colour image (${image.extension === "jpg" ? "JPEG" : image.extension.toUpperCase()})`;
  if (!size) return `${name} has no size its header can tell (it is not a well-formed image of its type); export it again`;
  const side = UPLOAD_LIMITS.maxTextureSide;
  if (size.width <= side && size.height <= side) return null;
  const decoded = (size.width * size.height * 4) / 2 ** 20; // RGBA, as pages decode it
  return `${name} is ${size.width.toLocaleString("en")} x ${size.height.toLocaleString("en")} pixels (${decoded >= 1024 ? `${(decoded / 1024).toFixed(1)} GiB` : `${Math.round(decoded)} MiB`} decoded); the limit is ${side.toLocaleString("en")} pixels a side: scale it down`;
}
