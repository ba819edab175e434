// Everyone's hands on the bodies: a marker in the holder's colour where each grab pulls, so that a headset user
// sees who moves a body even when the holder is at a desktop or on a phone (no avatar), and nothing seems to move
// by itself: a dot, and for a mouse or touch grab (a desktop or phone player, who has no avatar) a pointer with
// their name. The page's own grabs are left out: its pointer or hands are already there.

import { useFrame } from "@react-three/fiber";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import type { GrabInfo, PlayerInfo } from "../room/room-hooks";
import { createPointerMarker, disposeSprite } from "./avatar-parts";

export function GrabMarkers({ client, grabs, players }: { client: PliantRoomClient; grabs: GrabInfo[]; players: PlayerInfo[] }) {
  const holders = useMemo(() => new Map(players.map((p) => [p.sessionId, p])), [players]);
  return (
    <group name="grab-markers">
      {grabs.filter((g) => g.owner !== client.sessionId).map((g) => (
        <GrabMarker key={g.key} client={client} grab={g} color={holders.get(g.owner)?.color ?? "#ffffff"} pointer={g.key.endsWith(":pointer") ? holders.get(g.owner)?.name ?? "" : null} />
      ))}
    </group>
  );
}

/** `pointer`: the holder's name when the grab is a mouse or touch pointer's, null for a hand's. */
function GrabMarker({ client, grab, color, pointer }: { client: PliantRoomClient; grab: GrabInfo; color: string; pointer: string | null }) {
  const sprite = useMemo(() => (pointer === null ? null : createPointerMarker(pointer, color)), [pointer, color]);
  useEffect(() => () => { if (sprite) disposeSprite(sprite); }, [sprite]);
  const marker = useRef<THREE.Group>(null);
  useFrame(() => {
    const target = client.grabTarget(grab.slot), m = marker.current;
    if (!m) return;
    m.visible = Boolean(target);
    if (target) m.position.set(target[0], target[1], target[2]);
  }, -1);
  return (
    <group ref={marker} name={`grab-marker-${grab.owner}`} userData={{ owner: grab.owner, color }} visible={false}>
      <mesh>
        <sphereGeometry args={[0.018, 16, 12]} />
        <meshBasicMaterial color={color} />
      </mesh>
      <mesh>
        <sphereGeometry args={[0.03, 16, 12]} />
        <meshBasicMaterial color={color} transparent opacity={0.3} depthWrite={false} />
      </mesh>
      {sprite && <primitive object={sprite} />}
    </group>
  );
}
