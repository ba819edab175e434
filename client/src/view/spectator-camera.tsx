// The desktop view: orbit controls around the table, or an automatic camera for big screens that circles the
// room and keeps the bodies (the held ones first) in frame. Off while a headset session runs.

import { useFrame, useThree } from "@react-three/fiber";
import { useEffect, useRef } from "react";
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import type { PliantRoomClient } from "../../../shared/net";
import { shownCentre } from "../interaction/surface-pick";

export type CameraMode = "orbit" | "auto";

/** The orbit controls of the page's spectator camera, while one is on screen (for aimSpectatorCamera). */
let active: { camera: THREE.Camera; controls: OrbitControls } | null = null;

/** Puts the orbiting spectator camera at `from`, looking at `to` (world metres): tests and screenshots frame a view. */
export function aimSpectatorCamera(from: [number, number, number], to: [number, number, number]): void {
  if (!active) throw new Error("no spectator camera on screen");
  active.camera.position.set(...from);
  active.controls.target.set(...to);
  active.controls.update();
}
/** The auto camera's angle round the bodies (radians) while tests and screenshots hold it still; null: it circles. */
let pinnedAngle: number | null = null;

/** Holds the auto camera at `angle` on its loop (0..2 pi: one turn round the bodies), or lets it circle on (null). */
export function pinAutoCamera(angle: number | null): void {
  pinnedAngle = angle;
}
const TABLE_FOCUS = new THREE.Vector3(0, 0.85, -0.6);
const TARGET_MIN = new THREE.Vector3(-2, 0.1, -2.5), TARGET_MAX = new THREE.Vector3(2, 2, 2);

export function SpectatorCamera({ client, mode, dragging, onLook }: { client: PliantRoomClient | null; mode: CameraMode; dragging: boolean; onLook?: () => void }) {
  const { camera, gl } = useThree();
  const controls = useRef<OrbitControls | null>(null);
  const focus = useRef(TABLE_FOCUS.clone()).current;
  const wanted = useRef(new THREE.Vector3()).current;
  const centre = useRef(new Float64Array(3)).current;
  const angle = useRef(0);

  useEffect(() => {
    camera.position.set(0.2, 1.45, 0.75);
    camera.lookAt(TABLE_FOCUS);
    const c = new OrbitControls(camera, gl.domElement);
    c.target.copy(TABLE_FOCUS);
    c.enableDamping = true;
    c.maxPolarAngle = Math.PI * 0.495;
    // Inside the room: not into a body on the table (the spot is 0.3 m long), not out through the walls.
    c.minDistance = 0.55;
    c.maxDistance = 2.6;
    c.update();
    controls.current = c;
    active = { camera, controls: c };
    return () => {
      if (active?.controls === c) active = null;
      c.dispose();
    };
  }, [camera, gl]);

  useEffect(() => {
    const c = controls.current;
    if (!c || !onLook) return;
    c.addEventListener("start", onLook);
    return () => c.removeEventListener("start", onLook);
  }, [onLook]);

  useEffect(() => {
    if (controls.current) controls.current.enabled = mode === "orbit" && !dragging;
  }, [mode, dragging]);

  // A phone held upright: widen the view so that the three bodies side by side stay in frame.
  const size = useThree((s) => s.size);
  useEffect(() => {
    if (!(camera instanceof THREE.PerspectiveCamera)) return;
    const aspect = size.width / Math.max(1, size.height);
    camera.fov = aspect >= 1 ? 55 : Math.min(85, (2 * Math.atan((Math.tan((27.5 * Math.PI) / 180) * 0.9) / aspect) * 180) / Math.PI);
    camera.updateProjectionMatrix();
  }, [camera, size]);

  useFrame((three, delta) => {
    if (three.gl.xr.isPresenting) return;
    const c = controls.current;
    if (mode === "orbit") {
      // Panning stays over the room's middle, not out through a wall.
      c?.target.clamp(TARGET_MIN, TARGET_MAX);
      c?.update();
      return;
    }
    // Auto: follow the centre of the bodies, leaning towards the ones being handled.
    wanted.copy(TABLE_FOCUS);
    if (client && client.bodies.size) {
      let weight = 0;
      wanted.set(0, 0, 0);
      for (const body of client.bodies.values()) {
        const c = shownCentre(body, centre);
        const w = body.predicting ? 4 : 1;
        wanted.x += w * c[0]; wanted.y += w * c[1]; wanted.z += w * c[2];
        weight += w;
      }
      wanted.multiplyScalar(1 / weight);
    }
    focus.lerp(wanted, Math.min(1, delta * 1.5));
    angle.current = pinnedAngle ?? angle.current + delta * 0.12;
    // Close enough that the bodies fill the frame, high enough to see the table top rather than the wall behind.
    const radius = 1.1 + 0.15 * Math.sin(angle.current * 0.7);
    camera.position.set(focus.x + radius * Math.sin(angle.current), focus.y + 0.5, focus.z + radius * Math.cos(angle.current));
    camera.lookAt(focus);
    if (c) c.target.copy(focus);
  });
  return null;
}
