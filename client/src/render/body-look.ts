// How each material reads on screen: jelly glossy and translucent, rubber satin, dough matte and powdery; a
// textured mesh shows its own colours, tinted by its material's.

import { useEffect } from "react";
import * as THREE from "three";
import { MATERIALS, isMaterialName } from "../../../shared/scene";

/** How much of the material's colour tints a textured body (0: the texture's own colours). */
const TEXTURE_TINT = 0.35;
const textures = new THREE.TextureLoader();

/** A white pixel a textured body wears until its texture has loaded: its shader is the textured one from the start. */
function placeholderTexture(): THREE.Texture {
  const texture = new THREE.DataTexture(new Uint8Array([255, 255, 255, 255]), 1, 1);
  texture.colorSpace = THREE.SRGBColorSpace;
  texture.needsUpdate = true;
  return texture;
}

/**
 * A textured body's material: `url` ("" for none) is drawn once loaded, tinted by the material's colour. The
 * material is textured from the start (a white pixel until then), so the texture's arrival swaps an image and
 * compiles no shader: a recompile stalls the page (over a second in software rendering). A texture that fails to
 * load leaves the white pixel.
 */
export function useBaseColourTexture(material: THREE.MeshPhysicalMaterial, url: string): void {
  useEffect(() => {
    if (!url) return;
    let live = true, loaded: THREE.Texture | undefined;
    const placeholder = material.map;
    textures.load(url, (texture) => {
      loaded = texture;
      if (!live) return void texture.dispose();
      texture.colorSpace = THREE.SRGBColorSpace;
      texture.anisotropy = 4;
      material.map = texture;
    }, undefined, () => undefined);
    return () => {
      live = false;
      loaded?.dispose();
      material.map = placeholder;
    };
  }, [material, url]);
}

/**
 * `textured`: the body will wear a texture (useBaseColourTexture); `coloured`: its mesh has vertex colours. Either
 * way its own colours show, tinted by the material's colour. `colour` ("#rrggbb", BodyState.color; "" for none):
 * the body's own colour in place of its material's (an upload's palette colour).
 */
export function createBodyMaterial(material: string, textured = false, coloured = false, colour = ""): THREE.MeshPhysicalMaterial {
  const look = materialLook(material);
  if (colour) look.color.set(colour);
  if (textured || coloured) look.color.setRGB(1, 1, 1).lerp(new THREE.Color(MATERIALS[isMaterialName(material) ? material : "jelly"].color), TEXTURE_TINT);
  if (textured) look.map = placeholderTexture();
  look.vertexColors = coloured;
  return look;
}

function materialLook(material: string): THREE.MeshPhysicalMaterial {
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
