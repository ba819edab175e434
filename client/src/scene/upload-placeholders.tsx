// Where an uploaded mesh will land while the server bakes it: a turning wireframe cage of its size, filling up
// from the table with the bake's progress, with a tag above it saying where it stands ("waiting: 2nd in line,
// about 12 s", then the bake's stage), the same in every page.

import { useFrame } from "@react-three/fiber";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import { useUploads, type UploadInfo } from "../room/room-hooks";
import { uploadStatusLabel } from "../upload/upload-status";

/** The tag's canvas, px, and its width in the room, m. */
const TAG_PIXELS = [512, 64] as const;
const TAG_WIDTH = 0.4;

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
  // Grey while it waits its turn, blue once its bake runs.
  const colour = upload.stage === "queued" ? "#9e9e9e" : "#4fc3f7";
  return (
    <group position={[upload.x, upload.y, upload.z]} name={`upload-placeholder-${upload.id}`}>
      <group ref={cage} position={[0, s / 2, 0]}>
        <mesh>
          <boxGeometry args={[s, s, s]} />
          <meshBasicMaterial color={colour} wireframe transparent opacity={0.7} />
        </mesh>
      </group>
      <mesh position={[0, (s * fill) / 2, 0]} scale={[0.6 * s, s * fill, 0.6 * s]}>
        <boxGeometry args={[1, 1, 1]} />
        <meshStandardMaterial color={colour} transparent opacity={0.35} depthWrite={false} />
      </mesh>
      <StatusTag text={`${upload.name}: ${uploadStatusLabel(upload)}`} height={s * 1.25} />
    </group>
  );
}

/** A tag drawn with the browser's own fonts (nothing fetched), redrawn only when its text changes. */
function StatusTag({ text, height }: { text: string; height: number }) {
  const { canvas, texture } = useMemo(() => {
    const canvas = document.createElement("canvas");
    [canvas.width, canvas.height] = TAG_PIXELS;
    const texture = new THREE.CanvasTexture(canvas);
    texture.colorSpace = THREE.SRGBColorSpace;
    return { canvas, texture };
  }, []);
  useEffect(() => () => texture.dispose(), [texture]);
  useEffect(() => {
    const g = canvas.getContext("2d")!, [w, h] = TAG_PIXELS;
    g.clearRect(0, 0, w, h);
    g.fillStyle = "rgba(17, 20, 26, 0.75)";
    g.beginPath();
    g.roundRect(2, 2, w - 4, h - 4, (h - 4) / 2);
    g.fill();
    g.fillStyle = "#ffffff";
    g.font = "600 26px system-ui, sans-serif";
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.fillText(text, w / 2, h / 2 + 1, w - 32);
    texture.needsUpdate = true;
  }, [canvas, texture, text]);
  return (
    <sprite position={[0, height, 0]} scale={[TAG_WIDTH, (TAG_WIDTH * TAG_PIXELS[1]) / TAG_PIXELS[0], 1]}>
      <spriteMaterial map={texture} transparent depthWrite={false} />
    </sprite>
  );
}
