// Desktop dragging: press on a soft body to grab it where the pointer hits, drag to pull it across a plane facing
// the camera, release to let go (the body keeps the pointer's velocity). Only where the room allows it.

import { useThree } from "@react-three/fiber";
import { useEffect, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import { SurfacePicker } from "./surface-pick";

export function MouseDrag({ client, enabled, onDragging }: { client: PliantRoomClient; enabled: boolean; onDragging: (dragging: boolean) => void }) {
  const { camera, gl } = useThree();
  const picker = useRef(new SurfacePicker()).current;

  useEffect(() => {
    if (!enabled) return;
    const element = gl.domElement;
    const raycaster = new THREE.Raycaster();
    const ndc = new THREE.Vector2();
    const plane = new THREE.Plane();
    const hitPoint = new THREE.Vector3();
    let dragging = false;
    const rayAt = (event: PointerEvent) => {
      const rect = element.getBoundingClientRect();
      ndc.set(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
      raycaster.setFromCamera(ndc, camera);
      return raycaster.ray;
    };
    const down = (event: PointerEvent) => {
      if (event.button !== 0) return;
      const ray = rayAt(event);
      const hit = picker.ray(client.bodies.values(), ray.origin.x, ray.origin.y, ray.origin.z, ray.direction.x, ray.direction.y, ray.direction.z, 30, 0.015, 0.012);
      if (!hit) return;
      event.stopImmediatePropagation();
      element.setPointerCapture(event.pointerId);
      dragging = true;
      onDragging(true);
      plane.setFromNormalAndCoplanarPoint(camera.getWorldDirection(new THREE.Vector3()).negate(), new THREE.Vector3(...hit.point));
      void client.grab("pointer", hit.bodyId, hit.point).then((result) => {
        if (!result.ok && dragging) stop();
      });
    };
    const move = (event: PointerEvent) => {
      if (!dragging) return;
      if (rayAt(event).intersectPlane(plane, hitPoint)) client.moveGrab("pointer", [hitPoint.x, hitPoint.y, hitPoint.z]);
    };
    const stop = () => {
      if (!dragging) return;
      dragging = false;
      onDragging(false);
      client.release("pointer");
    };
    // Capture phase: a press on a body must reach us before the orbit controls start rotating the view.
    element.addEventListener("pointerdown", down, { capture: true });
    element.addEventListener("pointermove", move);
    element.addEventListener("pointerup", stop);
    element.addEventListener("pointercancel", stop);
    return () => {
      stop();
      element.removeEventListener("pointerdown", down, { capture: true });
      element.removeEventListener("pointermove", move);
      element.removeEventListener("pointerup", stop);
      element.removeEventListener("pointercancel", stop);
    };
  }, [client, enabled, camera, gl, picker, onDragging]);
  return null;
}
