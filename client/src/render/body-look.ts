// How each material reads on screen: jelly glossy and translucent, rubber satin, dough matte and powdery; a
// textured mesh shows its own colours, tinted by its material's.

import { useEffect } from "react";
import * as THREE from "three";
import { MATERIALS, isMaterialName } from "../../../shared/scene";

/** How much of the material's colour tints a textured body (0: the texture's own colours). */
const TEXTURE_TINT = 0.35;
const textures = new THREE.TextureLoader();

/**
 * Puts the texture at `url` ("" for none) on `material` once it has loaded (the body shows untextured until
 * then), tinted by the material's colour; a texture that fails to load leaves the body untextured.
 */
export function useBaseColourTexture(material: THREE.MeshPhysicalMaterial, url: string): void {
  useEffect(() => {
    if (!url) return;
    let live = true, texture: THREE.Texture | undefined;
    const plain = material.color.clone();
    textures.load(url, (loaded) => {
      texture = loaded;
      if (!live) return void loaded.dispose();
      loaded.colorSpace = THREE.SRGBColorSpace;
      loaded.anisotropy = 4;
      material.map = loaded;
      material.color.setRGB(1, 1, 1).lerp(plain, TEXTURE_TINT);
      material.needsUpdate = true;
    }, undefined, () => undefined);
    return () => {
      live = false;
      texture?.dispose();
      material.map = null;
      material.color.copy(plain);
      material.needsUpdate = true;
    };
  }, [material, url]);
}

export function createBodyMaterial(material: string): THREE.MeshPhysicalMaterial {
  const name = isMaterialName(material) ? material : "jelly";
  const color = new THREE.Color(MATERIALS[name].color);
  switch (name) {
    case "rubber":
      return new THREE.MeshPhysicalMaterial({ color, roughness: 0.45, metalness: 0, clearcoat: 0.35, clearcoatRoughness: 0.4 });
    case "dough":
      return new THREE.MeshPhysicalMaterial({ color, roughness: 0.92, metalness: 0, sheen: 0.8, sheenRoughness: 0.8, sheenColor: new THREE.Color("#fff6e6") });
    default:
      // Translucency by blending over a depth pre-pass (soft-body-mesh.tsx): only the front surface is blended, so
      // a body's own folds no longer show through it as lines and dark blotches in the wrong order. Not
      // transmission, which re-renders the scene per eye, too costly on a headset.
      return new THREE.MeshPhysicalMaterial({
        color, roughness: 0.08, metalness: 0, clearcoat: 1, clearcoatRoughness: 0.04, ior: 1.35, specularIntensity: 1,
        transparent: true, opacity: 0.86, depthWrite: false,
      });
  }
}
