// A mesh's shaders compiled off the render loop (parallel compile where the browser has it) before it is drawn: a
// body or character arriving must not stall the frames of everyone already in the room.

import { useThree } from "@react-three/fiber";
import { useEffect, type RefObject } from "react";
import type * as THREE from "three";

/**
 * Compiles `mesh`'s shaders for the scene whenever its geometry or material changes; `ready(mesh, false)` as it
 * starts, `ready(mesh, true)` once they are compiled (or failed to: three reports that on the first draw).
 */
export function useCompiledOffLoop(mesh: RefObject<THREE.Mesh | null>, geometry: THREE.BufferGeometry, material: THREE.Material, ready: (mesh: THREE.Mesh, compiled: boolean) => void): void {
  const { gl, camera, scene } = useThree();
  useEffect(() => {
    const m = mesh.current;
    if (!m) return;
    let live = true;
    ready(m, false);
    gl.compileAsync(m, camera, scene).catch(() => undefined).finally(() => {
      if (live) ready(m, true);
    });
    return () => { live = false; };
    // `ready` (often a new closure each render) says how to show the mesh; it is no reason to compile again.
  }, [gl, camera, scene, geometry, material, mesh]);
}
