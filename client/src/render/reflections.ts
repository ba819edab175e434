// Reflections for the glossy bodies: three's procedural room, prefiltered once per renderer (nothing downloaded).
// Only the soft bodies use it: image-based light on every surface of the room cost software-rendered pages half
// their frame rate, and the floor and walls gain little from it.

import { useThree } from "@react-three/fiber";
import * as THREE from "three";
import { RoomEnvironment } from "three/examples/jsm/environments/RoomEnvironment.js";

const made = new WeakMap<THREE.WebGLRenderer, THREE.Texture>();

/** The prefiltered reflection map of this canvas's renderer (made on first use, kept for the page's life). */
export function useReflections(): THREE.Texture {
  const gl = useThree((s) => s.gl);
  let texture = made.get(gl);
  if (!texture) {
    const pmrem = new THREE.PMREMGenerator(gl);
    texture = pmrem.fromScene(new RoomEnvironment(), 0.04).texture;
    pmrem.dispose();
    made.set(gl, texture);
  }
  return texture;
}

/** How strongly the bodies reflect it. */
export const REFLECTION_INTENSITY = 0.35;
