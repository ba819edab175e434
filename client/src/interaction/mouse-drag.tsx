// Desktop and touch dragging: press on a soft body to grab it where the pointer hits, drag to pull it across a
// plane facing the camera, release to let go (the body keeps the pointer's velocity). Only where the room allows
// it. The body under the pointer glows and the cursor says it can be grabbed; a refused grab says why.

import { useThree } from "@react-three/fiber";
import { useEffect, useRef } from "react";
import * as THREE from "three";
import type { PliantRoomClient } from "../../../shared/net";
import { highlight } from "./highlight";
import { SurfacePicker } from "./surface-pick";

export interface MouseDragProps {
  client: PliantRoomClient;
  enabled: boolean;
  onDragging: (dragging: boolean) => void;
  /** A grab the server accepted (the hints' cue that grabbing is learnt). */
  onGrabbed?: () => void;
  onNotice?: (message: string) => void;
}

export function MouseDrag({ client, enabled, onDragging, onGrabbed, onNotice }: MouseDragProps) {
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
    const pick = (event: PointerEvent) => {
      const ray = rayAt(event);
      return picker.ray(client.bodies.values(), ray.origin.x, ray.origin.y, ray.origin.z, ray.direction.x, ray.direction.y, ray.direction.z, 30, 0.015, 0.012, client.characters.all.values());
    };
    let heldBody: string | null = null;
    const down = (event: PointerEvent) => {
      if (event.button !== 0) return;
      const hit = pick(event);
      if (!hit) return;
      event.stopImmediatePropagation();
      element.setPointerCapture(event.pointerId);
      dragging = true;
      heldBody = hit.bodyId;
      highlight.held.add(hit.bodyId);
      element.style.cursor = "grabbing";
      onDragging(true);
      plane.setFromNormalAndCoplanarPoint(camera.getWorldDirection(new THREE.Vector3()).negate(), new THREE.Vector3(...hit.point));
      void client.grab("pointer", hit.bodyId, hit.point).then((result) => {
        if (result.ok) return onGrabbed?.();
        onNotice?.(`Could not grab ${hit.bodyId}: ${result.reason ?? "refused"}`);
        if (dragging) stop();
      });
    };
    const move = (event: PointerEvent) => {
      if (!dragging) {
        // Hover (mouse only: a finger has no hover).
        if (event.pointerType !== "mouse") return;
        const hovered = pick(event)?.bodyId ?? null;
        if (hovered !== highlight.hovered) {
          highlight.hovered = hovered;
          element.style.cursor = hovered ? "grab" : "";
        }
        return;
      }
      if (rayAt(event).intersectPlane(plane, hitPoint)) client.moveGrab("pointer", [hitPoint.x, hitPoint.y, hitPoint.z]);
    };
    const stop = () => {
      if (!dragging) return;
      dragging = false;
      if (heldBody) highlight.held.delete(heldBody);
      heldBody = null;
      element.style.cursor = highlight.hovered ? "grab" : "";
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
      highlight.hovered = null;
      element.style.cursor = "";
      element.removeEventListener("pointerdown", down, { capture: true });
      element.removeEventListener("pointermove", move);
      element.removeEventListener("pointerup", stop);
      element.removeEventListener("pointercancel", stop);
    };
  }, [client, enabled, camera, gl, picker, onDragging, onGrabbed, onNotice]);
  return null;
}
