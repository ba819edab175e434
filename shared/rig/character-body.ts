// A rigged character whose flesh answers physically: complementary dynamics in a reduced subspace. A point of the
// body is where the rig puts it plus a soft displacement u = B q (the body's subspace) that the rig could not make:
// J^T M u = 0 at the current pose (complementary-projection.ts, kept by projection after every step).
//
// The soft part lives in the character's frame (a placement: a position and a turn about the vertical, in which the
// clip plays), measured in the body's metres from the bind pose, so the existing solver steps it: its elastic energy
// is the bind pose's, its contacts and grabs act on the posed surface samples, and the rig's motion drives it by its
// inertia, the fictitious force -M a_rig (a_rig: every point's acceleration under the rig and the frame, turned into
// the frame; one small product per joint with the joints' mass moments, rig-moments.ts). Forces that depend on u
// itself in a turning frame (Coriolis, centrifugal: the frame turns at walking pace, ~0.5 rad/s, against flesh
// ringing at several Hz) are left out, and so is gravity's static load: the authored pose is the shape under
// gravity, so its weight is balanced at rest and only the rig's accelerations, contacts and hands move the flesh.

import { SoftBody, Subspace, type Material, type SolverOptions, type StepStats } from "../sim";
import { toSubspaceSource, type BakedBody } from "../skinning/baked-body";
import { rigOf } from "../skinning/baked-rig";
import { ComplementaryProjection } from "./complementary-projection";
import type { Rig, RigClip } from "./rig";
import { RigMoments, skinWeightsAt } from "./rig-moments";
import { RigPose } from "./rig-pose";

export class CharacterBody {
  readonly body: SoftBody;
  readonly subspace: Subspace;
  readonly rig: Rig;
  /** The rig's pose for the next step: sample a clip into it before stepping. */
  readonly pose: RigPose;
  readonly projection: ComplementaryProjection;
  readonly moments: RigMoments;
  /** The character's frame: where its origin stands in the world, and its turn about +y (rad). */
  readonly framePosition = new Float64Array(3);
  frameYaw = 0;
  /** Rig units to the body's metres: y = scale (r - centre). */
  readonly unitScale: number;
  readonly unitCentre: Float64Array;
  /** At the last step's pose, in the frame (body metres): each joint's skinning matrix (16) and position (3). */
  readonly jointMatrices: Float64Array;
  readonly jointPositions: Float64Array;
  /** The surface samples in the bind pose (body metres) and their skin weights. */
  private readonly surfaceBind: Float64Array;
  private readonly surfaceSkin: { joints: Uint16Array; weights: Float32Array };
  private readonly posedSurface: Float64Array;
  /** The joints' world matrices at the last three steps (newest first), for the rig's acceleration. */
  private readonly worldHistory: Float64Array;
  private historyCount = 0;
  private readonly force: Float64Array;

  constructor(baked: BakedBody, size: number, material: Material, options: Partial<SolverOptions> = {}) {
    const rig = rigOf(baked);
    if (!rig) throw new Error("a character needs a rigged bake");
    this.rig = rig;
    this.pose = new RigPose(rig);
    // Its own subspace: the surface samples' posed positions are written into it every step.
    this.subspace = new Subspace(toSubspaceSource(baked, size));
    this.body = new SoftBody(this.subspace, material, { ...options, gravity: [0, 0, 0] });
    this.moments = new RigMoments(baked, size);
    this.projection = new ComplementaryProjection(this.subspace, this.moments, rig.jointNodes, rig.parents);
    this.body.setConstraint(this.projection);
    this.unitScale = size / 2 / baked.scale;
    this.unitCentre = Float64Array.from(baked.center);
    const joints = rig.jointNodes.length;
    this.jointMatrices = new Float64Array(16 * joints);
    this.jointPositions = new Float64Array(3 * joints);
    this.surfaceBind = Float64Array.from(this.subspace.surfaceRest);
    this.surfaceSkin = skinWeightsAt(baked, baked.surfacePositions);
    this.posedSurface = new Float64Array(this.surfaceBind.length);
    this.worldHistory = new Float64Array(3 * 16 * joints);
    this.force = new Float64Array(this.body.n);
  }

  setFrame(x: number, y: number, z: number, yaw: number): void {
    this.framePosition[0] = x; this.framePosition[1] = y; this.framePosition[2] = z;
    this.frameYaw = yaw;
  }

  /** Forget the rig's past motion (after a jump in pose or frame): its acceleration counts from the next steps. */
  restartMotion(): void {
    this.historyCount = 0;
  }

  /** One step of the soft part under the pose and frame set now. */
  step(): StepStats {
    this.poseInFrame();
    this.rememberWorldPose();
    if (this.historyCount >= 3) {
      this.rigInertia(this.force);
      this.body.addGeneralisedForce(this.force);
    }
    this.poseSurface();
    this.body.setSurfacePose(this.posedSurface);
    this.projection.update(this.jointMatrices, this.jointPositions);
    return this.body.step();
  }

  /** The lowest surface sample (frame y, m) over a clip's poses at 60 Hz: where a floor under it goes. */
  lowestPoint(clip: RigClip): number {
    let lowest = Infinity;
    for (let t = 0; t <= clip.duration; t += 1 / 60) {
      this.pose.sample(clip, t);
      this.poseInFrame();
      this.poseSurface();
      for (let i = 1; i < this.posedSurface.length; i += 3) lowest = Math.min(lowest, this.posedSurface[i]);
    }
    return lowest;
  }

  /** RMS over the surface samples of the soft displacement |B q| (m). */
  softRms(): number {
    const s = this.subspace, m = s.m, q = this.body.q, rows = s.surfaceRows;
    let sum = 0;
    for (let i = 0; i < s.surfaceCount; i++) {
      let ux = 0, uy = 0, uz = 0;
      for (let k = 0; k < m; k++) {
        const b = rows[i * m + k];
        ux += b * q[k]; uy += b * q[m + k]; uz += b * q[2 * m + k];
      }
      sum += ux * ux + uy * uy + uz * uz;
    }
    return Math.sqrt(sum / s.surfaceCount);
  }

  /** A frame point (body metres) in the world, into out[o..o+2]. */
  toWorld(x: number, y: number, z: number, out: Float64Array, o = 0): void {
    const c = Math.cos(this.frameYaw), s = Math.sin(this.frameYaw), p = this.framePosition;
    out[o] = p[0] + c * x + s * z;
    out[o + 1] = p[1] + y;
    out[o + 2] = p[2] - s * x + c * z;
  }

  /** A world point in the frame (body metres), into out[o..o+2]. */
  toFrame(x: number, y: number, z: number, out: Float64Array, o = 0): void {
    const c = Math.cos(this.frameYaw), s = Math.sin(this.frameYaw), p = this.framePosition;
    const dx = x - p[0], dz = z - p[2];
    out[o] = c * dx - s * dz;
    out[o + 1] = y - p[1];
    out[o + 2] = s * dx + c * dz;
  }

  /** The pose's joint matrices and positions, from rig units to the frame's metres. */
  private poseInFrame(): void {
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

  /** Pushes the joints' world matrices (frame x joint) onto the three-step history. */
  private rememberWorldPose(): void {
    const joints = this.rig.jointNodes.length, size = 16 * joints, h = this.worldHistory;
    h.copyWithin(size, 0, 2 * size);
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
    this.historyCount = Math.min(3, this.historyCount + 1);
  }

  /**
   * The generalised force of the rig's inertia, -rho sum_k R^T A_k P_k (A_k: joint k's world matrix's second
   * difference over the last three steps, / dt^2), into `out`.
   */
  private rigInertia(out: Float64Array): void {
    const joints = this.rig.jointNodes.length, size = 16 * joints, h = this.worldHistory, m = this.body.m, p = this.moments.moments;
    const dt = this.body.options.dt, scale = -this.body.material.density / (dt * dt);
    const cos = Math.cos(this.frameYaw), sin = Math.sin(this.frameYaw);
    out.fill(0);
    for (let j = 0; j < joints; j++) {
      const o = 16 * j, po = 4 * j * m;
      for (let col = 0; col < 4; col++) {
        const e = o + 4 * col;
        const ax = h[e] - 2 * h[size + e] + h[2 * size + e];
        const ay = h[e + 1] - 2 * h[size + e + 1] + h[2 * size + e + 1];
        const az = h[e + 2] - 2 * h[size + e + 2] + h[2 * size + e + 2];
        // Into the frame: R^T for a turn about +y.
        const fx = scale * (cos * ax - sin * az), fy = scale * ay, fz = scale * (sin * ax + cos * az);
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

  /** The surface samples where the pose puts them (frame, body metres): linear blend skinning of the bind pose. */
  private poseSurface(): void {
    const bind = this.surfaceBind, out = this.posedSurface, { joints, weights } = this.surfaceSkin, mat = this.jointMatrices;
    for (let i = 0; i < bind.length / 3; i++) {
      const x = bind[3 * i], y = bind[3 * i + 1], z = bind[3 * i + 2];
      let ox = 0, oy = 0, oz = 0;
      for (let k = 0; k < 4; k++) {
        const w = weights[4 * i + k];
        if (w === 0) continue;
        const o = 16 * joints[4 * i + k];
        ox += w * (mat[o] * x + mat[o + 4] * y + mat[o + 8] * z + mat[o + 12]);
        oy += w * (mat[o + 1] * x + mat[o + 5] * y + mat[o + 9] * z + mat[o + 13]);
        oz += w * (mat[o + 2] * x + mat[o + 6] * y + mat[o + 10] * z + mat[o + 14]);
      }
      out[3 * i] = ox; out[3 * i + 1] = oy; out[3 * i + 2] = oz;
    }
  }
}
