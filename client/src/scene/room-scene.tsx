// The room around the soft bodies: lights, a floor, table and walls from the shared layout with a stand's backdrop
// behind the table, and the rigid props, placed from the latest snapshots. Walls and floor hide in passthrough AR,
// and the table too once it has been put on a real one (xr/table-alignment.tsx). The room is lit from every side
// (a key light, a fill opposite it, a sky-and-floor hemisphere and, where the GPU allows, a studio environment made
// in code), so that the kiosk's camera, which circles the table, never faces a dark wall.

import { useFrame, useThree } from "@react-three/fiber";
import { useEffect, useLayoutEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import { RoomEnvironment } from "three/examples/jsm/environments/RoomEnvironment.js";
import { mergeGeometries } from "three/examples/jsm/utils/BufferGeometryUtils.js";
import type { PliantRoomClient } from "../../../shared/net";
import { PLAYGROUND, type PropSpec } from "../../../shared/scene";
import { chooseRenderQuality } from "../render/render-quality";

const STATIC_COLORS: Record<string, string> = { table: "#b08158" };
/** How strongly the studio environment lights and shows in every surface (on top of the lights). */
const ENVIRONMENT_INTENSITY = 0.25;
/** The hemisphere light's intensity with the studio environment and without it (it then stands in for it). */
const SKY_LIGHT = { withStudio: 0.9, alone: 1.25 };
/** Width of a wainscot panel and side of a carpet square, m. */
const WALL_PANEL = 1;
const FLOOR_TILE = 0.5;
const boxNamed = (name: string) => PLAYGROUND.statics.find((b) => b.name === name);

export function RoomStatics({ passthrough, onRealTable = false }: { passthrough: boolean; onRealTable?: boolean }) {
  const textures = useMemo(() => ({
    floor: floorTexture(2 * (boxNamed("floor")?.half[0] ?? 4)), wall: wallTexture(2 * (boxNamed("wall-east")?.half[2] ?? 5)), backdrop: backdropTexture(),
  }), []);
  useEffect(() => () => { textures.floor.dispose(); textures.wall.dispose(); textures.backdrop.dispose(); }, [textures]);
  const meshes = useMemo(() => staticMeshes(), []);
  useEffect(() => () => meshes.forEach((m) => m.geometry.dispose()), [meshes]);
  return (
    <group name="statics">
      {meshes.map(({ name, geometry }) => {
        const isWall = name.startsWith("wall");
        const isFloor = name === "floor";
        if (passthrough && (isWall || isFloor || (onRealTable && name.startsWith("table")))) return null;
        const color = STATIC_COLORS[name] ?? "#7a5a3c";
        const texture = isFloor ? textures.floor : name === "wall-north" ? textures.backdrop : isWall ? textures.wall : null;
        return (
          <mesh key={name} name={name} geometry={geometry} receiveShadow castShadow={!isWall && !isFloor}>
            <meshStandardMaterial color={texture ? "#ffffff" : color} map={texture} roughness={isFloor ? 0.85 : isWall ? 0.9 : 0.7} />
          </mesh>
        );
      })}
    </group>
  );
}

/**
 * The layout's shown boxes as meshes in room coordinates, those that look alike merged into one (the table's legs,
 * the plain walls): every mesh is a draw call in each pass (shadow, refraction, each eye).
 */
function staticMeshes(): { name: string; geometry: THREE.BufferGeometry }[] {
  const groups = new Map<string, THREE.BufferGeometry[]>();
  for (const box of PLAYGROUND.statics) {
    if (box.hidden) continue;
    const name = box.name.startsWith("table-leg") ? "table-legs" : box.name.startsWith("wall") && box.name !== "wall-north" ? "walls" : box.name;
    const geometry = new THREE.BoxGeometry(2 * box.half[0], 2 * box.half[1], 2 * box.half[2]).translate(...box.center);
    groups.set(name, [...(groups.get(name) ?? []), geometry]);
  }
  return [...groups].map(([name, parts]) => {
    if (parts.length === 1) return { name, geometry: parts[0] };
    const geometry = mergeGeometries(parts);
    parts.forEach((part) => part.dispose());
    return { name, geometry };
  });
}

export function Lights() {
  const studio = chooseRenderQuality(location.search).environment;
  useStudioEnvironment(studio);
  return (
    <>
      {/* Sky above, the floor's warm bounce below: walls facing away from the key light still get both. */}
      <hemisphereLight args={["#e3ebff", "#7a6a5a", studio ? SKY_LIGHT.withStudio : SKY_LIGHT.alone]} />
      {/* A fill from the far corner, opposite the key: the south and east walls and the bodies' shadowed sides. */}
      <directionalLight position={[-1.8, 2.6, -2.4]} intensity={1.1} color="#fff1e0" />
      <directionalLight
        position={[1.5, 3.2, 1.2]}
        intensity={2.2}
        castShadow
        shadow-mapSize={[1024, 1024]}
        shadow-camera-left={-1.4}
        shadow-camera-right={1.4}
        shadow-camera-top={1.4}
        shadow-camera-bottom={-1.4}
        shadow-camera-near={0.5}
        shadow-camera-far={8}
        // Small biases: a larger normal bias lifted round bodies' shadows off the table into detached rings.
        shadow-bias={-0.0002}
        shadow-normalBias={0.002}
      />
    </>
  );
}

/**
 * A soft studio (three's RoomEnvironment, made in code: nothing is downloaded) prefiltered for image-based lighting:
 * every surface gets light from all round, and glossy bodies something to reflect.
 */
function useStudioEnvironment(enabled: boolean): void {
  const gl = useThree((s) => s.gl), scene = useThree((s) => s.scene);
  // Before the first frame: materials compile once, with the environment.
  useLayoutEffect(() => {
    if (!enabled) return;
    const generator = new THREE.PMREMGenerator(gl);
    const studio = new RoomEnvironment();
    const target = generator.fromScene(studio, 0.04);
    studio.dispose();
    generator.dispose();
    scene.environment = target.texture;
    scene.environmentIntensity = ENVIRONMENT_INTENSITY;
    return () => {
      scene.environment = null;
      target.dispose();
    };
  }, [gl, scene, enabled]);
}

/** Rigid balls and blocks, each at its latest server pose (the layout's start pose until it first moves). */
export function Props({ client }: { client: PliantRoomClient }) {
  const state = client.room.state;
  const props = useMemo(() => [...(state?.props?.values() ?? [])].map((p) => ({ ...p, spec: PLAYGROUND.props.find((s) => s.id === p.id) })), [state?.props]);
  return (
    <group name="props">
      {props.map((p) => <Prop key={p.id} client={client} index={p.index} shape={p.shape} size={p.size} color={p.color} spec={p.spec} />)}
    </group>
  );
}

function Prop({ client, index, shape, size, color, spec }: { client: PliantRoomClient; index: number; shape: string; size: number; color: string; spec?: PropSpec }) {
  const mesh = useRef<THREE.Mesh>(null);
  useFrame(() => {
    const m = mesh.current;
    if (!m) return;
    const pose = client.props.get(index);
    if (pose) {
      m.position.set(pose[0], pose[1], pose[2]);
      m.quaternion.set(pose[3], pose[4], pose[5], pose[6]);
    } else if (spec) m.position.set(...spec.position);
  }, -1);
  return (
    <mesh ref={mesh} castShadow receiveShadow name={`prop-${index}`}>
      {shape === "ball" ? <sphereGeometry args={[size, 32, 16]} /> : <boxGeometry args={[2 * size, 2 * size, 2 * size]} />}
      <meshStandardMaterial color={color} roughness={0.5} />
    </mesh>
  );
}

/** A canvas drawn by `draw`, as a repeating sRGB texture. */
function canvasTexture(width: number, height: number, draw: (g: CanvasRenderingContext2D) => void): THREE.CanvasTexture {
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  draw(canvas.getContext("2d")!);
  const texture = new THREE.CanvasTexture(canvas);
  texture.wrapS = texture.wrapT = THREE.RepeatWrapping;
  texture.colorSpace = THREE.SRGBColorSpace;
  texture.anisotropy = 4;
  return texture;
}

/** Pixels per metre up the wall textures: a wall's height is their 512 pixels. */
const WALL_PX = 512 / (2 * (boxNamed("wall-north")?.half[1] ?? 1.5));

/**
 * A wall from the floor up (as a stand's hall has): a dark skirting, wainscot panels to 1 m, a pale rail, then
 * painted plaster lightening upwards. `width` pixels make one panel.
 */
function paintWall(g: CanvasRenderingContext2D, width: number): void {
  const h = 512, y = (m: number) => h - m * WALL_PX;
  const plaster = g.createLinearGradient(0, 0, 0, y(1.05));
  plaster.addColorStop(0, "#8f9aab");
  plaster.addColorStop(1, "#768296");
  g.fillStyle = plaster;
  g.fillRect(0, 0, width, y(1.05));
  g.fillStyle = "#4f6277";
  g.fillRect(0, y(1), width, y(0.1) - y(1));
  // An inset panel, lit from above: a pale upper edge, a dark lower one.
  g.fillStyle = "#566a80";
  g.fillRect(0.1 * width, y(0.9), 0.8 * width, y(0.2) - y(0.9));
  g.fillStyle = "#6e8299";
  g.fillRect(0.1 * width, y(0.9), 0.8 * width, 3);
  g.fillStyle = "#3f4f61";
  g.fillRect(0.1 * width, y(0.2) - 3, 0.8 * width, 3);
  g.fillStyle = "#d5dbe3";
  g.fillRect(0, y(1.05), width, y(1) - y(1.05));
  // The skirting: darker than the panels, but never near-black where no studio light reaches it (software GL).
  g.fillStyle = "#46505c";
  g.fillRect(0, y(0.1), width, h - y(0.1));
}

/** The side and front walls, `length` m long. */
function wallTexture(length: number): THREE.CanvasTexture {
  const texture = canvasTexture(128, 512, (g) => paintWall(g, 128));
  texture.repeat.set(length / WALL_PANEL, 1);
  return texture;
}

/** The wall behind the table: the same wall with a stand's back panel bearing the product's name. */
function backdropTexture(): THREE.CanvasTexture {
  // 10 m across (as the others: the layout's walls are all 10 m long, panels included).
  const width = 2048, perMetre = width / 10;
  return canvasTexture(width, 512, (g) => {
    for (let m = 0; m < 10; m++) {
      g.save();
      g.translate(m * perMetre, 0);
      paintWall(g, perMetre);
      g.restore();
    }
    const left = 3 * perMetre, right = 7 * perMetre, top = 512 - 2.75 * WALL_PX, bottom = 512 - 1.15 * WALL_PX;
    const panel = g.createRadialGradient(width / 2, (top + bottom) / 2, 20, width / 2, (top + bottom) / 2, 0.6 * (right - left));
    panel.addColorStop(0, "#4d7aa8");
    panel.addColorStop(1, "#2d4a6b");
    g.fillStyle = panel;
    g.fillRect(left, top, right - left, bottom - top);
    g.fillStyle = "#4fc3f7";
    g.fillRect(left, bottom - 6, right - left, 6);
    g.fillStyle = "rgba(240, 244, 248, 0.95)";
    g.textAlign = "center";
    g.font = "700 96px system-ui, sans-serif";
    g.fillText("Pliant", width / 2, top + 0.47 * (bottom - top));
    g.fillStyle = "rgba(240, 244, 248, 0.75)";
    g.font = "400 40px system-ui, sans-serif";
    g.fillText("soft things, shared live", width / 2, top + 0.72 * (bottom - top));
  });
}

/** A floor `side` m square of carpet squares (a stand's), each laid across its neighbours. */
function floorTexture(side: number): THREE.CanvasTexture {
  const texture = canvasTexture(256, 256, (g) => {
    const tones = ["#4b525e", "#444b56"];
    for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) {
      g.fillStyle = tones[(i + j) % 2];
      g.fillRect(128 * i, 128 * j, 128, 128);
      // The pile's direction: fine stripes, across in one square, along in the next.
      g.fillStyle = "rgba(255, 255, 255, 0.035)";
      for (let k = 0; k < 128; k += 4) {
        if ((i + j) % 2) g.fillRect(128 * i + k, 128 * j, 2, 128);
        else g.fillRect(128 * i, 128 * j + k, 128, 2);
      }
    }
    g.strokeStyle = "#393f48";
    g.lineWidth = 2;
    for (let k = 0; k <= 256; k += 128) {
      g.beginPath(); g.moveTo(k, 0); g.lineTo(k, 256); g.stroke();
      g.beginPath(); g.moveTo(0, k); g.lineTo(256, k); g.stroke();
    }
  });
  // One texture holds 2 x 2 squares.
  texture.repeat.set(side / (2 * FLOOR_TILE), side / (2 * FLOOR_TILE));
  return texture;
}
