// How each material reads on screen: jelly glossy and translucent, rubber satin, dough matte and powdery.

import * as THREE from "three";
import { MATERIALS, isMaterialName } from "../../../shared/scene";

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
