// A rigged shape posed by its clips, in the bake's normalised units, and what a field provider sees of a posed
// frame: the deformed surface renormalised to [-1, 1]^3 (as a bake of that pose would see it), with the map from
// the frame's points into those units. Material points follow the pose by linear blend skinning with the skin
// weights of their nearest bind-pose vertex (as the rig's moments do), so correspondences come with the motion.

import { normaliseMesh, sampleSurface, type TriangleMesh } from "../geometry";
import type { Rig, RigClip } from "../skeleton/rig";
import { linearBlendSkin, RigPose } from "../skeleton/rig-pose";
import { nearestVertexSkin, type PointSkin } from "./point-skin";

/** A rigged mesh in normalised units (normaliseMesh's output) and the normalisation's centre and scale. */
export interface RiggedShape {
  mesh: TriangleMesh;
  rig: Rig;
  skinJoints: ArrayLike<number>;
  skinWeights: ArrayLike<number>;
  center: ArrayLike<number>;
  scale: number;
}

export function isRiggedMesh(mesh: TriangleMesh): boolean {
  return !!(mesh.rig && mesh.skinJoints && mesh.skinWeights && mesh.rig.clips.length > 0);
}

/** A posable copy of a rigged shape: pose a clip at a time, then read the posed vertices or carry points. */
export class ShapePoser {
  /** The last pose's skinning matrices in normalised units (16 per joint, column-major). */
  readonly matrices: Float64Array;
  /** The render vertices where the last pose puts them (normalised bind units). */
  readonly vertices: Float64Array;
  private readonly pose: RigPose;
  private readonly vertexSkin: PointSkin;

  constructor(readonly shape: RiggedShape) {
    this.pose = new RigPose(shape.rig);
    this.matrices = new Float64Array(16 * shape.rig.jointNodes.length);
    this.vertices = Float64Array.from(shape.mesh.positions);
    this.vertexSkin = { joints: Uint16Array.from(shape.skinJoints), weights: Float32Array.from(shape.skinWeights) };
    this.rest();
  }

  /** The bind pose (the rest pose of a typical export). */
  rest(): void {
    this.pose.rest();
    this.take();
  }

  /** `clip` at time t, s. */
  sample(clip: RigClip, t: number): void {
    this.pose.sample(clip, t);
    this.take();
  }

  /** Each point's four joints and weights: those of its nearest bind-pose vertex. */
  skinAt(points: ArrayLike<number>): PointSkin {
    return nearestVertexSkin(this.shape.mesh.positions, this.vertexSkin.joints, this.vertexSkin.weights, points);
  }

  /** Bind-pose points (normalised) where the last pose puts them, into out. */
  carry(points: ArrayLike<number>, skin: PointSkin, out: Float64Array): void {
    linearBlendSkin(this.matrices, points, skin.joints, skin.weights, out);
  }

  /** Point i's blended linear part sum_k w_k A_k (the carry's Jacobian), 9 numbers column-major into out. */
  jacobian(skin: PointSkin, i: number, out: Float64Array): void {
    out.fill(0);
    const m = this.matrices;
    for (let k = 0; k < 4; k++) {
      const w = skin.weights[4 * i + k];
      if (w === 0) continue;
      const j = 16 * skin.joints[4 * i + k];
      for (let col = 0; col < 3; col++) for (let row = 0; row < 3; row++) out[3 * col + row] += w * m[j + 4 * col + row];
    }
  }

  /** The pose's joint matrices from rig units to normalised ones (x = (r - c) / s), then the posed vertices. */
  private take(): void {
    const joints = this.pose.joints, c = this.shape.center, s = this.shape.scale, m = this.matrices;
    for (let j = 0; j < joints.length / 16; j++) {
      const o = 16 * j;
      for (let e = 0; e < 12; e++) m[o + e] = joints[o + e];
      // y = (A (s x + c) + t - c) / s: the linear part stays, the translation becomes (A c + t - c) / s.
      for (let a = 0; a < 3; a++) {
        const moved = joints[o + a] * c[0] + joints[o + 4 + a] * c[1] + joints[o + 8 + a] * c[2] + joints[o + 12 + a];
        m[o + 12 + a] = (moved - c[a]) / s;
      }
      m[o + 15] = 1;
    }
    linearBlendSkin(m, this.shape.mesh.positions, this.vertexSkin.joints, this.vertexSkin.weights, this.vertices);
  }
}

/** What a provider sees of a deformed frame, and the map from the frame's units into the provider's. */
export interface FrameView {
  surfacePoints: Float64Array;
  surfaceNormals: Float64Array;
  /** The frame's renormalisation: provider units = (p - center) / scale. */
  center: [number, number, number];
  scale: number;
  /** The deformed mesh in provider units. */
  mesh: TriangleMesh;
}

/** The deformed mesh (positions in any units, the rest mesh's triangles) as a bake would see it: renormalised and sampled. */
export function frameView(positions: Float64Array, triangles: Uint32Array, surfaceCount: number, seed: number): FrameView {
  const normalised = normaliseMesh({ positions, triangles });
  const surface = sampleSurface(normalised.mesh, surfaceCount, seed);
  return { surfacePoints: surface.points, surfaceNormals: surface.normals, center: normalised.center, scale: normalised.scale, mesh: normalised.mesh };
}

/** Points of the frame (its units) into the provider's: (p - center) / scale, into out. */
export function intoFrameView(view: FrameView, points: ArrayLike<number>, out: Float64Array): void {
  const c = view.center, s = 1 / view.scale;
  for (let i = 0; i < points.length; i += 3) {
    out[i] = (points[i] - c[0]) * s;
    out[i + 1] = (points[i + 1] - c[1]) * s;
    out[i + 2] = (points[i + 2] - c[2]) * s;
  }
}

/** `count` times spread evenly over [0, duration) of a clip (a looping clip's end is its start). */
export function clipTimes(clip: RigClip, count: number): number[] {
  return Array.from({ length: count }, (_, i) => (clip.duration * i) / count);
}

/**
 * How strained a deformed mesh is against its rest: sum over triangle edges of ((|e| - |e0|) / |e0|)^2 |e0|, a
 * spring energy per unit stiffness, in the units of `rest` (a rigid motion gives 0).
 */
export function edgeStrainEnergy(rest: Float64Array, deformed: Float64Array, triangles: Uint32Array): number {
  let energy = 0;
  for (let t = 0; t < triangles.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const a = 3 * triangles[t + e], b = 3 * triangles[t + ((e + 1) % 3)];
      const l0 = Math.hypot(rest[a] - rest[b], rest[a + 1] - rest[b + 1], rest[a + 2] - rest[b + 2]);
      if (!(l0 > 0)) continue;
      const l = Math.hypot(deformed[a] - deformed[b], deformed[a + 1] - deformed[b + 1], deformed[a + 2] - deformed[b + 2]);
      energy += ((l - l0) / l0) ** 2 * l0;
    }
  }
  return energy;
}
