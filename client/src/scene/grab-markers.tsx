// Everyone's hands on the bodies: a marker in the holder's colour where each grab pulls, so that a headset user
// sees who moves a body even when the holder is at a desktop or on a phone (no avatar), and nothing seems to move
// by itself. The page's own grabs are left out: its pointer or hands are already there.

import { useFrame } from "@react-three/fiber";
import { useMemo, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import type { GrabInfo, PlayerInfo } from "../room/room-hooks";

export function GrabMarkers({ client, grabs, players }: { client: PliantRoomClient; grabs: GrabInfo[]; players: PlayerInfo[] }) {
  const colours = useMemo(() => new Map(players.map((p) => [p.sessionId, p.color])), [players]);
  return (
    <group name="grab-markers">
      {grabs.filter((g) => g.owner !== client.sessionId).map((g) => <GrabMarker key={g.key} client={client} grab={g} color={colours.get(g.owner) ?? "#ffffff"} />)}
    </group>
  );
}

function GrabMarker({ client, grab, color }: { client: PliantRoomClient; grab: GrabInfo; color: string }) {
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
    </group>
  );
}
