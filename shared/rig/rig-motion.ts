// Where a rig puts a body, step by step, in what complementary dynamics needs: the character's frame (a position
// and a turn about +y, in which the clip plays), the pose's skinning matrices and joint positions in the frame and
// the body's metres, the surface samples where the pose puts them, and the rig's inertia on the flesh: the
// generalised force -rho sum_k R^T A_k P_k, with A_k a joint's world matrix's second difference over the last three
// steps (its acceleration, frame motion included) and P_k its mass moments (rig-moments.ts).

import type { BakedBody } from "../skinning/baked-body";
import type { Rig, RigClip } from "../skeleton/rig";
import { hasRigMoments, RigMoments } from "./rig-moments";
import { skinWeightsAt } from "../skinning/point-skin";
import { linearBlendSkin, RigPose } from "../skeleton/rig-pose";

/** Span of the acceleration's second difference, s (keys of the fox's clips are 1/24 s apart). */
export const ACCELERATION_WINDOW = 1 / 20;
/** Numbers per joint in `kinematics`: velocity and acceleration of a 3 x 4 affine matrix. */
export const KINEMATIC_FEATURES = 24;
/** Steps of history kept: enough for the window at 240 Hz. */
const HISTORY = 2 * Math.ceil(ACCELERATION_WINDOW * 240) + 1;

export class RigMotion {
  /** The rig's pose for the next step: sample a clip into it, then `advance`. */
  readonly pose: RigPose;
  /** Null for a client's copy of a bake (no mass samples): such a motion poses and frames, and has no inertia. */
  readonly moments: RigMoments | null;
  /** The character's frame: where its origin stands in the world, and its turn about +y (rad). */
  readonly framePosition = new Float64Array(3);
  frameYaw = 0;
  /** Rig units to the body's metres: y = unitScale (r - unitCentre). */
  readonly unitScale: number;
  readonly unitCentre: Float64Array;
  /** At the last advance, in the frame (body metres): each joint's skinning matrix (16) and position (3). */
  readonly jointMatrices: Float64Array;
  readonly jointPositions: Float64Array;
  /** The surface samples where the last advance's pose puts them (frame, body metres). */
  readonly posedSurface: Float64Array;
  /** The surface samples in the bind pose (body metres) and their skin weights. */
  private readonly surfaceBind: Float64Array;
  private readonly surfaceSkin: { joints: Uint16Array; weights: Float32Array };
  /** The joints' world matrices at the last HISTORY advances (newest first), and their skinning matrices in the frame. */
  private readonly worldHistory: Float64Array;
  private readonly frameHistory: Float64Array;
  private historyCount = 0;

  constructor(readonly rig: Rig, baked: BakedBody, size: number) {
    this.pose = new RigPose(rig);
    this.moments = hasRigMoments(baked) ? new RigMoments(baked, size) : null;
    this.unitScale = size / 2 / baked.scale;
    this.unitCentre = Float64Array.from(baked.center);
    const joints = rig.jointNodes.length;
    this.jointMatrices = new Float64Array(16 * joints);
    this.jointPositions = new Float64Array(3 * joints);
    this.surfaceBind = baked.surfacePositions.map((v) => (v * size) / 2);
    this.surfaceSkin = skinWeightsAt(baked, baked.surfacePositions);
    this.posedSurface = new Float64Array(this.surfaceBind.length);
    this.worldHistory = new Float64Array(HISTORY * 16 * joints);
    this.frameHistory = new Float64Array(HISTORY * 16 * joints);
  }

  setFrame(x: number, y: number, z: number, yaw: number): void {
    this.framePosition[0] = x; this.framePosition[1] = y; this.framePosition[2] = z;
    this.frameYaw = yaw;
  }

  /** Forget the past motion (after a jump in pose or frame): the acceleration is known again once the window is seen. */
  restart(): void {
    this.historyCount = 0;
  }

  /** Whether the acceleration is known at steps of `dt` (the window's poses have been seen since the last restart). */
  moving(dt: number): boolean {
    return this.historyCount >= 2 * windowSteps(dt) + 1;
  }

  /** Takes in the pose and frame set now: joint matrices, the posed surface, the acceleration's history. */
  advance(): void {
    this.poseJoints();
    this.poseSurface();
    this.rememberWorldPose();
  }

  /** The lowest surface sample (frame y, m) over a clip's poses at 60 Hz: where a floor under it goes. */
  lowestPoint(clip: RigClip): number {
    let lowest = Infinity;
    for (let t = 0; t <= clip.duration; t += 1 / 60) {
      this.pose.sample(clip, t);
      this.poseJoints();
      this.poseSurface();
      for (let i = 1; i < this.posedSurface.length; i += 3) lowest = Math.min(lowest, this.posedSurface[i]);
    }
    return lowest;
  }

  /** A frame point (body metres) in the world, into out[o..o+2]. */
  toWorld(x: number, y: number, z: number, out: Float64Array, o = 0): void {
    const c = Math.cos(this.frameYaw), s = Math.sin(this.frameYaw), p = this.framePosition;
    out[o] = p[0] + c * x + s * z;
    out[o + 1] = p[1] + y;
    out[o + 2] = p[2] - s * x + c * z;
  }

  /** toWorld for `count` frame points (points[3i..3i+2]) into out, the turn's sine and cosine taken once. */
  pointsToWorld(count: number, points: Float64Array, out: Float64Array): void {
    const c = Math.cos(this.frameYaw), s = Math.sin(this.frameYaw), p = this.framePosition;
    for (let i = 0; i < 3 * count; i += 3) {
      const x = points[i], y = points[i + 1], z = points[i + 2];
      out[i] = p[0] + c * x + s * z;
      out[i + 1] = p[1] + y;
      out[i + 2] = p[2] - s * x + c * z;
    }
  }

  /** `count` world directions (directions[3i..3i+2]) turned into the frame (toFrame without the translation). */
  directionsToFrame(count: number, directions: Float64Array, out: Float64Array): void {
    const c = Math.cos(this.frameYaw), s = Math.sin(this.frameYaw);
    for (let i = 0; i < 3 * count; i += 3) {
      const x = directions[i], y = directions[i + 1], z = directions[i + 2];
      out[i] = c * x - s * z;
      out[i + 1] = y;
      out[i + 2] = s * x + c * z;
    }
  }

  /** A world point in the frame (body metres), into out[o..o+2]. */
  toFrame(x: number, y: number, z: number, out: Float64Array, o = 0): void {
    const c = Math.cos(this.frameYaw), s = Math.sin(this.frameYaw), p = this.framePosition;
    const dx = x - p[0], dz = z - p[2];
    out[o] = c * dx - s * dz;
    out[o + 1] = y - p[1];
    out[o + 2] = s * dx + c * dz;
  }

  /**
   * The generalised force (3m, the body's coordinates) of the rig's inertia on a body of `density` over steps of
   * `dt`, into `out`; zeros until the motion is known.
   */
  inertiaForce(density: number, dt: number, out: Float64Array): void {
    out.fill(0);
    const moments = this.moments;
    if (!moments) throw new Error("the rig's inertia needs its mass moments (a server bake, or a client copy made since they travel)");
    if (!this.moving(dt)) return;
    const k = windowSteps(dt), joints = this.rig.jointNodes.length, size = 16 * joints, h = this.worldHistory, m = moments.m, p = moments.moments;
    const span = k * dt, scale = -density / (span * span), cos = Math.cos(this.frameYaw), sin = Math.sin(this.frameYaw);
    const back = k * size, back2 = 2 * k * size;
    for (let j = 0; j < joints; j++) {
      const o = 16 * j, po = 4 * j * m;
      for (let col = 0; col < 4; col++) {
        const e = o + 4 * col;
        const ax = h[e] - 2 * h[back + e] + h[back2 + e];
        const ay = h[e + 1] - 2 * h[back + e + 1] + h[back2 + e + 1];
        const az = h[e + 2] - 2 * h[back + e + 2] + h[back2 + e + 2];
        // Into the frame: R^T for a turn about +y.
        const fx = scale * (cos * ax - sin * az), fy = scale * ay, fz = scale * (sin * ax + cos * az);
        if (fx === 0 && fy === 0 && fz === 0) continue;
        const row = po + col * m;
        for (let r = 0; r < m; r++) {
          const pr = p[row + r];
          out[r] += fx * pr;
          out[m + r] += fy * pr;
          out[2 * m + r] += fz * pr;
        }
      }
    }
  }

  /**
   * What a learned layer reads of the rig's recent motion, KINEMATIC_FEATURES per joint into out[offset..]: the
   * velocity of its skinning matrix's 12 affine entries in the frame (the pose changing, the frame's own walk left
   * out), then their acceleration in the world turned into the frame's axes (what the inertia force is made of),
   * both over the acceleration's window; zeros until the motion is known.
   */
  kinematics(dt: number, out: Float32Array | Float64Array, offset = 0): void {
    const joints = this.rig.jointNodes.length;
    out.fill(0, offset, offset + KINEMATIC_FEATURES * joints);
    if (!this.moving(dt)) return;
    const k = windowSteps(dt), span = k * dt, size = 16 * joints, back = k * size, back2 = 2 * k * size;
    const h = this.worldHistory, f = this.frameHistory, cos = Math.cos(this.frameYaw), sin = Math.sin(this.frameYaw);
    for (let j = 0; j < joints; j++) {
      const o = 16 * j, v = offset + KINEMATIC_FEATURES * j, a = v + 12;
      for (let col = 0; col < 4; col++) {
        const e = o + 4 * col;
        for (let r = 0; r < 3; r++) out[v + 3 * col + r] = (f[e + r] - f[back + e + r]) / span;
        const ax = h[e] - 2 * h[back + e] + h[back2 + e];
        const ay = h[e + 1] - 2 * h[back + e + 1] + h[back2 + e + 1];
        const az = h[e + 2] - 2 * h[back + e + 2] + h[back2 + e + 2];
        out[a + 3 * col] = (cos * ax - sin * az) / (span * span);
        out[a + 3 * col + 1] = ay / (span * span);
        out[a + 3 * col + 2] = (sin * ax + cos * az) / (span * span);
      }
    }
  }

  /** The pose's joint matrices and positions, from rig units to the frame's metres (a page drawing it needs no more). */
  poseJoints(): void {
    const rig = this.rig, k = this.unitScale, c = this.unitCentre, joints = this.pose.joints, world = this.pose.world;
    for (let j = 0; j < rig.jointNodes.length; j++) {
      const o = 16 * j;
      for (let e = 0; e < 12; e++) this.jointMatrices[o + e] = joints[o + e];
      // y = k (r - c): the linear part stays, the translation becomes k (A c + t - c).
      for (let a = 0; a < 3; a++) {
        const moved = joints[o + a] * c[0] + joints[o + 4 + a] * c[1] + joints[o + 8 + a] * c[2] + joints[o + 12 + a];
        this.jointMatrices[o + 12 + a] = k * (moved - c[a]);
      }
      this.jointMatrices[o + 15] = 1;
      const w = 16 * rig.jointNodes[j];
      for (let a = 0; a < 3; a++) this.jointPositions[3 * j + a] = k * (world[w + 12 + a] - c[a]);
    }
  }

  /** Pushes the joints' world matrices (frame x joint) onto the history. */
  private rememberWorldPose(): void {
    const joints = this.rig.jointNodes.length, size = 16 * joints, h = this.worldHistory;
    h.copyWithin(size, 0, (HISTORY - 1) * size);
    this.frameHistory.copyWithin(size, 0, (HISTORY - 1) * size);
    this.frameHistory.set(this.jointMatrices.subarray(0, size));
    const cos = Math.cos(this.frameYaw), sin = Math.sin(this.frameYaw), p = this.framePosition;
    for (let j = 0; j < joints; j++) {
      const o = 16 * j;
      for (let col = 0; col < 4; col++) {
        const x = this.jointMatrices[o + 4 * col], y = this.jointMatrices[o + 4 * col + 1], z = this.jointMatrices[o + 4 * col + 2];
        const w = col === 3 ? 1 : 0;
        h[o + 4 * col] = cos * x + sin * z + w * p[0];
        h[o + 4 * col + 1] = y + w * p[1];
        h[o + 4 * col + 2] = -sin * x + cos * z + w * p[2];
      }
    }
    this.historyCount = Math.min(HISTORY, this.historyCount + 1);
  }

  /** The surface samples where the joints (poseJoints) put them: linear blend skinning of the bind pose. */
  poseSurface(): void {
    linearBlendSkin(this.jointMatrices, this.surfaceBind, this.surfaceSkin.joints, this.surfaceSkin.weights, this.posedSurface);
  }
}

/** Steps between the second difference's poses at steps of dt: the window, at least one step, at most the history. */
function windowSteps(dt: number): number {
  return Math.min((HISTORY - 1) / 2, Math.max(1, Math.round(ACCELERATION_WINDOW / dt)));
}
