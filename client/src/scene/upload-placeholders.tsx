// Where an uploaded mesh will land while the server bakes it: a turning wireframe cage of its size, filling up
// from the table with the bake's progress, the same in every page.

import { useFrame } from "@react-three/fiber";
import { useRef } from "react";
import type * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import { useUploads, type UploadInfo } from "../room/room-hooks";

export function UploadPlaceholders({ client }: { client: PliantRoomClient }) {
  const uploads = useUploads(client);
  return <>{uploads.map((u) => <Placeholder key={u.id} upload={u} />)}</>;
}

function Placeholder({ upload }: { upload: UploadInfo }) {
  const cage = useRef<THREE.Group>(null);
  useFrame((_, dt) => {
    if (cage.current) cage.current.rotation.y += dt * 0.8;
  });
  const s = upload.size, fill = Math.max(0.02, upload.progress);
  return (
    <group position={[upload.x, upload.y, upload.z]} name={`upload-placeholder-${upload.id}`}>
      <group ref={cage} position={[0, s / 2, 0]}>
        <mesh>
          <boxGeometry args={[s, s, s]} />
          <meshBasicMaterial color="#4fc3f7" wireframe transparent opacity={0.7} />
        </mesh>
      </group>
      <mesh position={[0, (s * fill) / 2, 0]} scale={[0.6 * s, s * fill, 0.6 * s]}>
        <boxGeometry args={[1, 1, 1]} />
        <meshStandardMaterial color="#4fc3f7" transparent opacity={0.35} depthWrite={false} />
      </mesh>
    </group>
  );
}
