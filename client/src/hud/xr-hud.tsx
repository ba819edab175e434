// The HUD inside the headset: a small panel low in the field of view with connection, round trip, frame rate
// and simulation time, redrawn twice a second.

import { useFrame } from "@react-three/fiber";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import type { ConnectionState } from "../room/room-connection";
import { frameStats } from "./frame-stats";

export function XRHud({ connection }: { connection: ConnectionState }) {
  const mesh = useRef<THREE.Mesh>(null);
  const { canvas, texture } = useMemo(() => {
    const canvas = document.createElement("canvas");
    canvas.width = 512;
    canvas.height = 96;
    const texture = new THREE.CanvasTexture(canvas);
    texture.colorSpace = THREE.SRGBColorSpace;
    return { canvas, texture };
  }, []);
  useEffect(() => () => texture.dispose(), [texture]);
  const lastDraw = useRef(0);
  const offset = useRef(new THREE.Vector3()).current;

  useFrame(({ gl }) => {
    const m = mesh.current;
    if (!m) return;
    m.visible = gl.xr.isPresenting;
    if (!m.visible) return;
    // Follow the head: 0.8 m ahead, low and to the left, facing the eyes.
    const head = gl.xr.getCamera();
    offset.set(-0.12, -0.32, -0.8).applyQuaternion(head.quaternion);
    m.position.copy(head.position).add(offset);
    m.quaternion.copy(head.quaternion);
    const now = performance.now();
    if (now - lastDraw.current < 500) return;
    lastDraw.current = now;
    const g = canvas.getContext("2d")!;
    g.clearRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = "rgba(17, 20, 26, 0.7)";
    g.beginPath();
    g.roundRect(0, 0, canvas.width, canvas.height, 24);
    g.fill();
    g.fillStyle = "#e8ecf1";
    g.font = "600 28px system-ui, sans-serif";
    g.fillText(`${connection.status} · ${(connection.client?.rtt ?? 0).toFixed(0)} ms RTT`, 20, 40);
    g.fillText(`${frameStats.fps().toFixed(0)} fps · sim ${frameStats.mean(frameStats.simulation).toFixed(2)} ms`, 20, 78);
    texture.needsUpdate = true;
  });

  return (
    <mesh ref={mesh} visible={false} renderOrder={10}>
      <planeGeometry args={[0.32, 0.06]} />
      <meshBasicMaterial map={texture} transparent depthTest={false} />
    </mesh>
  );
}
