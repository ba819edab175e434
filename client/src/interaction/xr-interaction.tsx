// Hands and controllers in a headset session: squeeze grabs the touched surface (near), the trigger grabs what
// its ray hits (far), a pinch grabs with bare hands, the index fingertip pokes. Two hands on one body stretch it;
// letting go leaves the body with the velocity the hand gave it. Grabs move the body in this very frame (the
// room client predicts them); the server confirms or refuses them. Head and hand poses go out at 20 Hz.

import { useFrame } from "@react-three/fiber";
import { useXR } from "@react-three/xr";
import { useEffect, useRef } from "react";
import type { Hand, PliantRoomClient, Pose } from "../../../shared/net";
import { SurfacePicker } from "./surface-pick";
import { xrInputs } from "./xr-inputs";

/** A squeeze grabs surface within this distance of the grip, m. */
const NEAR_GRAB = 0.06;
/** A pinch starts below this thumb-index distance and ends above the second (hysteresis), m. */
const PINCH_START = 0.018;
const PINCH_END = 0.035;
const FAR_GRAB_REACH = 6;
const FAR_GRAB_RADIUS = 0.03;
/**
 * Fingertip sphere radius sent with pokes, m, and how near the surface a fingertip starts poking. Wider than a
 * finger (~9 mm): bodies feel contacts at surface samples about 1.2 cm apart, and a thinner sphere slips between
 * them into the body.
 */
const POKE_RADIUS = 0.015;
const POKE_NEAR = 0.04;
const POSE_INTERVAL_MS = 50;
/** A held controller buzzes this often, harder the further the grab is pulled from the material it holds. */
const HAPTIC_INTERVAL_MS = 90;
const POKE_INTERVAL_MS = 33;
/** Where an ended fingertip is said to be (radius 0 ends it wherever it is). */
const PARKED_TIP: [number, number, number] = [0, 0, 0];

interface HandState {
  /** "squeeze" | "trigger" | "pinch" while held. */
  holding: "squeeze" | "trigger" | "pinch" | null;
  /** Grab point relative to the holding pose, in its local frame. */
  offset: [number, number, number];
  wasSqueeze: boolean;
  wasTrigger: boolean;
  pinching: boolean;
  poking: boolean;
  lastPoke: number;
  lastBuzz: number;
}

const newHandState = (): HandState => ({ holding: null, offset: [0, 0, 0], wasSqueeze: false, wasTrigger: false, pinching: false, poking: false, lastPoke: 0, lastBuzz: 0 });

export function XRInteraction({ client, canGrab, onNotice }: { client: PliantRoomClient; canGrab: boolean; onNotice: (message: string) => void }) {
  const picker = useRef(new SurfacePicker()).current;
  const hands = useRef<Record<"left" | "right", HandState>>({ left: newHandState(), right: newHandState() }).current;
  const lastPose = useRef(0);
  // Reused every frame: the XR loop allocates nothing per frame but what the network layer copies.
  const poses = useRef({ head: newPose(), left: newPose(), right: newPose(), target: [0, 0, 0] as [number, number, number], tip: [0, 0, 0] as [number, number, number], mid: [0, 0, 0] as [number, number, number], direction: [0, 0, 0] as [number, number, number] }).current;
  const pose = useRef<Record<"head" | "left" | "right", Pose | null>>({ head: null, left: null, right: null }).current;
  const xrSession = useXR((s) => s.session);

  // A headset taken off (hidden session: no more frames) or a session that ends lets go of its fingertips at once.
  useEffect(() => {
    if (!xrSession) return;
    const letGo = () => {
      endPoke("left", hands.left);
      endPoke("right", hands.right);
    };
    const hidden = () => {
      if (xrSession.visibilityState === "hidden") letGo();
    };
    xrSession.addEventListener("visibilitychange", hidden);
    xrSession.addEventListener("end", letGo);
    return () => {
      xrSession.removeEventListener("visibilitychange", hidden);
      xrSession.removeEventListener("end", letGo);
      letGo();
    };
  }, [xrSession, client]);

  useFrame((three, _delta, frame: XRFrame | undefined) => {
    const session = frame?.session;
    const space = three.gl.xr.getReferenceSpace();
    if (!frame || !session || !space) return;
    const viewer = frame.getViewerPose(space);
    pose.head = viewer ? toPose(viewer.transform, poses.head) : null;
    pose.left = pose.right = null;
    const now = performance.now();
    let tracked = 0;
    for (const source of session.inputSources) {
      const side = source.handedness;
      if (side !== "left" && side !== "right") continue;
      const state = hands[side];
      const inputs = xrInputs[side];
      if (source.hand) {
        const tip = frame.getJointPose?.(source.hand.get("index-finger-tip")!, space);
        const thumb = frame.getJointPose?.(source.hand.get("thumb-tip")!, space);
        const wrist = frame.getJointPose?.(source.hand.get("wrist")!, space);
        if (!tip || !thumb) continue;
        tracked |= side === "left" ? 1 : 2;
        const t = tip.transform.position, th = thumb.transform.position;
        inputs.indexTip = store3(inputs.indexTip, t.x, t.y, t.z);
        inputs.grip = wrist ? store3(inputs.grip, wrist.transform.position.x, wrist.transform.position.y, wrist.transform.position.z) : null;
        // Other pages draw a hand from its grip pose, a tracked hand's as a controller's (the wrist's frame differs).
        const grip = source.gripSpace ? frame.getPose(source.gripSpace, space) : null;
        pose[side] = grip ? toPose(grip.transform, poses[side]) : null;
        const gap = Math.hypot(t.x - th.x, t.y - th.y, t.z - th.z);
        inputs.pinchGap = gap;
        const mid = store3(poses.mid, (t.x + th.x) / 2, (t.y + th.y) / 2, (t.z + th.z) / 2);
        if (!state.pinching && gap < PINCH_START) {
          state.pinching = true;
          if (canGrab && !state.holding) {
            const hit = picker.nearest(client.bodies.values(), mid[0], mid[1], mid[2], NEAR_GRAB, client.characters.all.values());
            if (hit) start(side, state, hit.bodyId, hit.point, "pinch", [hit.point[0] - mid[0], hit.point[1] - mid[1], hit.point[2] - mid[2]], undefined);
          }
        } else if (state.pinching && gap > PINCH_END) {
          state.pinching = false;
          if (state.holding === "pinch") end(side, state);
        }
        if (state.holding === "pinch") {
          const target = poses.target;
          target[0] = mid[0] + state.offset[0]; target[1] = mid[1] + state.offset[1]; target[2] = mid[2] + state.offset[2];
          client.moveGrab(side, target);
        }
        // Fingertip pokes: only a free hand near a body. A pinch (a grab) or a paused room ends the fingertip.
        if (!canGrab || state.pinching) endPoke(side, state);
        else if (now - state.lastPoke >= POKE_INTERVAL_MS) {
          const near = picker.nearest(client.bodies.values(), t.x, t.y, t.z, POKE_NEAR, client.characters.all.values());
          const tip = poses.tip;
          tip[0] = t.x; tip[1] = t.y; tip[2] = t.z;
          if (near) {
            client.poke(side, tip, POKE_RADIUS);
            state.lastPoke = now;
            state.poking = true;
          } else endPoke(side, state);
        }
        continue;
      }
      // A controller pokes nothing: a hand that just became one ends its fingertip.
      endPoke(side, state);
      const grip = frame.getPose(source.gripSpace ?? source.targetRaySpace, space);
      if (!grip) continue;
      const g = grip.transform;
      inputs.grip = store3(inputs.grip, g.position.x, g.position.y, g.position.z);
      inputs.indexTip = null;
      inputs.pinchGap = null;
      pose[side] = toPose(g, poses[side]);
      const buttons = source.gamepad?.buttons;
      const squeeze = (buttons?.[1]?.value ?? 0) > 0.5;
      const trigger = (buttons?.[0]?.value ?? 0) > 0.5;
      if (squeeze && !state.wasSqueeze && canGrab && !state.holding) {
        const hit = picker.nearest(client.bodies.values(), g.position.x, g.position.y, g.position.z, NEAR_GRAB, client.characters.all.values());
        if (hit) start(side, state, hit.bodyId, hit.point, "squeeze", localOffset(g, hit.point), source);
      }
      const ray = frame.getPose(source.targetRaySpace, space);
      if (ray) {
        const r = ray.transform, d = forward(r, poses.direction);
        const stored = inputs.ray ?? [0, 0, 0, 0, 0, 0];
        stored[0] = r.position.x; stored[1] = r.position.y; stored[2] = r.position.z; stored[3] = d[0]; stored[4] = d[1]; stored[5] = d[2];
        inputs.ray = stored;
      }
      if (trigger && !state.wasTrigger && canGrab && !state.holding) {
        if (ray) {
          const r = ray.transform, d = poses.direction;
          const hit = picker.ray(client.bodies.values(), r.position.x, r.position.y, r.position.z, d[0], d[1], d[2], FAR_GRAB_REACH, FAR_GRAB_RADIUS, undefined, client.characters.all.values());
          // Held on a stick from the grip: the body follows the controller's motion and turns.
          if (hit) start(side, state, hit.bodyId, hit.point, "trigger", localOffset(g, hit.point), source);
        }
      }
      if ((state.holding === "squeeze" && !squeeze) || (state.holding === "trigger" && !trigger)) end(side, state);
      state.wasSqueeze = squeeze;
      state.wasTrigger = trigger;
      if (state.holding) {
        client.moveGrab(side, fromLocal(g, state.offset, poses.target));
        const strain = client.grabStrain(side);
        if (strain > 0.05 && now - state.lastBuzz >= HAPTIC_INTERVAL_MS) {
          state.lastBuzz = now;
          pulse(source, 0.15 + 0.85 * strain, HAPTIC_INTERVAL_MS);
        }
      }
    }
    // A fingertip whose hand lost tracking (or left) ends now, not when the server stops waiting for it.
    if (!(tracked & 1)) endPoke("left", hands.left);
    if (!(tracked & 2)) endPoke("right", hands.right);
    if (pose.head && now - lastPose.current >= POSE_INTERVAL_MS) {
      lastPose.current = now;
      client.sendPose(pose.head, pose.left, pose.right);
    }
  });

  function start(side: Hand & ("left" | "right"), state: HandState, bodyId: string, point: [number, number, number], how: HandState["holding"], offset: [number, number, number], source: XRInputSource | undefined) {
    state.holding = how;
    state.offset = offset;
    xrInputs[side].holding = bodyId;
    void client.grab(side, bodyId, point).then((result) => {
      if (result.ok) pulse(source, 0.6, 40);
      else {
        if (state.holding === how) state.holding = null;
        xrInputs[side].holding = null;
        onNotice(`grab refused: ${result.reason ?? "no reason given"}`);
      }
    });
  }

  function endPoke(side: "left" | "right", state: HandState) {
    if (!state.poking) return;
    state.poking = false;
    client.poke(side, PARKED_TIP, 0);
  }

  function end(side: "left" | "right", state: HandState) {
    state.holding = null;
    xrInputs[side].holding = null;
    client.release(side);
  }

  return null;
}

const newPose = (): Pose => [0, 0, 0, 0, 0, 0, 1];

/** Writes a point into `into` (made once when missing). */
function store3(into: [number, number, number] | null, x: number, y: number, z: number): [number, number, number] {
  const out = into ?? [0, 0, 0];
  out[0] = x; out[1] = y; out[2] = z;
  return out;
}

function toPose(t: XRRigidTransform, out: Pose): Pose {
  out[0] = t.position.x; out[1] = t.position.y; out[2] = t.position.z;
  out[3] = t.orientation.x; out[4] = t.orientation.y; out[5] = t.orientation.z; out[6] = t.orientation.w;
  return out;
}

/** A world point in a pose's local frame. */
function localOffset(t: XRRigidTransform, p: [number, number, number]): [number, number, number] {
  const q = t.orientation;
  return rotate(-q.x, -q.y, -q.z, q.w, p[0] - t.position.x, p[1] - t.position.y, p[2] - t.position.z, [0, 0, 0]);
}

function fromLocal(t: XRRigidTransform, local: [number, number, number], out: [number, number, number]): [number, number, number] {
  const q = t.orientation;
  rotate(q.x, q.y, q.z, q.w, local[0], local[1], local[2], out);
  out[0] += t.position.x; out[1] += t.position.y; out[2] += t.position.z;
  return out;
}

function forward(t: XRRigidTransform, out: [number, number, number]): [number, number, number] {
  const q = t.orientation;
  return rotate(q.x, q.y, q.z, q.w, 0, 0, -1, out);
}

function rotate(qx: number, qy: number, qz: number, qw: number, x: number, y: number, z: number, out: [number, number, number]): [number, number, number] {
  // v' = v + 2 w (q x v) + 2 q x (q x v)
  const cx = qy * z - qz * y, cy = qz * x - qx * z, cz = qx * y - qy * x;
  out[0] = x + 2 * (qw * cx + qy * cz - qz * cy);
  out[1] = y + 2 * (qw * cy + qz * cx - qx * cz);
  out[2] = z + 2 * (qw * cz + qx * cy - qy * cx);
  return out;
}

function pulse(source: XRInputSource | undefined, intensity: number, ms: number): void {
  const actuator = (source?.gamepad as (Gamepad & { hapticActuators?: { pulse?: (i: number, d: number) => Promise<boolean> }[] }) | undefined)?.hapticActuators?.[0];
  void actuator?.pulse?.(intensity, ms)?.catch(() => undefined);
}
