// The room around the soft bodies: lights, a floor, table and walls from the shared layout with a stand's backdrop
// behind the table, and the rigid props, placed from the latest snapshots. Walls and floor hide in passthrough AR,
// and the table too once it has been put on a real one (xr/table-alignment.tsx).

import { useFrame } from "@react-three/fiber";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import { PLAYGROUND, type PropSpec } from "../../../shared/scene";

const STATIC_COLORS: Record<string, string> = { floor: "#3a404a", table: "#b08158" };

export function RoomStatics({ passthrough, onRealTable = false }: { passthrough: boolean; onRealTable?: boolean }) {
  const textures = useMemo(() => ({ floor: floorTexture(), backdrop: backdropTexture() }), []);
  useEffect(() => () => { textures.floor.dispose(); textures.backdrop.dispose(); }, [textures]);
  return (
    <group name="statics">
      {PLAYGROUND.statics.map((box) => {
        const isWall = box.name.startsWith("wall");
        const isFloor = box.name === "floor";
        if (box.hidden || (passthrough && (isWall || isFloor || (onRealTable && box.name.startsWith("table"))))) return null;
        const color = STATIC_COLORS[box.name] ?? (isWall ? "#2b3340" : "#7a5a3c");
        const texture = isFloor ? textures.floor : box.name === "wall-north" ? textures.backdrop : null;
        return (
          <mesh key={box.name} name={box.name} position={box.center} receiveShadow castShadow={!isWall && !isFloor}>
            <boxGeometry args={[2 * box.half[0], 2 * box.half[1], 2 * box.half[2]]} />
            <meshStandardMaterial color={texture ? "#ffffff" : color} map={texture} roughness={isFloor ? 0.95 : 0.7} />
          </mesh>
        );
      })}
    </group>
  );
}

export function Lights() {
  const light = useRef<THREE.DirectionalLight>(null);
  return (
    <>
      <hemisphereLight args={["#dfe8ff", "#30343c", 1.1]} />
      <directionalLight
        ref={light}
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

/** Rigid balls and blocks, each at its latest server pose (the layout's start pose until it first moves). */
export function Props({ client }: { client: PliantRoomClient }) {
  const state = client.room.state as { props?: Map<string, { id: string; index: number; shape: string; size: number; color: string }> };
  const props = useMemo(() => [...(state.props?.values() ?? [])].map((p) => ({ ...p, spec: PLAYGROUND.props.find((s) => s.id === p.id) })), [state.props]);
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

/** A floor of large soft tiles (a stand's carpet squares), drawn here. */
function floorTexture(): THREE.CanvasTexture {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 256;
  const g = canvas.getContext("2d")!;
  g.fillStyle = "#3a404a";
  g.fillRect(0, 0, 256, 256);
  g.fillStyle = "#343a43";
  g.fillRect(0, 0, 128, 128);
  g.fillRect(128, 128, 128, 128);
  g.strokeStyle = "#2c3139";
  g.lineWidth = 2;
  g.strokeRect(0, 0, 256, 256);
  const texture = new THREE.CanvasTexture(canvas);
  texture.wrapS = texture.wrapT = THREE.RepeatWrapping;
  texture.repeat.set(4, 4);
  texture.colorSpace = THREE.SRGBColorSpace;
  texture.anisotropy = 4;
  return texture;
}

/** The wall behind the table: a lit gradient with the product's name, as a stand's back panel. */
function backdropTexture(): THREE.CanvasTexture {
  const canvas = document.createElement("canvas");
  canvas.width = 1024;
  canvas.height = 512;
  const g = canvas.getContext("2d")!;
  const gradient = g.createRadialGradient(512, 300, 40, 512, 300, 620);
  gradient.addColorStop(0, "#3b5876");
  gradient.addColorStop(1, "#1c2330");
  g.fillStyle = gradient;
  g.fillRect(0, 0, 1024, 512);
  g.fillStyle = "rgba(232, 236, 241, 0.85)";
  g.font = "700 64px system-ui, sans-serif";
  g.textAlign = "center";
  g.fillText("Pliant", 512, 150);
  g.fillStyle = "rgba(232, 236, 241, 0.55)";
  g.font = "400 28px system-ui, sans-serif";
  g.fillText("soft things, shared live", 512, 196);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  return texture;
}
