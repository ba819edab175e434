// Other players in headsets: a round head in their colour with a friendly face and their name above it, and two
// hands (a palm and five fingers) where their hands or controllers are, at their latest poses. The shapes are
// shared by every avatar (avatar-parts.ts); a frame only copies poses.

import { useFrame } from "@react-three/fiber";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import { avatarParts, createNameTag, disposeSprite, FACE_PARTS, HAND_PARTS, handOffset, NAME_TAG_HEIGHT } from "./avatar-parts";

interface PlayerInfo { sessionId: string; name: string; color: string; role: string; slot: number }

const HAND_OFFSETS = { left: handOffset("left"), right: handOffset("right") };

export function Avatars({ client, players }: { client: PliantRoomClient; players: PlayerInfo[] }) {
  return (
    <group name="avatars">
      {players.filter((p) => p.role === "player" && p.sessionId !== client.sessionId).map((p) => <Avatar key={p.sessionId} client={client} player={p} />)}
    </group>
  );
}

function Avatar({ client, player }: { client: PliantRoomClient; player: PlayerInfo }) {
  const head = useRef<THREE.Group>(null);
  const left = useRef<THREE.Group>(null);
  const right = useRef<THREE.Group>(null);
  const parts = avatarParts();
  const skin = useMemo(() => new THREE.MeshStandardMaterial({ color: player.color, roughness: 0.55 }), [player.color]);
  useEffect(() => () => skin.dispose(), [skin]);
  const tag = useMemo(() => createNameTag(player.name, player.color), [player.name, player.color]);
  useEffect(() => () => disposeSprite(tag), [tag]);

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
    const h = head.current;
    tag.visible = Boolean(h?.visible);
    if (h) tag.position.set(h.position.x, h.position.y + NAME_TAG_HEIGHT, h.position.z);
  }, -1);

  return (
    <group name={`avatar-${player.name}`} userData={{ sessionId: player.sessionId, color: player.color }}>
      <group ref={head} name="avatar-head" visible={false}>
        <mesh name="avatar-skull" geometry={parts.head} material={skin} castShadow />
        <mesh name="avatar-face" geometry={parts.face} material={parts.faceMaterial} userData={{ parts: FACE_PARTS }} />
      </group>
      {/* Above the head in the room, however the head tilts. */}
      <primitive object={tag} visible={false} />
      {(["left", "right"] as const).map((side) => (
        <group key={side} ref={side === "left" ? left : right} name={`avatar-hand-${side}`} visible={false}>
          <mesh geometry={parts.hands[side]} material={skin} position={HAND_OFFSETS[side].position} quaternion={HAND_OFFSETS[side].quaternion} castShadow userData={{ parts: HAND_PARTS }} />
        </group>
      ))}
    </group>
  );
}
