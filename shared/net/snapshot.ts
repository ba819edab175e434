// The binary snapshot the server broadcasts SNAPSHOT_RATE times a second: the moving soft bodies' q (int16 with a
// per-body scale), the moving props' poses, the players' head and hand poses that changed and the targets of the
// grabs that moved. One encoding per snapshot, shared by every client; whatever is at rest or unchanged is left
// out, so an idle room sends nothing (a client that joins gets one full snapshot).
//
// Layout (little-endian):
//   u8 version (SNAPSHOT_VERSION, 3), u32 tick,
//   u8 bodies,  per body:  u8 index, u16 n, f32 scale, n x i16 round(q / scale)
//   u8 props,   per prop:  u8 index, 3 x f32 position (m), 4 x i16 quaternion x 32767
//   u8 avatars, per avatar: u8 slot, u8 mask (1 head, 2 left, 4 right), per pose 3 x i16 mm + 4 x i16 quaternion x 32767
//   u8 grabs,   per grab:  u8 slot (GrabState.slot), 3 x f32 target (m)
//   u8 characters, per character: u8 index (CharacterState.index), u8 clip, f32 time (s), u8 clip2, f32 time2,
//                  u8 blend (weight of clip2 x 255), u8 running (1: clip's time runs on, 2: clip2's),
//                  3 x f32 frame position (m), f32 frame yaw (rad)
// A character's soft part travels as a body (its q, under its index); its pose is its clips (indices into
// CharacterState.clips) at their times, and its frame: world = position + R_y(yaw) (skinned pose + soft part).

export const SNAPSHOT_VERSION = 3;
/**
 * What a snapshot leaves out: a body none of whose proxy points moved more than IDLE_DISTANCE (m) since it was last
 * sent (below what anyone can see, above the sub-millimetre wobble of a body at rest), and a prop that moved less
 * and turned less than IDLE_TURN in every quaternion component (a change of 1e-3 turns a 0.1 m prop's edge by ~0.2
 * mm).
 */
export const IDLE_DISTANCE = 1e-3;
export const IDLE_TURN = 1e-3;
/** A snapshot with nothing in it (version, tick, five zero counts): not worth sending. */
export const EMPTY_SNAPSHOT_BYTES = 10;
/** Bytes of one character's pose. */
const CHARACTER_BYTES = 29;
const QUAT = 32767;

export interface BodySnapshot {
  index: number;
  q: Float64Array;
}

export interface PropSnapshot {
  index: number;
  position: Float64Array; // 3
  quaternion: Float64Array; // 4 (x, y, z, w)
}

/** A character's clips: `clip` at `time` crossfading to `clip2` at `time2` by `blend`. */
export interface ClipMix {
  clip: number;
  time: number;
  clip2: number;
  time2: number;
  /** Weight of clip2, 0..1 (in 1/255 steps). */
  blend: number;
  /** Whether each clip's time runs on at the clock's pace (false: the pose is held). */
  running: boolean;
  running2: boolean;
}

/** A character's rig pose: its clips, in its frame. */
export interface CharacterSnapshot extends ClipMix {
  index: number;
  position: Float64Array; // 3
  yaw: number;
}

export interface AvatarSnapshot {
  slot: number;
  mask: number;
  /** head, left, right: 7 numbers each (position m, quaternion). */
  poses: Float64Array;
}

export class SnapshotWriter {
  private readonly buffer: ArrayBuffer;
  private readonly view: DataView;
  private offset = 0;
  private countAt = 0;
  private counted = 0;

  constructor(capacityBytes: number) {
    this.buffer = new ArrayBuffer(capacityBytes);
    this.view = new DataView(this.buffer);
  }

  begin(tick: number): void {
    this.offset = 0;
    this.view.setUint8(this.offset++, SNAPSHOT_VERSION);
    this.view.setUint32(this.offset, tick >>> 0, true);
    this.offset += 4;
  }

  /** Starts a section (bodies, props, avatars, grabs): its count is written when the next one starts or at finish. */
  section(): void {
    this.closeSection();
    this.countAt = this.offset++;
    this.counted = 0;
  }

  body(index: number, q: ArrayLike<number>): void {
    let largest = 0;
    for (let i = 0; i < q.length; i++) largest = Math.max(largest, Math.abs(q[i]));
    const scale = largest > 0 ? largest / 32767 : 1;
    const v = this.view;
    v.setUint8(this.offset, index);
    v.setUint16(this.offset + 1, q.length, true);
    v.setFloat32(this.offset + 3, scale, true);
    // float32 rounding of the scale may push the largest value just past 32767: clamp.
    const stored = v.getFloat32(this.offset + 3, true);
    let o = this.offset + 7;
    for (let i = 0; i < q.length; i++, o += 2) v.setInt16(o, Math.max(-32767, Math.min(32767, Math.round(q[i] / stored))), true);
    this.offset = o;
    this.counted++;
  }

  prop(index: number, x: number, y: number, z: number, qx: number, qy: number, qz: number, qw: number): void {
    const v = this.view;
    v.setUint8(this.offset, index);
    v.setFloat32(this.offset + 1, x, true);
    v.setFloat32(this.offset + 5, y, true);
    v.setFloat32(this.offset + 9, z, true);
    v.setInt16(this.offset + 13, Math.round(qx * QUAT), true);
    v.setInt16(this.offset + 15, Math.round(qy * QUAT), true);
    v.setInt16(this.offset + 17, Math.round(qz * QUAT), true);
    v.setInt16(this.offset + 19, Math.round(qw * QUAT), true);
    this.offset += 21;
    this.counted++;
  }

  /** `poses`: 21 numbers (head, left, right), only those in `mask` are written. */
  avatar(slot: number, mask: number, poses: ArrayLike<number>): void {
    const v = this.view;
    v.setUint8(this.offset++, slot);
    v.setUint8(this.offset++, mask);
    for (let p = 0; p < 3; p++) {
      if ((mask & (1 << p)) === 0) continue;
      for (let a = 0; a < 3; a++, this.offset += 2) v.setInt16(this.offset, Math.max(-32767, Math.min(32767, Math.round(poses[7 * p + a] * 1000))), true);
      for (let a = 3; a < 7; a++, this.offset += 2) v.setInt16(this.offset, Math.round(poses[7 * p + a] * QUAT), true);
    }
    this.counted++;
  }

  grab(slot: number, x: number, y: number, z: number): void {
    const v = this.view;
    v.setUint8(this.offset, slot);
    v.setFloat32(this.offset + 1, x, true);
    v.setFloat32(this.offset + 5, y, true);
    v.setFloat32(this.offset + 9, z, true);
    this.offset += 13;
    this.counted++;
  }

  character(index: number, pose: ClipMix, x: number, y: number, z: number, yaw: number): void {
    const v = this.view, o = this.offset;
    v.setUint8(o, index);
    v.setUint8(o + 1, pose.clip);
    v.setFloat32(o + 2, pose.time, true);
    v.setUint8(o + 6, pose.clip2);
    v.setFloat32(o + 7, pose.time2, true);
    v.setUint8(o + 11, Math.max(0, Math.min(255, Math.round(pose.blend * 255))));
    v.setUint8(o + 12, (pose.running ? 1 : 0) | (pose.running2 ? 2 : 0));
    v.setFloat32(o + 13, x, true);
    v.setFloat32(o + 17, y, true);
    v.setFloat32(o + 21, z, true);
    v.setFloat32(o + 25, yaw, true);
    this.offset += CHARACTER_BYTES;
    this.counted++;
  }

  /** The encoded snapshot (a view into the writer's buffer: copy or send before the next begin). */
  finish(): Uint8Array {
    this.closeSection();
    return new Uint8Array(this.buffer, 0, this.offset);
  }

  private closeSection(): void {
    if (this.countAt > 0) this.view.setUint8(this.countAt, this.counted);
    this.countAt = 0;
  }
}

/** Bytes a snapshot of this room can take at most. */
export function snapshotCapacity(bodies: number, qLength: number, props: number, avatars: number, grabs: number, characters = 0): number {
  return EMPTY_SNAPSHOT_BYTES + bodies * (7 + 2 * qLength) + props * 21 + avatars * (2 + 3 * 14) + grabs * 13 + characters * CHARACTER_BYTES;
}

export interface GrabSnapshot {
  slot: number;
  target: [number, number, number];
}

export interface DecodedSnapshot {
  tick: number;
  bodies: BodySnapshot[];
  props: PropSnapshot[];
  avatars: AvatarSnapshot[];
  grabs: GrabSnapshot[];
  characters: CharacterSnapshot[];
}

export class SnapshotError extends Error {
  override name = "SnapshotError";
}

/** Decodes a snapshot; throws SnapshotError on anything malformed. */
export function decodeSnapshot(bytes: Uint8Array): DecodedSnapshot {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let o = 0;
  const need = (n: number) => {
    if (o + n > bytes.byteLength) throw new SnapshotError("snapshot is truncated");
  };
  need(6);
  if (v.getUint8(o++) !== SNAPSHOT_VERSION) throw new SnapshotError(`snapshot version ${v.getUint8(0)} is not ${SNAPSHOT_VERSION}`);
  const tick = v.getUint32(o, true);
  o += 4;
  const bodies: BodySnapshot[] = [];
  for (let count = v.getUint8(o++), i = 0; i < count; i++) {
    need(7);
    const index = v.getUint8(o), n = v.getUint16(o + 1, true), scale = v.getFloat32(o + 3, true);
    o += 7;
    need(2 * n);
    const q = new Float64Array(n);
    for (let k = 0; k < n; k++, o += 2) q[k] = v.getInt16(o, true) * scale;
    bodies.push({ index, q });
  }
  need(1);
  const props: PropSnapshot[] = [];
  for (let count = v.getUint8(o++), i = 0; i < count; i++) {
    need(21);
    const quaternion = Float64Array.from([v.getInt16(o + 13, true), v.getInt16(o + 15, true), v.getInt16(o + 17, true), v.getInt16(o + 19, true)], (x) => x / QUAT);
    props.push({ index: v.getUint8(o), position: Float64Array.from([v.getFloat32(o + 1, true), v.getFloat32(o + 5, true), v.getFloat32(o + 9, true)]), quaternion });
    o += 21;
  }
  need(1);
  const avatars: AvatarSnapshot[] = [];
  for (let count = v.getUint8(o++), i = 0; i < count; i++) {
    need(2);
    const slot = v.getUint8(o++), mask = v.getUint8(o++);
    const poses = new Float64Array(21);
    for (let p = 0; p < 3; p++) {
      if ((mask & (1 << p)) === 0) continue;
      need(14);
      for (let a = 0; a < 3; a++, o += 2) poses[7 * p + a] = v.getInt16(o, true) / 1000;
      for (let a = 3; a < 7; a++, o += 2) poses[7 * p + a] = v.getInt16(o, true) / QUAT;
    }
    avatars.push({ slot, mask, poses });
  }
  need(1);
  const grabs: GrabSnapshot[] = [];
  for (let count = v.getUint8(o++), i = 0; i < count; i++) {
    need(13);
    grabs.push({ slot: v.getUint8(o), target: [v.getFloat32(o + 1, true), v.getFloat32(o + 5, true), v.getFloat32(o + 9, true)] });
    o += 13;
  }
  need(1);
  const characters: CharacterSnapshot[] = [];
  for (let count = v.getUint8(o++), i = 0; i < count; i++) {
    need(CHARACTER_BYTES);
    characters.push({
      index: v.getUint8(o), clip: v.getUint8(o + 1), time: v.getFloat32(o + 2, true), clip2: v.getUint8(o + 6), time2: v.getFloat32(o + 7, true),
      blend: v.getUint8(o + 11) / 255, running: (v.getUint8(o + 12) & 1) !== 0, running2: (v.getUint8(o + 12) & 2) !== 0,
      position: Float64Array.from([v.getFloat32(o + 13, true), v.getFloat32(o + 17, true), v.getFloat32(o + 21, true)]), yaw: v.getFloat32(o + 25, true),
    });
    o += CHARACTER_BYTES;
  }
  return { tick, bodies, props, avatars, grabs, characters };
}
