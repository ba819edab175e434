// A room's character on screen: its render mesh skinned on the GPU in the character's frame (the rig's pose and the
// soft part: soft-skinning.ts; shared/rig/character-skin.ts is the same on the CPU), the frame its object transform
// (a turn about the vertical and a position), wearing its texture. Per frame the CPU writes the joints' matrices
// and the handles' rows, nothing per vertex.

import { useFrame } from "@react-three/fiber";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import type { ClientCharacter } from "../../../shared/net";
import { skinWeightsAt } from "../../../shared/rig";
import type { LoadedBake } from "../bake/bake-loader";
import { createBodyMaterial, useBaseColourTexture } from "./body-look";
import { useCompiledOffLoop } from "./compile-off-loop";
import { applySoftSkinning, createCharacterSkinningUniforms, createSkinnedGeometry, writeHandleRows, writeJointRows } from "./soft-skinning";

/** Its look: matte and soft, as fur is (the texture gives the colours). */
const LOOK = "dough";

export function CharacterMesh({ character, bake, texture }: { character: ClientCharacter; bake: LoadedBake; texture: string }) {
  const table = bake.influences;
  const handles = character.displayQ.length / 12, joints = character.motion.jointMatrices.length / 16;
  const uniforms = useMemo(() => {
    const skin = skinWeightsAt(character.baked, table.positions);
    return createCharacterSkinningUniforms(handles, joints, character.size / 2, skin.joints, skin.weights);
  }, [character, table, handles, joints]);
  useEffect(() => () => { uniforms.pliantJointSkin.value.dispose(); uniforms.pliantJointRows.value.dispose(); }, [uniforms]);
  const geometry = useMemo(() => createSkinnedGeometry(table), [table]);
  const textured = Boolean(texture && table.uvs), coloured = Boolean(table.colors);
  const material = useMemo(() => applySoftSkinning(createBodyMaterial(LOOK, textured, coloured), uniforms, handles, joints), [textured, coloured, uniforms, handles, joints]);
  const depthMaterial = useMemo(() => applySoftSkinning(new THREE.MeshDepthMaterial({ depthPacking: THREE.RGBADepthPacking }), uniforms, handles, joints), [uniforms, handles, joints]);
  useBaseColourTexture(material, textured ? texture : "");
  useEffect(() => () => material.map?.dispose(), [material]);
  useEffect(() => () => geometry.dispose(), [geometry]);
  useEffect(() => () => material.dispose(), [material]);
  useEffect(() => () => depthMaterial.dispose(), [depthMaterial]);

  // Drawn once its shaders are compiled (and while the room shows it).
  const mesh = useRef<THREE.Mesh>(null);
  const compiled = useRef(false);
  useCompiledOffLoop(mesh, geometry, material, (_, ready) => { compiled.current = ready; });

  useFrame(() => {
    const m = mesh.current;
    if (!m) return;
    m.visible = character.shown && compiled.current;
    if (!m.visible) return;
    character.posed();
    const motion = character.motion, frame = motion.framePosition;
    m.position.set(frame[0], frame[1], frame[2]);
    m.rotation.set(0, motion.frameYaw, 0);
    writeJointRows(motion.jointMatrices, uniforms.pliantJointRows.value);
    writeHandleRows(character.displayQ, uniforms.pliantRows.value);
  }, -1);

  return (
    <mesh
      ref={mesh}
      name={`character-${character.id}`}
      geometry={geometry}
      material={material}
      customDepthMaterial={depthMaterial}
      castShadow
      receiveShadow
      visible={false}
      // The shader poses the vertices: the bind pose's bounds say little about where they are.
      frustumCulled={false}
    />
  );
}
