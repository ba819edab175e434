// The desktop view: orbit controls around the table, or an automatic camera for big screens that circles the
// room and keeps the bodies (the held ones first) and the players' heads and name tags in frame. Off while a
// headset session runs.

import { useFrame, useThree } from "@react-three/fiber";
import { useEffect, useRef } from "react";
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import type { PliantRoomClient } from "../../../shared/net";
import { shownCentre } from "../interaction/surface-pick";
import { HEAD_RADIUS, NAME_TAG_HEIGHT, NAME_TAG_SIZE } from "../scene/avatar-parts";

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
/** What the auto camera keeps in frame of a player: their head and the name tag above it, as a sphere about the head. */
const TAG_TOP = NAME_TAG_HEIGHT + NAME_TAG_SIZE / 2;
const HEAD_FRAME_LIFT = (TAG_TOP - HEAD_RADIUS) / 2, HEAD_FRAME_RADIUS = (TAG_TOP + HEAD_RADIUS) / 2 + 0.03;
/**
 * How much of the view (from its centre to each edge, 1: all) the auto camera fills with what it frames: the top
 * is kept for the page's title and panels, which would cover a head there.
 */
const FRAME_TOP = 0.7, FRAME_BOTTOM = 0.9, FRAME_SIDES = 0.9;
/** The auto camera's farthest distance from what it frames, m: a crowd of players is framed from no farther (inside the room). */
const AUTO_MAX_DISTANCE = 3.6;


export function SpectatorCamera({ client, mode, dragging, onLook }: { client: PliantRoomClient | null; mode: CameraMode; dragging: boolean; onLook?: () => void }) {
  const { camera, gl } = useThree();
  const controls = useRef<OrbitControls | null>(null);
  const focus = useRef(TABLE_FOCUS.clone()).current;
  const wanted = useRef(new THREE.Vector3()).current;
  const centre = useRef(new Float64Array(3)).current;
  const angle = useRef(0);
  const framing = useRef<Framing | null>(null);
  framing.current ??= new Framing();

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
    angle.current = pinnedAngle ?? angle.current + delta * 0.12;
    // Close enough that the bodies fill the frame, high enough to see the table top rather than the wall behind.
    const radius = 1.1 + 0.15 * Math.sin(angle.current * 0.7);
    const offset = framing.current!.offset.set(radius * Math.sin(angle.current), 0.5, radius * Math.cos(angle.current));
    // With players in the room, their heads and name tags too: the camera draws back (and the focus rises) until they fit.
    const distance = client && camera instanceof THREE.PerspectiveCamera ? framing.current!.fit(client, wanted, offset, camera, delta) : 0;
    focus.lerp(wanted, Math.min(1, delta * 1.5));
    camera.position.copy(focus).addScaledVector(offset, Math.max(1, distance / offset.length()));
    camera.lookAt(focus);
    if (c) c.target.copy(focus);
  });
  return null;
}

/**
 * The distance from which the auto camera sees the bodies and every player's head with its name tag, looking along
 * a given direction; it eases towards that (as the focus does) so that heads moving never jerk the view. Allocates
 * nothing per frame.
 */
class Framing {
  readonly offset = new THREE.Vector3();
  /** Interest spheres (x, y, z, radius), reused frame after frame. */
  private readonly spheres: number[] = [];
  private count = 0;
  private distance = 0;
  private readonly centre = new Float64Array(3);
  private readonly forward = new THREE.Vector3();
  private readonly right = new THREE.Vector3();
  private readonly up = new THREE.Vector3();
  private readonly low = new THREE.Vector3();
  private readonly high = new THREE.Vector3();
  private client: PliantRoomClient | null = null;
  private readonly visitPlayer = (player: { role: string; slot: number }, sessionId: string) => {
    const avatar = this.client?.avatars.get(player.slot);
    if (player.role !== "player" || sessionId === this.client?.sessionId || !avatar || !(avatar.mask & 1)) return;
    this.add(avatar.poses[0], avatar.poses[1] + HEAD_FRAME_LIFT, avatar.poses[2], HEAD_FRAME_RADIUS);
  };

  /**
   * With players' heads in the room: moves `focus` (the bodies' centre) most of the way to the middle of bodies and heads,
   * and returns the distance to keep from it along `offset` (camera minus focus) for all of them to be in frame;
   * 0 without heads.
   */
  fit(client: PliantRoomClient, focus: THREE.Vector3, offset: THREE.Vector3, camera: THREE.PerspectiveCamera, delta: number): number {
    this.client = client;
    this.count = 0;
    client.room.state?.players?.forEach(this.visitPlayer);
    const heads = this.count;
    if (heads === 0) {
      this.distance = 0;
      return 0;
    }
    for (const body of client.bodies.values()) {
      const c = shownCentre(body, this.centre);
      this.add(c[0], c[1], c[2], body.body.size / 2);
    }
    this.low.set(Infinity, Infinity, Infinity);
    this.high.set(-Infinity, -Infinity, -Infinity);
    const s = this.spheres;
    for (let i = 0; i < 4 * this.count; i += 4) {
      this.low.set(Math.min(this.low.x, s[i] - s[i + 3]), Math.min(this.low.y, s[i + 1] - s[i + 3]), Math.min(this.low.z, s[i + 2] - s[i + 3]));
      this.high.set(Math.max(this.high.x, s[i] + s[i + 3]), Math.max(this.high.y, s[i + 1] + s[i + 3]), Math.max(this.high.z, s[i + 2] + s[i + 3]));
    }
    focus.lerp(this.low.add(this.high).multiplyScalar(0.5), 0.75);
    // The view's axes, looking from focus + offset at the focus.
    this.forward.copy(offset).normalize().negate();
    this.right.crossVectors(this.forward, THREE.Object3D.DEFAULT_UP).normalize();
    this.up.crossVectors(this.right, this.forward);
    const tanV = Math.tan((camera.fov * Math.PI) / 360), tanH = tanV * camera.aspect;
    let needed = 0;
    for (let i = 0; i < 4 * this.count; i += 4) {
      const x = s[i] - focus.x, y = s[i + 1] - focus.y, z = s[i + 2] - focus.z, r = s[i + 3];
      const across = Math.abs(x * this.right.x + y * this.right.y + z * this.right.z), along = x * this.up.x + y * this.up.y + z * this.up.z;
      const depth = x * this.forward.x + y * this.forward.y + z * this.forward.z;
      const vertical = (Math.abs(along) + r) / (tanV * (along > 0 ? FRAME_TOP : FRAME_BOTTOM));
      // Its distance from the camera is the camera's from the focus plus `depth`.
      needed = Math.max(needed, Math.max((across + r) / (tanH * FRAME_SIDES), vertical) - depth);
    }
    needed = Math.min(AUTO_MAX_DISTANCE, needed);
    this.distance ||= offset.length();
    this.distance += (needed - this.distance) * Math.min(1, delta * 1.5);
    return this.distance;
  }

  private add(x: number, y: number, z: number, r: number): void {
    const i = 4 * this.count++;
    this.spheres[i] = x; this.spheres[i + 1] = y; this.spheres[i + 2] = z; this.spheres[i + 3] = r;
  }
}
