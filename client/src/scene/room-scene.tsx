// The room around the soft bodies: lights, floor, table and walls (from the shared layout) and the rigid props,
// placed from the latest snapshots. Walls and floor hide in passthrough AR.

import { useFrame } from "@react-three/fiber";
import { useMemo, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import { PLAYGROUND, type PropSpec } from "../../../shared/scene";

const STATIC_COLORS: Record<string, string> = { floor: "#3a404a", table: "#b08158" };

export function RoomStatics({ passthrough }: { passthrough: boolean }) {
  return (
    <group name="statics">
      {PLAYGROUND.statics.map((box) => {
        const isWall = box.name.startsWith("wall");
        const isFloor = box.name === "floor";
        if (box.hidden || (passthrough && (isWall || isFloor))) return null;
        const color = STATIC_COLORS[box.name] ?? (isWall ? "#2b3340" : "#7a5a3c");
        return (
          <mesh key={box.name} name={box.name} position={box.center} receiveShadow castShadow={!isWall && !isFloor}>
            <boxGeometry args={[2 * box.half[0], 2 * box.half[1], 2 * box.half[2]]} />
            <meshStandardMaterial color={color} roughness={isFloor ? 0.95 : 0.7} />
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
        shadow-camera-left={-1.6}
        shadow-camera-right={1.6}
        shadow-camera-top={1.6}
        shadow-camera-bottom={-1.6}
        shadow-camera-near={0.5}
        shadow-camera-far={8}
        shadow-bias={-0.0005}
        shadow-normalBias={0.01}
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
