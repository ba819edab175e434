// A rig posed: a clip sampled at a time into every node's local transform, then world matrices down the tree, then
// the skin's joint matrices (world x inverse bind). Preallocated once per rig: a frame allocates nothing.

import type { Rig, RigChannel, RigClip } from "./rig";
import { length4 } from "../linalg/vector-length";

export class RigPose {
  /** Local translation, rotation (x y z w) and scale per node, as last sampled. */
  readonly translation: Float64Array;
  readonly rotation: Float64Array;
  readonly scale: Float64Array;
  /** World matrix per node (16, column-major). */
  readonly world: Float64Array;
  /** Skinning matrix per joint: world of its node x its inverse bind matrix (16, column-major). */
  readonly joints: Float64Array;
  /** Per channel of the last clip, the key it was last found at (clips play forward: the search starts there). */
  private cursor = new Int32Array(0);
  private cursorClip: RigClip | null = null;
  private readonly local = new Float64Array(16);
  /** The first clip's local transforms while blending. */
  private readonly blendTranslation: Float64Array;
  private readonly blendRotation: Float64Array;
  private readonly blendScale: Float64Array;

  constructor(readonly rig: Rig) {
    const n = rig.parents.length;
    this.translation = Float64Array.from(rig.restTranslation);
    this.rotation = Float64Array.from(rig.restRotation);
    this.scale = Float64Array.from(rig.restScale);
    this.world = new Float64Array(16 * n);
    this.joints = new Float64Array(16 * rig.jointNodes.length);
    this.blendTranslation = new Float64Array(3 * n);
    this.blendRotation = new Float64Array(4 * n);
    this.blendScale = new Float64Array(3 * n);
    this.update();
  }

  /** The rest pose (the nodes' own transforms: the bind pose of a typical export). */
  rest(): void {
    this.translation.set(this.rig.restTranslation);
    this.rotation.set(this.rig.restRotation);
    this.scale.set(this.rig.restScale);
    this.update();
  }

  /** `clip` at time `t` (s, clamped to the clip), over the rest pose for nodes it does not move. */
  sample(clip: RigClip, t: number): void {
    this.translation.set(this.rig.restTranslation);
    this.rotation.set(this.rig.restRotation);
    this.scale.set(this.rig.restScale);
    if (this.cursorClip !== clip) {
      this.cursorClip = clip;
      if (this.cursor.length < clip.channels.length) this.cursor = new Int32Array(clip.channels.length);
      this.cursor.fill(0);
    }
    for (let c = 0; c < clip.channels.length; c++) this.sampleChannel(clip.channels[c], c, t);
    this.update();
  }

  /**
   * A crossfade: `from` at time `fromTime` blended with `to` at `toTime` by weight w of `to` (0..1): translations
   * and scales mixed linearly, rotations by the shorter spherical path.
   */
  sampleBlend(from: RigClip, fromTime: number, to: RigClip, toTime: number, w: number): void {
    if (!(w > 0)) return this.sample(from, fromTime);
    if (!(w < 1)) return this.sample(to, toTime);
    this.sample(from, fromTime);
    const translation = this.blendTranslation, rotation = this.blendRotation, scale = this.blendScale;
    translation.set(this.translation);
    rotation.set(this.rotation);
    scale.set(this.scale);
    this.sample(to, toTime);
    for (let i = 0; i < translation.length; i++) this.translation[i] = translation[i] + w * (this.translation[i] - translation[i]);
    for (let i = 0; i < scale.length; i++) this.scale[i] = scale[i] + w * (this.scale[i] - scale[i]);
    for (let node = 0; node < rotation.length / 4; node++) slerpInto(rotation, 4 * node, this.rotation, 4 * node, w, this.rotation, 4 * node);
    this.update();
  }

  /**
   * Two clip samples mixed node by node: node i takes weight w[i] of `to` (the sampleBlend of one node). Mixes poses
   * the clips never hold together, within the range of their joint angles.
   */
  sampleNodeBlend(from: RigClip, fromTime: number, to: RigClip, toTime: number, w: ArrayLike<number>): void {
    this.sample(from, fromTime);
    const translation = this.blendTranslation, rotation = this.blendRotation, scale = this.blendScale;
    translation.set(this.translation);
    rotation.set(this.rotation);
    scale.set(this.scale);
    this.sample(to, toTime);
    for (let node = 0; node < this.rig.parents.length; node++) {
      const s = w[node];
      for (let a = 0; a < 3; a++) {
        this.translation[3 * node + a] = translation[3 * node + a] + s * (this.translation[3 * node + a] - translation[3 * node + a]);
        this.scale[3 * node + a] = scale[3 * node + a] + s * (this.scale[3 * node + a] - scale[3 * node + a]);
      }
      slerpInto(rotation, 4 * node, this.rotation, 4 * node, s, this.rotation, 4 * node);
    }
    this.update();
  }

  /** World and joint matrices from the local transforms (after changing them by hand). */
  update(): void {
    const rig = this.rig, world = this.world, local = this.local;
    for (let i = 0; i < rig.parents.length; i++) {
      composeMatrix(this.translation, this.rotation, this.scale, i, local);
      const parent = rig.parents[i];
      multiplyInto(parent < 0 ? rig.base : world, parent < 0 ? 0 : 16 * parent, local, 0, world, 16 * i);
    }
    for (let j = 0; j < rig.jointNodes.length; j++) multiplyInto(world, 16 * rig.jointNodes[j], rig.inverseBind, 16 * j, this.joints, 16 * j);
  }

  private sampleChannel(channel: RigChannel, c: number, t: number): void {
    const times = channel.times, last = times.length - 1;
    const width = channel.path === "rotation" ? 4 : 3;
    const out = channel.path === "translation" ? this.translation : channel.path === "rotation" ? this.rotation : this.scale;
    const o = width * channel.node;
    const cubic = channel.interpolation === "CUBICSPLINE", stride = cubic ? 3 * width : width, at = cubic ? width : 0;
    const v = channel.values;
    if (last < 0) return;
    if (t <= times[0] || last === 0) {
      for (let k = 0; k < width; k++) out[o + k] = v[at + k];
      return;
    }
    if (t >= times[last]) {
      for (let k = 0; k < width; k++) out[o + k] = v[last * stride + at + k];
      return;
    }
    // The key before t: from where it was last time, forwards (or from the start when time went back).
    let i = this.cursor[c];
    if (i > last - 1 || times[i] > t) i = 0;
    while (i < last - 1 && times[i + 1] <= t) i++;
    this.cursor[c] = i;
    const t0 = times[i], t1 = times[i + 1], dt = t1 - t0, s = (t - t0) / dt;
    const a = i * stride, b = (i + 1) * stride;
    if (channel.interpolation === "STEP") {
      for (let k = 0; k < width; k++) out[o + k] = v[a + k];
      return;
    }
    if (cubic) {
      // Hermite: value a (at a + width), its out-tangent (a + 2 width); value b (b + width), its in-tangent (b).
      const s2 = s * s, s3 = s2 * s;
      const h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
      for (let k = 0; k < width; k++) out[o + k] = h00 * v[a + width + k] + h10 * dt * v[a + 2 * width + k] + h01 * v[b + width + k] + h11 * dt * v[b + k];
      if (width === 4) normalise4(out, o);
      return;
    }
    if (width === 4) slerpInto(v, a, v, b, s, out, o);
    else for (let k = 0; k < 3; k++) out[o + k] = v[a + k] + s * (v[b + k] - v[a + k]);
  }
}

/** Skins `rest` (3 per glTF vertex, the bind pose) with the pose's joint matrices into `out` (3 per vertex): linear blend skinning. */
export function skinVertices(pose: RigPose, rest: ArrayLike<number>, out: Float64Array): void {
  linearBlendSkin(pose.joints, rest, pose.rig.vertexJoints, pose.rig.vertexWeights, out);
}

/**
 * Linear blend skinning of points `rest` (3 each) with four joints and weights each, by joint matrices `m` (16 each,
 * column-major), into `out` (3 each).
 */
export function linearBlendSkin(m: ArrayLike<number>, rest: ArrayLike<number>, joints: ArrayLike<number>, weights: ArrayLike<number>, out: Float64Array): void {
  const count = rest.length / 3;
  for (let v = 0; v < count; v++) {
    const x = rest[3 * v], y = rest[3 * v + 1], z = rest[3 * v + 2];
    let ox = 0, oy = 0, oz = 0;
    for (let k = 0; k < 4; k++) {
      const w = weights[4 * v + k];
      if (w === 0) continue;
      const j = 16 * joints[4 * v + k];
      ox += w * (m[j] * x + m[j + 4] * y + m[j + 8] * z + m[j + 12]);
      oy += w * (m[j + 1] * x + m[j + 5] * y + m[j + 9] * z + m[j + 13]);
      oz += w * (m[j + 2] * x + m[j + 6] * y + m[j + 10] * z + m[j + 14]);
    }
    out[3 * v] = ox;
    out[3 * v + 1] = oy;
    out[3 * v + 2] = oz;
  }
}

/** The column-major matrix of translation t, unit quaternion r and scale s of node i (16 into `out`). */
function composeMatrix(t: Float64Array, r: Float64Array, s: Float64Array, i: number, out: Float64Array): void {
  const x = r[4 * i], y = r[4 * i + 1], z = r[4 * i + 2], w = r[4 * i + 3];
  const sx = s[3 * i], sy = s[3 * i + 1], sz = s[3 * i + 2];
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2, wx = w * x2, wy = w * y2, wz = w * z2;
  out[0] = (1 - (yy + zz)) * sx; out[1] = (xy + wz) * sx; out[2] = (xz - wy) * sx; out[3] = 0;
  out[4] = (xy - wz) * sy; out[5] = (1 - (xx + zz)) * sy; out[6] = (yz + wx) * sy; out[7] = 0;
  out[8] = (xz + wy) * sz; out[9] = (yz - wx) * sz; out[10] = (1 - (xx + yy)) * sz; out[11] = 0;
  out[12] = t[3 * i]; out[13] = t[3 * i + 1]; out[14] = t[3 * i + 2]; out[15] = 1;
}

/** out[o..o+16] = a[ao..] x b[bo..] (column-major 4 x 4). */
function multiplyInto(a: Float64Array, ao: number, b: Float64Array, bo: number, out: Float64Array, o: number): void {
  for (let col = 0; col < 4; col++) {
    const b0 = b[bo + 4 * col], b1 = b[bo + 4 * col + 1], b2 = b[bo + 4 * col + 2], b3 = b[bo + 4 * col + 3];
    for (let row = 0; row < 4; row++) out[o + 4 * col + row] = a[ao + row] * b0 + a[ao + 4 + row] * b1 + a[ao + 8 + row] * b2 + a[ao + 12 + row] * b3;
  }
}

function normalise4(q: Float64Array, o: number): void {
  const length = length4(q[o], q[o + 1], q[o + 2], q[o + 3]) || 1;
  for (let k = 0; k < 4; k++) q[o + k] /= length;
}

/** Spherical interpolation of unit quaternions a and b by s (the shorter way), into out[o..o+4] (three's slerpFlat). */
function slerpInto(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, s: number, out: Float64Array, o: number): void {
  let x1 = b[bo], y1 = b[bo + 1], z1 = b[bo + 2], w1 = b[bo + 3];
  const x0 = a[ao], y0 = a[ao + 1], z0 = a[ao + 2], w0 = a[ao + 3];
  let cos = x0 * x1 + y0 * y1 + z0 * z1 + w0 * w1;
  if (cos < 0) { x1 = -x1; y1 = -y1; z1 = -z1; w1 = -w1; cos = -cos; }
  let k0 = 1 - s, k1 = s;
  if (cos < 1 - Number.EPSILON) {
    const sin = Math.sqrt(1 - cos * cos), angle = Math.atan2(sin, cos);
    k0 = Math.sin(k0 * angle) / sin;
    k1 = Math.sin(k1 * angle) / sin;
  }
  out[o] = k0 * x0 + k1 * x1; out[o + 1] = k0 * y0 + k1 * y1; out[o + 2] = k0 * z0 + k1 * z1; out[o + 3] = k0 * w0 + k1 * w1;
  normalise4(out, o);
}
