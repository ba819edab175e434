// Mixed reality on a real table (immersive-ar): the player points the right controller at a real table and pulls
// the trigger; the shared room's table top is put on it for this player alone (shared/scene/table-alignment.ts).
// The alignment is an offset reference space given to three's XR manager, so the view, the controllers and hands,
// and every pose and grab this page sends are in room coordinates, and other players' avatars land through it too.
// With plane detection, the detected plane under the pointer gives the real table's centre and long axis; with hit
// testing alone, the point hit and the direction the player faces. While aligning, the left stick nudges the table
// and the right stick turns it; the trigger with nothing under the pointer keeps what the sticks made. The wrist
// menu's "Align table" starts over.

import { useFrame, useThree } from "@react-three/fiber";
import { useMemo, useRef, useSyncExternalStore } from "react";
import type * as THREE from "three";
import { alignToSurface, nudgeAlignment, tableTop, UNALIGNED, type RealSurface, type RoomAlignment, type SceneLayout } from "../../../shared/scene";

/** Nudge speeds while aligning: m/s and rad/s at full stick, and the stick's dead zone. */
const NUDGE_SPEED = 0.3, TURN_SPEED = 0.6, DEAD_ZONE = 0.2;
/** A hit whose surface normal is within this of straight up is a place for the table (cos of ~25 degrees). */
const HORIZONTAL_COS = 0.9;

/** This page's alignment: what the app shows and the tests read (window.pliant.alignment). */
export const tableAlignment = {
  /** Waiting for the player to point and confirm (from entering AR, or the wrist menu's "Align table"). */
  aligning: false,
  /** The table has been put on a real surface in this session. */
  aligned: false,
  alignment: { ...UNALIGNED } as RoomAlignment,
  /** Where the pointer meets a horizontal surface now (room coordinates), and the detected plane's table under it. */
  reticle: null as [number, number, number] | null,
  surface: null as RealSurface | null,
  /** Detected horizontal planes' centres in the session's own (real) space when the table was placed, as the browser reports them. */
  realPlanes: [] as [number, number, number][],
  version: 0,
};

const listeners = new Set<() => void>();
function changed(): void {
  tableAlignment.version++;
  for (const listener of listeners) listener();
}

/** Asks for a new alignment (the wrist menu's "Align table"). */
export function startAligning(): void {
  tableAlignment.aligning = true;
  changed();
}

/** `{ aligning, aligned }`, re-rendering when they change. */
export function useTableAlignment(): { aligning: boolean; aligned: boolean } {
  const version = useSyncExternalStore((l) => { listeners.add(l); return () => listeners.delete(l); }, () => tableAlignment.version);
  void version;
  return { aligning: tableAlignment.aligning, aligned: tableAlignment.aligned };
}

interface SessionState {
  session: XRSession;
  /** The session's own reference space (the real room); alignments are offsets from it. */
  base: XRReferenceSpace;
  hitSource: XRHitTestSource | null;
  hitSpace: XRSpace | null;
  wasTrigger: boolean;
}

/** `ar`: the session is immersive-ar (passthrough). */
export function TableAlignment({ layout, ar }: { layout: SceneLayout; ar: boolean }) {
  const gl = useThree((s) => s.gl);
  const table = useMemo(() => tableTop(layout), [layout]);
  const state = useRef<SessionState | null>(null);
  const reticle = useRef<THREE.Mesh>(null);

  useFrame((_three, dt, frame: XRFrame | undefined) => {
    const session = frame?.session;
    if (reticle.current) {
      reticle.current.visible = tableAlignment.reticle !== null;
      const r = tableAlignment.reticle;
      if (r) reticle.current.position.set(r[0], r[1], r[2]);
    }
    if (!session || !frame || !ar || !table) {
      if (state.current && !session) end(state);
      return;
    }
    if (state.current?.session !== session) {
      const base = gl.xr.getReferenceSpace();
      if (!base) return;
      state.current = { session, base, hitSource: null, hitSpace: null, wasTrigger: false };
      Object.assign(tableAlignment, { aligning: true, aligned: false, alignment: { ...UNALIGNED }, reticle: null, surface: null });
      changed();
    }
    const s = state.current!;
    const room = gl.xr.getReferenceSpace();
    if (!room) return;
    let right: XRInputSource | undefined, left: XRInputSource | undefined;
    for (const source of session.inputSources) {
      if (source.hand) continue;
      if (source.handedness === "right") right = source;
      else if (source.handedness === "left") left = source;
    }
    if (right && s.hitSpace !== right.targetRaySpace) requestHitSource(s, right.targetRaySpace);
    if (!tableAlignment.aligning) return;

    // Where the pointer meets a horizontal surface, and the detected plane there.
    const seen = tableAlignment.reticle;
    tableAlignment.reticle = null;
    tableAlignment.surface = null;
    const hit = s.hitSource ? frame.getHitTestResults(s.hitSource)[0]?.getPose(room) : undefined;
    if (hit && hit.transform.matrix[5] > HORIZONTAL_COS) {
      const p = hit.transform.position;
      // The reticle's array is reused frame to frame.
      tableAlignment.reticle = seen ?? [0, 0, 0];
      tableAlignment.reticle[0] = p.x; tableAlignment.reticle[1] = p.y; tableAlignment.reticle[2] = p.z;
      tableAlignment.surface = planeUnder(frame, room, p.x, p.y, p.z);
    }

    // Sticks nudge and turn while aligning.
    const stick = left?.gamepad?.axes, turnStick = right?.gamepad?.axes;
    const dx = deadZone(stick?.[2] ?? 0) * NUDGE_SPEED * dt, dz = deadZone(stick?.[3] ?? 0) * NUDGE_SPEED * dt;
    const turnBy = -deadZone(turnStick?.[2] ?? 0) * TURN_SPEED * dt;
    if (dx !== 0 || dz !== 0 || turnBy !== 0) apply(nudgeAlignment(tableAlignment.alignment, dx, dz, turnBy, table));

    const trigger = (right?.gamepad?.buttons[0]?.value ?? 0) > 0.5;
    if (trigger && !s.wasTrigger) {
      const target = tableAlignment.surface ?? (tableAlignment.reticle && facingSurface(frame, room, tableAlignment.reticle));
      if (target) apply(alignToSurface(tableAlignment.alignment, target, table));
      recordRealPlanes(frame, s.base);
      tableAlignment.aligning = false;
      tableAlignment.aligned = true;
      tableAlignment.reticle = null;
      changed();
    }
    s.wasTrigger = trigger;
  });

  /** Makes `alignment` this page's: an offset of the session's own space, given to three (and so to @react-three/xr). */
  function apply(alignment: RoomAlignment): void {
    const s = state.current;
    if (!s) return;
    tableAlignment.alignment = alignment;
    // The room's origin, as a pose in the real space: real = R(-yaw) room + roomToReal(origin).
    const c = Math.cos(alignment.yaw), sn = Math.sin(alignment.yaw);
    const position = { x: -(c * alignment.x - sn * alignment.z), y: -alignment.y, z: -(sn * alignment.x + c * alignment.z), w: 1 };
    const orientation = { x: 0, y: Math.sin(-alignment.yaw / 2), z: 0, w: Math.cos(-alignment.yaw / 2) };
    const offset = new XRRigidTransform(position, orientation);
    // IWER 2.5 (the emulated headset) reads the offset as if it were its matrix (mat4.clone(originOffset)): its
    // entries as indices serve it, and browsers that follow the spec ignore them.
    Object.assign(offset, Array.from(offset.matrix));
    gl.xr.setReferenceSpace(s.base.getOffsetReferenceSpace(offset));
  }

  // Where the pointer meets a surface (placed every frame from tableAlignment.reticle).
  return (
    <mesh ref={reticle} name="alignment-reticle" rotation={[-Math.PI / 2, 0, 0]} visible={false}>
      <ringGeometry args={[0.05, 0.07, 32]} />
      <meshBasicMaterial color="#4fc3f7" />
    </mesh>
  );
}

function end(state: { current: SessionState | null }): void {
  state.current?.hitSource?.cancel();
  state.current = null;
  Object.assign(tableAlignment, { aligning: false, aligned: false, alignment: { ...UNALIGNED }, reticle: null, surface: null });
  changed();
}

function requestHitSource(s: SessionState, space: XRSpace): void {
  s.hitSpace = space;
  s.hitSource?.cancel();
  s.hitSource = null;
  void s.session.requestHitTestSource?.({ space, entityTypes: ["plane"] })?.then((source) => {
    if (s.hitSpace === space) s.hitSource = source;
    else source.cancel();
  }, () => undefined);
}

function recordRealPlanes(frame: XRFrame, base: XRReferenceSpace): void {
  tableAlignment.realPlanes = [];
  for (const plane of (frame as XRFrame & { detectedPlanes?: Set<XRPlane> }).detectedPlanes ?? []) {
    const pose = plane.orientation === "horizontal" ? frame.getPose(plane.planeSpace, base) : undefined;
    if (pose) tableAlignment.realPlanes.push([pose.transform.position.x, pose.transform.position.y, pose.transform.position.z]);
  }
}

function deadZone(value: number): number {
  return Math.abs(value) < DEAD_ZONE ? 0 : value;
}

/**
 * The detected horizontal plane under a point (room coordinates): its bounding box's centre and its longer axis's
 * yaw. Null without plane detection or when no plane's outline holds the point.
 */
function planeUnder(frame: XRFrame, room: XRReferenceSpace, x: number, y: number, z: number): RealSurface | null {
  const planes = (frame as XRFrame & { detectedPlanes?: Set<XRPlane> }).detectedPlanes;
  for (const plane of planes ?? []) {
    if (plane.orientation !== "horizontal") continue;
    const pose = frame.getPose(plane.planeSpace, room);
    if (!pose) continue;
    const m = pose.transform.matrix;
    // The point in the plane's frame (the inverse of a rigid transform: the transpose of its rotation).
    const px = x - m[12], py = y - m[13], pz = z - m[14];
    const lx = m[0] * px + m[1] * py + m[2] * pz, ly = m[4] * px + m[5] * py + m[6] * pz, lz = m[8] * px + m[9] * py + m[10] * pz;
    if (Math.abs(ly) > 0.05) continue;
    let minX = Infinity, maxX = -Infinity, minZ = Infinity, maxZ = -Infinity;
    for (const p of plane.polygon) {
      minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x); minZ = Math.min(minZ, p.z); maxZ = Math.max(maxZ, p.z);
    }
    if (lx < minX || lx > maxX || lz < minZ || lz > maxZ) continue;
    const cx = (minX + maxX) / 2, cz = (minZ + maxZ) / 2;
    // The longer side's axis: the plane's local x or z, seen in the room (its yaw as three's rotation.y).
    const alongX = maxX - minX >= maxZ - minZ;
    const ax = alongX ? m[0] : m[8], az = alongX ? m[2] : m[10];
    return { x: m[0] * cx + m[8] * cz + m[12], y: m[1] * cx + m[9] * cz + m[13], z: m[2] * cx + m[10] * cz + m[14], yaw: Math.atan2(-az, ax) };
  }
  return null;
}

/** Without a detected plane: the point hit, the table's long side across the player's view. */
function facingSurface(frame: XRFrame, room: XRReferenceSpace, at: [number, number, number]): RealSurface | null {
  const viewer = frame.getViewerPose(room);
  if (!viewer) return null;
  const m = viewer.transform.matrix;
  return { x: at[0], y: at[1], z: at[2], yaw: Math.atan2(-m[2], m[0]) };
}
