// A room's character on screen: its render mesh posed on the CPU each frame in the character's frame (rig pose and
// soft part, shared/rig/character-skin.ts; a fox is a couple of thousand vertices), the frame its object transform
// (a turn about the vertical and a position), wearing its texture.

import { useFrame } from "@react-three/fiber";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import type { ClientCharacter } from "../../../shared/net";
import { CharacterSkin } from "../../../shared/rig";
import type { LoadedBake } from "../bake/bake-loader";
import { createBodyMaterial, useBaseColourTexture } from "./body-look";

/** Its look: matte and soft, as fur is (the texture gives the colours). */
const LOOK = "dough";

export function CharacterMesh({ character, bake, texture }: { character: ClientCharacter; bake: LoadedBake; texture: string }) {
  const table = bake.influences;
  const skin = useMemo(() => new CharacterSkin(character.baked, character.size, table.positions, table.handles, table.weights, table.influences), [character, table]);
  const geometry = useMemo(() => {
    const g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.BufferAttribute(new Float32Array(table.positions.length), 3).setUsage(THREE.DynamicDrawUsage));
    g.setAttribute("normal", new THREE.BufferAttribute(new Float32Array(table.normals.length), 3).setUsage(THREE.DynamicDrawUsage));
    if (table.uvs) g.setAttribute("uv", new THREE.BufferAttribute(table.uvs, 2));
    if (table.colors) g.setAttribute("color", new THREE.BufferAttribute(table.colors, 3));
    g.setIndex(new THREE.BufferAttribute(table.triangles, 1));
    return g;
  }, [table]);
  const textured = Boolean(texture && table.uvs), coloured = Boolean(table.colors);
  const material = useMemo(() => createBodyMaterial(LOOK, textured, coloured), [textured, coloured]);
  useBaseColourTexture(material, textured ? texture : "");
  useEffect(() => () => material.map?.dispose(), [material]);
  useEffect(() => () => geometry.dispose(), [geometry]);
  useEffect(() => () => material.dispose(), [material]);

  const mesh = useRef<THREE.Mesh>(null);
  useFrame(() => {
    const m = mesh.current;
    if (!m) return;
    m.visible = character.shown;
    if (!character.shown) return;
    const position = geometry.getAttribute("position") as THREE.BufferAttribute;
    character.posed();
    const motion = character.motion, frame = motion.framePosition;
    m.position.set(frame[0], frame[1], frame[2]);
    m.rotation.set(0, motion.frameYaw, 0);
    skin.write(motion, character.displayQ, position.array as Float32Array);
    position.needsUpdate = true;
    geometry.computeVertexNormals();
    geometry.computeBoundingSphere();
  }, -1);

  return <mesh ref={mesh} name={`character-${character.id}`} geometry={geometry} material={material} castShadow receiveShadow visible={false} />;
}
