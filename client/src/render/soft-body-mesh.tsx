// One soft body on screen: the render mesh skinned on the GPU from the q the room client shows this frame.

import { useFrame } from "@react-three/fiber";
import { useXR } from "@react-three/xr";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import { UPLOAD_LIMITS, type ClientBody } from "../../../shared/net";
import type { LoadedBake } from "../bake/bake-loader";
import { HELD_GLOW, HOVER_GLOW, highlight } from "../interaction/highlight";
import { createBodyMaterial, useBaseColourTexture, type JellyLook } from "./body-look";
import { chooseRenderQuality } from "./render-quality";
import { useCompiledOffLoop } from "./compile-off-loop";
import { applySoftSkinning, createSkinnedGeometry, createSkinningUniforms, refreshSkinnedGeometry, writeHandleRows } from "./soft-skinning";

/** A body is drawn once its shaders are compiled. */
const showWhenCompiled = (mesh: THREE.Mesh, compiled: boolean) => { mesh.visible = compiled; };

/** Seconds a leaving body takes to shrink away: a little less than the server waits before it removes it. */
const LEAVE_SECONDS = 0.8 * UPLOAD_LIMITS.leavingSeconds;

/**
 * `texture`: the path of the body's base-colour texture ("" for none); drawn once it has loaded. `colour`: its own
 * colour in place of its material's ("" for none). `leaving`: the
 * body is about to leave the room: it shrinks away about its centre.
 */
export function SoftBodyMesh({ body, bake, size, texture, colour = "", leaving = false }: { body: ClientBody; bake: LoadedBake; size: number; texture: string; colour?: string; leaving?: boolean }) {
  const handles = body.baked.learnedHandles + 1;
  const uniforms = useMemo(() => createSkinningUniforms(handles, size / 2), [handles, size]);
  // One geometry per bake; the network's refinement of its weights, arriving later, is written into it.
  const geometry = useMemo(() => createSkinnedGeometry(bake.influences), [bake.bytes]);
  useEffect(() => refreshSkinnedGeometry(geometry, bake.influences), [geometry, bake.influences]);
  const textured = Boolean(texture && bake.influences.uvs), coloured = Boolean(bake.influences.colors);
  // Refraction on screens with a GPU to spare; in a headset session jelly turns solid (body-look.ts says why).
  const inSession = useXR((xr) => xr.session != null);
  const jelly: JellyLook = chooseRenderQuality(location.search).refraction && !inSession ? "refraction" : "solid";
  const material = useMemo(() => applySoftSkinning(createBodyMaterial(body.material, textured, coloured, jelly, colour), uniforms, handles), [body.material, textured, coloured, jelly, colour, uniforms, handles]);
  useBaseColourTexture(material, textured ? texture : "");
  // After the texture's own clean-up (which puts the placeholder back): the placeholder goes with the material.
  useEffect(() => () => material.map?.dispose(), [material]);
  const depthMaterial = useMemo(() => applySoftSkinning(new THREE.MeshDepthMaterial({ depthPacking: THREE.RGBADepthPacking }), uniforms, handles), [uniforms, handles]);
  useEffect(() => () => geometry.dispose(), [geometry]);
  useEffect(() => () => material.dispose(), [material]);
  useEffect(() => () => depthMaterial.dispose(), [depthMaterial]);

  const mesh = useRef<THREE.Mesh>(null);
  useCompiledOffLoop(mesh, geometry, material, showWhenCompiled);

  // Hover and grab feedback: the body glows in its own colour, brighter while held.
  useEffect(() => void material.emissive.copy(material.color), [material]);
  // Before the scene update and the draw: the only per-frame CPU work for this body, O(K).
  const leftFor = useRef(0);
  useFrame((_, dt) => {
    const m = mesh.current;
    if (leaving && m) {
      // Scaled by s about the centre c: position c + s (origin - c), scale s.
      leftFor.current += dt;
      const s = Math.max(0.001, 1 - leftFor.current / LEAVE_SECONDS), c = body.entity.proxies.bound, o = body.body.origin;
      m.position.set(c[0] + s * (o[0] - c[0]), c[1] + s * (o[1] - c[1]), c[2] + s * (o[2] - c[2]));
      m.scale.setScalar(s);
    }
    writeHandleRows(body.displayQ, uniforms.pliantRows.value);
    material.emissiveIntensity = highlight.held.has(body.id) ? HELD_GLOW : highlight.hovered === body.id ? HOVER_GLOW : 0;
  }, -1);

  const origin = body.body.origin;
  return (
    <mesh
      ref={mesh}
      name={`soft-body-${body.id}`}
      geometry={geometry}
      material={material}
      customDepthMaterial={depthMaterial}
      position={[origin[0], origin[1], origin[2]]}
      castShadow
      receiveShadow
      // The shader moves vertices far from the rest bounds: culling by them would drop a stretched body.
      frustumCulled={false}
    />
  );
}
