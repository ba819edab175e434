// A layout's characters: their rigged meshes baked (cached like the bodies' bakes) and their textures kept where the
// pages fetch uploaded textures from.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { gltfBaseColourImage } from "../../shared/geometry";
import type { CharacterSpec } from "../../shared/scene/layout";
import { FIT_CUBATURE_BY_DEFAULT, type SkinningFieldProvider } from "../../shared/skinning";
import { readMeshFile } from "./mesh-file";
import { keepTexture } from "./upload-store";
import { cachedBake, ROOM_BAKE_OPTIONS, type CachedBake } from "./bake-cache";
import { ASSET_DIRECTORY } from "./playground-bodies";

export interface BakedCharacter {
  spec: CharacterSpec;
  bake: CachedBake;
  /** Where pages fetch its base-colour texture ("" for none). */
  texture: string;
}

const baked = new Map<string, BakedCharacter>();

function assetFile(spec: CharacterSpec): string {
  const [kind, name] = spec.mesh.split(":", 2);
  if (kind !== "asset" || !/^[a-z0-9-]+$/.test(name ?? "")) throw new Error(`character ${spec.id}: its mesh must be asset:NAME (a .glb the server ships), got "${spec.mesh}"`);
  return path.join(ASSET_DIRECTORY, `${name}.glb`);
}

/** Bakes (or finds) every character of a layout; the same spec and fields give the same bake for every room. */
export async function bakeCharacters(specs: CharacterSpec[], provider: SkinningFieldProvider, providerKey: string, fitCubature = FIT_CUBATURE_BY_DEFAULT): Promise<BakedCharacter[]> {
  const out: BakedCharacter[] = [];
  for (const spec of specs) {
    const key = JSON.stringify([spec.mesh, providerKey, fitCubature]);
    let character = baked.get(key);
    if (!character) {
      const file = assetFile(spec);
      const mesh = await readMeshFile(file);
      if (!mesh.rig) throw new Error(`character ${spec.id}: ${file} has no skin`);
      const bake = await cachedBake(mesh, provider, providerKey, { ...ROOM_BAKE_OPTIONS, fitCubature });
      const image = gltfBaseColourImage(new Uint8Array(await readFile(file)));
      const texture = image ? await keepTexture(image) : null;
      character = { spec, bake, texture: texture ? `/uploaded-textures/${texture}` : "" };
      baked.set(key, character);
    }
    out.push({ ...character, spec });
  }
  return out;
}
