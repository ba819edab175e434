// Mixed reality on a real table: each player's own transform from their real room (the headset's tracking space)
// to the shared room, chosen so that the shared room's table top lies on a real table. The shared simulation is
// unchanged; only where this player's view and hands sit in it moves. The transform is the XR origin's pose in the
// room: a turn about the vertical and a translation (room = R(yaw) real + position), three.js's rotation.y sense.

import type { SceneLayout } from "./layout";

export interface RoomAlignment {
  x: number;
  y: number;
  z: number;
  /** Radians about +y. */
  yaw: number;
}

export const UNALIGNED: Readonly<RoomAlignment> = Object.freeze({ x: 0, y: 0, z: 0, yaw: 0 });

/** A real surface to put the table on, as seen in the room now: its centre (room coordinates) and its long axis's yaw. */
export interface RealSurface {
  x: number;
  y: number;
  z: number;
  /** Yaw of the surface's long axis (radians about +y); the table's long axis (x) goes along it. */
  yaw: number;
}

/** Tops higher than this are not tables (a wall's top), m. */
const TABLE_HEIGHT_LIMIT = 1.3;

/** The layout's table top: the widest drawn box topped within reach (bodies added land on it, AR puts it on a real one). */
export function tableTop(layout: SceneLayout): { x: number; y: number; z: number; halfX: number; halfZ: number } | null {
  let best: SceneLayout["statics"][number] | undefined;
  for (const box of layout.statics) {
    const top = box.center[1] + box.half[1];
    if (box.hidden || top <= 0.01 || top > TABLE_HEIGHT_LIMIT) continue;
    if (!best || box.half[0] * box.half[2] > best.half[0] * best.half[2]) best = box;
  }
  return best ? { x: best.center[0], y: best.center[1] + best.half[1], z: best.center[2], halfX: best.half[0], halfZ: best.half[2] } : null;
}

/** Rotates (x, z) by `yaw` about +y (three.js: x' = x cos + z sin, z' = -x sin + z cos). */
function turn(x: number, z: number, yaw: number): [number, number] {
  const c = Math.cos(yaw), s = Math.sin(yaw);
  return [c * x + s * z, -s * x + c * z];
}

/** Angle wrapped to (-pi, pi]. */
function wrap(angle: number): number {
  return Math.atan2(Math.sin(angle), Math.cos(angle));
}

/**
 * The alignment after putting the table on `surface` (as seen in the room under `current`): the surface's centre
 * goes to the table top's centre and its long axis along the table's, turned by the smaller of the two ways (a long
 * axis has two directions), so the table's front stays the side nearer where it faced.
 */
export function alignToSurface(current: RoomAlignment, surface: RealSurface, table: { x: number; y: number; z: number }): RoomAlignment {
  let turnBy = wrap(0 - surface.yaw);
  if (Math.abs(turnBy) > Math.PI / 2) turnBy = wrap(turnBy + Math.PI);
  // A = (R(turnBy), a) takes the surface to the table: a = table - R(turnBy) surface. Then the new origin is A o current.
  const [sx, sz] = turn(surface.x, surface.z, turnBy);
  const ax = table.x - sx, ay = table.y - surface.y, az = table.z - sz;
  const [px, pz] = turn(current.x, current.z, turnBy);
  return { x: px + ax, y: current.y + ay, z: pz + az, yaw: wrap(current.yaw + turnBy) };
}

/**
 * The alignment nudged by hand: the real table is moved by (dx, dz) metres (room axes) and turned by `turnBy`
 * about the table's centre, as the player sees it move.
 */
export function nudgeAlignment(current: RoomAlignment, dx: number, dz: number, turnBy: number, table: { x: number; z: number }): RoomAlignment {
  // Moving what is real by d in the room is moving the origin by d; turning it about the table's centre likewise.
  const [px, pz] = turn(current.x - table.x, current.z - table.z, turnBy);
  return { x: table.x + px + dx, y: current.y, z: table.z + pz + dz, yaw: wrap(current.yaw + turnBy) };
}

/** Where a room point is in the player's real space (the tracking space the headset reports). */
export function roomToReal(alignment: RoomAlignment, x: number, y: number, z: number): [number, number, number] {
  const [rx, rz] = turn(x - alignment.x, z - alignment.z, -alignment.yaw);
  return [rx, y - alignment.y, rz];
}

/** Where a point of the player's real space is in the room. */
export function realToRoom(alignment: RoomAlignment, x: number, y: number, z: number): [number, number, number] {
  const [rx, rz] = turn(x, z, alignment.yaw);
  return [rx + alignment.x, y + alignment.y, rz + alignment.z];
}
