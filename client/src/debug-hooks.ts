// window.pliant: a small handle on the running app for the browser tests, the frame benchmark and curious
// developers (console). Read-only views plus the emulated headset when ?emulate is set.

import type * as THREE from "three";
import { frameStats } from "./hud/frame-stats";
import { tableAlignment } from "./xr/table-alignment";
import { xrInputs } from "./interaction/xr-inputs";
import { wristMenu } from "./hud/wrist-menu";
import { aimSpectatorCamera, pinAutoCamera } from "./view/spectator-camera";
import { displacementRms } from "../../shared/sim/subspace";
import type { BakeLoader } from "./bake/bake-loader";
import type { RoomConnection } from "./room/room-connection";
import type { AppXRStore, EmulatedDevice } from "./xr/xr-store";
import type { RenderQuality } from "./render/render-quality";
import type { FrameControl } from "./room/frame-driver";

/** The layer only shadow cameras see (setObjectShadowOnly). */
const SHADOW_ONLY_LAYER = 1;

let scene: THREE.Scene | null = null;
/** watchDent's largest push so far, and its generation (a new watch or a stop ends the last). */
let dentSeen = 0, dentWatch = 0;
let camera: THREE.Camera | null = null;
let renderer: THREE.WebGLRenderer | null = null;

export function setDebugView(nextScene: THREE.Scene, nextCamera: THREE.Camera, nextRenderer: THREE.WebGLRenderer): void {
  scene = nextScene;
  camera = nextCamera;
  renderer = nextRenderer;
}

export function installDebugHooks({ connection, loader, store, emulated, quality, frames }: { connection: RoomConnection; loader: BakeLoader; store: AppXRStore; emulated?: EmulatedDevice; quality: RenderQuality; frames: FrameControl }): void {
  const point = new Float64Array(3);
  const hooks = {
    connection,
    /** The page's frames: emulateSlowDevice({ busyMs, everyMs }) makes it draw as a slow device would. */
    frames,
    store,
    device: emulated?.device,
    inputs: xrInputs,
    wristMenu,
    loader,
    frameStats,
    /** Shadows and antialiasing, and the GPU the choice was made for. */
    quality,
    /** Loaded bodies: worker time (fetch or IndexedDB, decode, weights, GPU tables), whether from the cache or with weights computed here, render vertices. */
    get bakes() {
      return [...loader.progress.keys()].map((hash) => {
        const bake = loader.get(hash);
        return { hash, ms: bake?.ms ?? NaN, cached: bake?.cached ?? false, weightsComputed: bake?.weightsComputed ?? false, bytes: bake?.bytes.length ?? 0, vertices: bake?.influences.vertexCount ?? 0, inference: bake?.inference ?? null };
      });
    },
    /**
     * Runs a character's secondary-motion network (models/NAME.onnx) on these inputs (steps x its feature count) in a
     * fresh session opened as the room's characters' are: what it ran on and its answers (steps x n).
     */
    async runSecondaryNetwork(name: string, features: number[], steps: number): Promise<{ provider: string; declined: string[]; q: number[] }> {
      const network = await connection.openSecondaryNetwork(name);
      try {
        return { provider: network.provider, declined: network.declined, q: Array.from(await network.run(Float32Array.from(features), steps)) };
      } finally {
        await network.release();
      }
    },
    /** The page's latest decode of the skinning network: { provider: "webgpu" | "wasm", ms, queries }, null before any. */
    get inference() {
      return loader.inference;
    },
    get client() {
      return connection.snapshot.client;
    },
    /** True once the room's bodies are on screen. */
    get ready(): boolean {
      const client = connection.snapshot.client;
      if (!client || !scene) return false;
      let meshes = 0;
      scene.traverse((o) => { if (o.name.startsWith("soft-body-") && o.visible) meshes++; });
      return meshes === client.bodies.size && meshes > 0;
    },
    /** World position of surface sample i of a body, as shown now. */
    surfacePoint(bodyId: string, i: number): [number, number, number] {
      const body = connection.snapshot.client?.bodies.get(bodyId);
      if (!body) throw new Error(`unknown body ${bodyId}`);
      const s = body.body.subspace;
      body.body.positionAt(body.displayQ, s.surfaceRows, s.surfaceRest, i, point, 0);
      return [point[0], point[1], point[2]];
    },
    /**
     * A character as shown now: whether it is on screen, its frame (where it stands, which way it faces), the RMS of
     * its soft part over its surface samples (m), and its surface samples in the world (3 each), with its soft part
     * and without (where the rig alone puts them); where the state says its flesh comes from, how much of what is
     * shown is this page's own run of its network or its springs (0..1), how many steps the network's run has answered,
     * and what it runs on (the execution provider, its runs and their milliseconds; null before the network is open);
     * and the page's run of its springs (steps and their milliseconds; null before the state handed them the flesh).
     */
    character(id: string): { drawn: boolean; frame: [number, number, number]; yaw: number; softRms: number; surface: number[]; rigSurface: number[]; flesh: string; learnedWeight: number; learnedSteps: number; learnedRuntime: { provider: string; runs: number; ms: number } | null; springs: { steps: number; ms: number } | null } | null {
      const character = connection.snapshot.client?.characters.all.get(id);
      if (!character) return null;
      let mesh: THREE.Object3D | undefined;
      scene?.traverse((o) => { if (o.name === `character-${id}`) mesh = o; });
      const samples = character.surfaceWorld.length / 3, network = character.learnedFlesh?.network;
      const f = character.motion.framePosition, posed = character.motion.posedSurface, rigSurface: number[] = [];
      for (let i = 0; i < samples; i++) {
        character.motion.toWorld(posed[3 * i], posed[3 * i + 1], posed[3 * i + 2], point);
        rigSurface.push(point[0], point[1], point[2]);
      }
      return {
        drawn: Boolean(mesh?.visible), frame: [f[0], f[1], f[2]], yaw: character.motion.frameYaw, softRms: displacementRms(character.surfaceRows, character.displayQ),
        surface: Array.from(character.surfaceWorld), rigSurface, flesh: character.flesh, learnedWeight: character.learnedWeight, learnedSteps: character.learnedFlesh?.answeredSteps ?? 0,
        learnedRuntime: network ? { provider: network.provider, runs: network.runs, ms: network.ms } : null,
        springs: character.ownSprings ? { steps: character.ownSprings.steps, ms: character.ownSprings.ms } : null,
      };
    },
    /**
     * Starts following, every animation frame, how far a character's shown skin within 4 cm of a point is pushed away
     * from it beyond where its rig alone puts it (m): the largest so far is `dentSeen`. Reading the page's state from a
     * test takes longer than a passing dent lasts on a loaded machine; the page watches it itself.
     */
    watchDent(id: string, at: [number, number, number]): void {
      dentSeen = 0;
      const generation = ++dentWatch, rig = new Float64Array(3);
      const look = () => {
        if (generation !== dentWatch) return;
        const character = connection.snapshot.client?.characters.all.get(id);
        if (character?.shown) {
          const surface = character.surfaceWorld, posed = character.motion.posedSurface;
          for (let i = 0; i < surface.length; i += 3) {
            character.motion.toWorld(posed[i], posed[i + 1], posed[i + 2], rig);
            const rx = rig[0] - at[0], ry = rig[1] - at[1], rz = rig[2] - at[2], d = Math.hypot(rx, ry, rz);
            if (d > 0.04 || d === 0) continue;
            dentSeen = Math.max(dentSeen, ((surface[i] - rig[0]) * rx + (surface[i + 1] - rig[1]) * ry + (surface[i + 2] - rig[2]) * rz) / d);
          }
        }
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    },
    get dentSeen(): number {
      return dentSeen;
    },
    stopWatchingDent(): void {
      dentWatch++;
    },
    /** Puts the desktop camera at `from`, looking at `to` (world metres). */
    aimCamera: aimSpectatorCamera,
    /** Holds the auto camera at an angle of its loop round the bodies (radians), or lets it circle on (null). */
    pinAutoCamera,
    surfaceCount(bodyId: string): number {
      return connection.snapshot.client?.bodies.get(bodyId)?.body.subspace.surfaceCount ?? 0;
    },
    /** Where a world point appears on the page (CSS pixels from the canvas' top left). */
    project(x: number, y: number, z: number): [number, number] {
      if (!camera) throw new Error("no camera yet");
      const v = camera.position.clone().set(x, y, z).project(camera);
      const canvas = document.querySelector("canvas")!.getBoundingClientRect();
      return [canvas.left + ((v.x + 1) / 2) * canvas.width, canvas.top + ((1 - v.y) / 2) * canvas.height];
    },
    /** Other people's grab markers as shown now: holder, colour, world position. */
    get grabMarkers(): { owner: string; color: string; position: [number, number, number] }[] {
      const found: { owner: string; color: string; position: [number, number, number] }[] = [];
      scene?.traverse((o) => {
        if (!o.name.startsWith("grab-marker-") || !o.visible) return;
        found.push({ owner: o.userData.owner, color: o.userData.color, position: [o.position.x, o.position.y, o.position.z] });
      });
      return found;
    },
    /**
     * Other people as drawn: each headset player's avatar (its name tag's text, whether its head shows, the head's
     * centre, the face's parts and each shown hand's parts) and each desktop player's pointer marker (its text).
     */
    get people(): { avatars: { name: string; tag: string; head: [number, number, number] | null; face: string[]; hands: Record<string, string[]> }[]; pointers: { text: string; position: [number, number, number] }[] } {
      const avatars: { name: string; tag: string; head: [number, number, number] | null; face: string[]; hands: Record<string, string[]> }[] = [];
      const pointers: { text: string; position: [number, number, number] }[] = [];
      const partsOf = (o: THREE.Object3D | undefined) => ((o?.userData.parts as readonly (string | { name: string })[] | undefined) ?? []).map((p) => (typeof p === "string" ? p : p.name));
      const shown = (o: THREE.Object3D) => { for (let a: THREE.Object3D | null = o; a; a = a.parent) if (!a.visible) return false; return true; };
      scene?.getObjectByName("avatars")?.children.forEach((avatar) => {
        const head = avatar.getObjectByName("avatar-head"), tag = avatar.getObjectByName("avatar-name-tag");
        const hands: Record<string, string[]> = {};
        for (const side of ["left", "right"]) {
          const hand = avatar.getObjectByName(`avatar-hand-${side}`);
          if (hand && shown(hand)) hands[side] = partsOf(hand.children.find((c) => (c as THREE.Mesh).isMesh));
        }
        const face = head?.getObjectByName("avatar-face");
        avatars.push({
          name: avatar.name, tag: tag && shown(tag) ? String(tag.userData.text) : "", head: head && shown(head) ? head.getWorldPosition(head.position.clone()).toArray() : null,
          face: face && shown(face) ? partsOf(face) : [], hands,
        });
      });
      scene?.traverse((o) => {
        if (o.name === "pointer-marker" && shown(o)) {
          const p = o.getWorldPosition(o.position.clone());
          pointers.push({ text: String(o.userData.text), position: [p.x, p.y, p.z] });
        }
      });
      return { avatars, pointers };
    },
    /** What the last rendered frame cost the GPU (shadow passes included): the headset budget's figures. */
    get renderInfo(): { calls: number; triangles: number; programs: number; textures: number; geometries: number } | null {
      if (!renderer) return null;
      const info = renderer.info;
      return { calls: info.render.calls, triangles: info.render.triangles, programs: info.programs?.length ?? 0, textures: info.memory.textures, geometries: info.memory.geometries };
    },
    /**
     * How a body is drawn: its texture's size once loaded (0 x 0 without), its render vertices with texture
     * coordinates and with colours, whether its material uses them, and their mean; whether it refracts (jelly); its material's colour (sRGB hex).
     */
    bodyLook(bodyId: string): { textureWidth: number; textureHeight: number; uvVertices: number; colourVertices: number; vertexColours: boolean; meanColour: [number, number, number] | null; refraction: boolean; colour: string } | null {
      const mesh = scene?.getObjectByName(`soft-body-${bodyId}`) as THREE.Mesh | undefined;
      if (!mesh) return null;
      const material = mesh.material as THREE.MeshPhysicalMaterial;
      const image = material.map?.image as { width?: number; height?: number } | undefined;
      const colours = mesh.geometry.getAttribute("color");
      let meanColour: [number, number, number] | null = null;
      if (colours) {
        meanColour = [0, 0, 0];
        for (let i = 0; i < colours.count; i++) for (let k = 0; k < 3; k++) meanColour[k] += colours.getComponent(i, k) / colours.count;
      }
      return { textureWidth: image?.width ?? 0, textureHeight: image?.height ?? 0, uvVertices: mesh.geometry.getAttribute("uv")?.count ?? 0, colourVertices: colours?.count ?? 0, vertexColours: material.vertexColors, meanColour, colour: `#${material.color.getHexString()}`, refraction: (material.transmission ?? 0) > 0 };
    },
    /** Whether the scene has a visible object of this name (the room's statics: "table", "wall-north"...). */
    objectShown(name: string): boolean {
      let shown = false;
      scene?.traverse((o) => { if (o.name === name && o.visible) shown = true; });
      return shown;
    },
    /** This page's mixed-reality alignment (xr/table-alignment.tsx). */
    alignment: tableAlignment,
    /** Upload placeholders on screen (uploads being baked), by body id. */
    get placeholders(): string[] {
      const found: string[] = [];
      scene?.traverse((o) => { if (o.name.startsWith("upload-placeholder-")) found.push(o.name.slice("upload-placeholder-".length)); });
      return found;
    },
    /** Id of the body called `name` in the room (added bodies are named after their file), or null. */
    bodyNamed(name: string): string | null {
      const bodies = connection.snapshot.client?.room.state?.bodies;
      for (const [id, body] of bodies ?? []) if (body.name === name) return id;
      return null;
    },
    /** The id of the character the room state calls `name` (an uploaded one: its file's name), or null. */
    characterNamed(name: string): string | null {
      const characters = connection.snapshot.client?.room.state?.characters;
      for (const [id, character] of characters ?? []) if (character.name === name) return id;
      return null;
    },
    /** Shows or hides every soft body (pixel checks compare the two). */
    setBodiesVisible(visible: boolean): void {
      scene?.traverse((o) => { if (o.name.startsWith("soft-body-")) o.visible = visible; });
    },
    /** Shows or hides the scene's objects of this name ("table", "soft-body-spot"...): what is drawn behind what. */
    setObjectVisible(name: string, visible: boolean): void {
      scene?.traverse((o) => { if (o.name === name) o.visible = visible; });
    },
    /**
     * Takes the objects of this name out of the cameras' view but leaves their shadows (layer 1, which only the
     * shadow cameras see): what an object adds to a view through other bodies, without the shadow it casts on them.
     */
    setObjectShadowOnly(name: string, shadowOnly: boolean): void {
      scene?.traverse((o) => {
        if ((o as THREE.DirectionalLight).isDirectionalLight) (o as THREE.DirectionalLight).shadow.camera.layers.enable(SHADOW_ONLY_LAYER);
        if (o.name === name) o.traverse((part) => part.layers.set(shadowOnly ? SHADOW_ONLY_LAYER : 0));
      });
    },
  };
  (window as unknown as { pliant: typeof hooks }).pliant = hooks;
}
