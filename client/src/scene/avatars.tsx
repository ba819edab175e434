// Other players: a head with a visor, two hands and a name tag in their colour, at their latest poses.

import { useFrame } from "@react-three/fiber";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";

interface PlayerInfo { sessionId: string; name: string; color: string; role: string; slot: number }

export function Avatars({ client, players }: { client: PliantRoomClient; players: PlayerInfo[] }) {
  return (
    <group name="avatars">
      {players.filter((p) => p.role === "player" && p.sessionId !== client.sessionId).map((p) => <Avatar key={p.sessionId} client={client} player={p} />)}
    </group>
  );
}

function Avatar({ client, player }: { client: PliantRoomClient; player: PlayerInfo }) {
  const head = useRef<THREE.Group>(null);
  const left = useRef<THREE.Mesh>(null);
  const right = useRef<THREE.Mesh>(null);
  const tag = useMemo(() => nameTag(player.name, player.color), [player.name, player.color]);
  useEffect(() => () => { tag.material.map?.dispose(); tag.material.dispose(); }, [tag]);

  useFrame(() => {
    const avatar = client.avatars.get(player.slot);
    for (let k = 0; k < 3; k++) {
      const part = k === 0 ? head.current : k === 1 ? left.current : right.current;
      if (!part) continue;
      const visible = Boolean(avatar && avatar.mask & (1 << k));
      part.visible = visible;
      if (!visible || !avatar) continue;
      const p = avatar.poses;
      part.position.set(p[7 * k], p[7 * k + 1], p[7 * k + 2]);
      part.quaternion.set(p[7 * k + 3], p[7 * k + 4], p[7 * k + 5], p[7 * k + 6]);
    }
  }, -1);

  return (
    <group name={`avatar-${player.name}`}>
      <group ref={head} visible={false}>
        <mesh castShadow>
          <sphereGeometry args={[0.1, 24, 16]} />
          <meshStandardMaterial color={player.color} roughness={0.6} />
        </mesh>
        <mesh position={[0, 0.01, -0.085]}>
          <boxGeometry args={[0.16, 0.06, 0.04]} />
          <meshStandardMaterial color="#111318" roughness={0.2} />
        </mesh>
        <primitive object={tag} position={[0, 0.2, 0]} />
      </group>
      {[left, right].map((ref, k) => (
        <mesh key={k} ref={ref} visible={false} castShadow>
          <boxGeometry args={[0.05, 0.04, 0.11]} />
          <meshStandardMaterial color={player.color} roughness={0.5} />
        </mesh>
      ))}
    </group>
  );
}

/** A name tag drawn with the browser's own fonts (nothing fetched). */
function nameTag(name: string, color: string): THREE.Sprite {
  const canvas = document.createElement("canvas");
  canvas.width = 256;
  canvas.height = 64;
  const g = canvas.getContext("2d")!;
  g.fillStyle = "rgba(17, 20, 26, 0.75)";
  g.beginPath();
  g.roundRect(2, 2, 252, 60, 28);
  g.fill();
  g.fillStyle = color;
  g.beginPath();
  g.arc(34, 32, 12, 0, Math.PI * 2);
  g.fill();
  g.fillStyle = "#ffffff";
  g.font = "600 30px system-ui, sans-serif";
  g.textBaseline = "middle";
  g.fillText(name.slice(0, 14), 56, 33);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: texture, depthWrite: false }));
  sprite.scale.set(0.32, 0.08, 1);
  return sprite;
}
