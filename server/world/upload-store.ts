// Where uploads' bakes and textures are kept: a folder of their own in the bake cache, pruned to the most recently
// used UPLOAD_LIMITS.keptBakes bakes (and as many textures), so that a day of visitors' files cannot fill the disk.
// A room holds a handful of added bodies, far fewer than are kept, and a bake in use is touched when used again.

import { createHash } from "node:crypto";
import { mkdir, readdir, stat, unlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import type { BaseColourImage } from "../../shared/geometry";
import { UPLOAD_LIMITS } from "../../shared/net";
import { BAKE_CACHE_DIRECTORY } from "./bake-cache";

export const UPLOAD_BAKE_DIRECTORY = path.join(BAKE_CACHE_DIRECTORY, "uploads");

/** The first bytes of each image type a texture may be (anything else is not served). */
const SIGNATURES: Readonly<Record<string, (b: Uint8Array) => boolean>> = Object.freeze({
  png: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  jpg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  webp: (b) => String.fromCharCode(...b.subarray(0, 4)) === "RIFF" && String.fromCharCode(...b.subarray(8, 12)) === "WEBP",
});

/**
 * Keeps an upload's base-colour image, named by its own content (two files with one mesh and different images
 * never share a name, and a file is never overwritten); its file name, or null for an image that is not what its
 * type says or is over UPLOAD_LIMITS.maxTextureBytes.
 */
export async function keepTexture(image: BaseColourImage): Promise<string | null> {
  if (image.bytes.byteLength > UPLOAD_LIMITS.maxTextureBytes || !SIGNATURES[image.extension]?.(image.bytes)) return null;
  const name = `${createHash("sha256").update(image.bytes).digest("hex").slice(0, 32)}.${image.extension}`;
  await mkdir(UPLOAD_BAKE_DIRECTORY, { recursive: true });
  await writeFile(path.join(UPLOAD_BAKE_DIRECTORY, name), image.bytes, { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  await touch(name);
  return name;
}

/** Marks a kept file as just used (pruning goes by use, oldest first). */
export async function touch(file: string): Promise<void> {
  const now = new Date();
  await utimes(path.join(UPLOAD_BAKE_DIRECTORY, file), now, now).catch(() => undefined);
}

/** Removes the least recently used bakes (both copies) and textures beyond UPLOAD_LIMITS.keptBakes each. */
export async function pruneUploads(): Promise<void> {
  const files = await readdir(UPLOAD_BAKE_DIRECTORY).catch(() => [] as string[]);
  const groups: Record<string, { name: string; used: number }[]> = { bake: [], texture: [] };
  for (const name of files) {
    const kind = /^[0-9a-f]{32}\.bake$/.test(name) ? "bake" : /^[0-9a-f]{32}\.(png|jpg|webp)$/.test(name) ? "texture" : null;
    if (!kind) continue;
    const used = await stat(path.join(UPLOAD_BAKE_DIRECTORY, name)).then((s) => s.mtimeMs, () => 0);
    groups[kind].push({ name, used });
  }
  for (const group of Object.values(groups)) {
    group.sort((a, b) => b.used - a.used);
    for (const { name } of group.slice(UPLOAD_LIMITS.keptBakes)) {
      await unlink(path.join(UPLOAD_BAKE_DIRECTORY, name)).catch(() => undefined);
      if (name.endsWith(".bake")) await unlink(path.join(UPLOAD_BAKE_DIRECTORY, name.replace(/\.bake$/, ".client.bake"))).catch(() => undefined);
    }
  }
}
