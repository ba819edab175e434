// A humanoid the project's layers have never seen, made from code for tests and held-out measurements: 42 joints
// (hips, three spine joints, neck and head; per side a clavicle, upper arm, forearm, hand, five two-jointed fingers,
// thigh, shin, foot and toe), a capsule-like tube of skin round every bone (two primitives: the body, and the neck and
// head), each tube's vertices bound to its bone and blended with the parent's near the joint, and three clips made
// of sinusoids: Walking (1 s a cycle), Running (0.66 s, knees high, elbows bent) and Jump (a crouch, a leap of
// 0.3 m and a landing in 1.2 s), all in place. Every joint carries skin, as the room requires. Metres, +y up, +z ahead.

import { Document, NodeIO, type Node } from "@gltf-transform/core";

interface Bone {
  name: string;
  parent: number;
  /** Offset from the parent joint in the bind pose (m); the bind pose has no rotations. */
  offset: [number, number, number];
  /** The tube's radius (m), and whether it belongs to the head's primitive. */
  radius: number;
  head?: boolean;
}

function skeleton(): Bone[] {
  const bones: Bone[] = [];
  const add = (name: string, parent: number, offset: [number, number, number], radius: number, head = false) => bones.push({ name, parent, offset, radius, head }) - 1;
  const hips = add("hips", -1, [0, 0.95, 0], 0.13);
  const spine1 = add("spine1", hips, [0, 0.1, 0], 0.13);
  const spine2 = add("spine2", spine1, [0, 0.12, 0], 0.13);
  const spine3 = add("spine3", spine2, [0, 0.12, 0], 0.12);
  const neck = add("neck", spine3, [0, 0.15, 0], 0.05, true);
  add("head", neck, [0, 0.1, 0], 0.1, true);
  for (const [side, s] of [["L", 1], ["R", -1]] as const) {
    const clavicle = add(`clavicle${side}`, spine3, [s * 0.05, 0.1, 0], 0.05);
    const upper = add(`upperArm${side}`, clavicle, [s * 0.15, 0, 0], 0.045);
    const fore = add(`foreArm${side}`, upper, [s * 0.28, 0, 0], 0.04);
    const hand = add(`hand${side}`, fore, [s * 0.25, 0, 0], 0.035);
    [-0.035, -0.017, 0, 0.017, 0.035].forEach((z, f) => {
      const base = add(`finger${f}${side}`, hand, f === 0 ? [s * 0.03, 0, 0.05] : [s * 0.08, 0, z], 0.012);
      add(`finger${f}Tip${side}`, base, [s * 0.035, 0, f === 0 ? 0.02 : 0], 0.01);
    });
    const thigh = add(`thigh${side}`, hips, [s * 0.1, -0.05, 0], 0.075);
    const shin = add(`shin${side}`, thigh, [0, -0.42, 0], 0.055);
    const foot = add(`foot${side}`, shin, [0, -0.42, 0], 0.045);
    add(`toe${side}`, foot, [0, -0.04, 0.12], 0.035);
  }
  return bones;
}

/** Each bone's bind position (m). */
function bindPositions(bones: Bone[]): Float64Array {
  const p = new Float64Array(3 * bones.length);
  bones.forEach((bone, j) => {
    for (let a = 0; a < 3; a++) p[3 * j + a] = (bone.parent >= 0 ? p[3 * bone.parent + a] : 0) + bone.offset[a];
  });
  return p;
}

interface Part { positions: number[]; joints: number[]; weights: number[]; indices: number[] }

const RINGS = 6, SIDES = 10;

/** A closed tube of `radius` from a to b, bound to `joint` and blended with `parent` over its first fifth. */
function tube(part: Part, a: number[], b: number[], radius: number, joint: number, parent: number): void {
  const axis = [b[0] - a[0], b[1] - a[1], b[2] - a[2]], length = Math.hypot(axis[0], axis[1], axis[2]);
  const d = axis.map((v) => v / length);
  // Two unit vectors across the axis.
  const helper = Math.abs(d[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0];
  const u = [d[1] * helper[2] - d[2] * helper[1], d[2] * helper[0] - d[0] * helper[2], d[0] * helper[1] - d[1] * helper[0]];
  const un = Math.hypot(u[0], u[1], u[2]);
  for (let k = 0; k < 3; k++) u[k] /= un;
  const v = [d[1] * u[2] - d[2] * u[1], d[2] * u[0] - d[0] * u[2], d[0] * u[1] - d[1] * u[0]];
  const first = part.positions.length / 3;
  const vertex = (x: number[], t: number) => {
    part.positions.push(x[0], x[1], x[2]);
    const own = parent < 0 ? 1 : Math.min(1, 0.5 + 2.5 * t);
    part.joints.push(joint, Math.max(parent, 0), 0, 0);
    part.weights.push(own, 1 - own, 0, 0);
  };
  // The tube runs a radius past each end, narrowing there, so neighbouring tubes overlap at the joint.
  for (let r = 0; r < RINGS; r++) {
    const t = r / (RINGS - 1), along = -0.5 * radius + t * (length + radius), taper = r === 0 || r === RINGS - 1 ? 0.6 : 1;
    for (let s = 0; s < SIDES; s++) {
      const angle = (2 * Math.PI * s) / SIDES, c = Math.cos(angle) * radius * taper, sn = Math.sin(angle) * radius * taper;
      vertex([0, 1, 2].map((k) => a[k] + d[k] * along + u[k] * c + v[k] * sn), Math.max(0, along / length));
    }
  }
  const capStart = part.positions.length / 3;
  vertex([0, 1, 2].map((k) => a[k] - d[k] * 0.5 * radius), 0);
  vertex([0, 1, 2].map((k) => b[k] + d[k] * 0.5 * radius), 1);
  for (let r = 0; r + 1 < RINGS; r++) {
    for (let s = 0; s < SIDES; s++) {
      const i0 = first + r * SIDES + s, i1 = first + r * SIDES + ((s + 1) % SIDES), j0 = i0 + SIDES, j1 = i1 + SIDES;
      part.indices.push(i0, i1, j1, i0, j1, j0);
    }
  }
  for (let s = 0; s < SIDES; s++) {
    const s1 = (s + 1) % SIDES;
    part.indices.push(capStart, first + s1, first + s);
    part.indices.push(capStart + 1, first + (RINGS - 1) * SIDES + s, first + (RINGS - 1) * SIDES + s1);
  }
}

type Quat = [number, number, number, number];

function axisAngle(x: number, y: number, z: number, angle: number): Quat {
  const s = Math.sin(angle / 2);
  return [x * s, y * s, z * s, Math.cos(angle / 2)];
}

function times(a: Quat, b: Quat): Quat {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

/** A clip's pose at time t: per bone a rotation, and the hips' translation. */
type PoseAt = (t: number) => { rotations: Map<string, Quat>; hips: [number, number, number] };

function gait(period: number, stride: number, knee: number, elbow: number, bounce: number, lean: number): PoseAt {
  return (t) => {
    const phase = (2 * Math.PI * t) / period, rotations = new Map<string, Quat>();
    rotations.set("spine1", times(axisAngle(1, 0, 0, lean), axisAngle(0, 1, 0, 0.12 * Math.sin(phase))));
    rotations.set("spine3", axisAngle(0, 1, 0, -0.1 * Math.sin(phase)));
    rotations.set("neck", axisAngle(1, 0, 0, -0.5 * lean));
    for (const [side, s] of [["L", 1], ["R", -1]] as const) {
      const swing = s * Math.sin(phase);
      rotations.set(`thigh${side}`, axisAngle(1, 0, 0, -stride * swing));
      rotations.set(`shin${side}`, axisAngle(1, 0, 0, knee * Math.max(0, Math.sin(phase * s + 1.2 * s))));
      rotations.set(`foot${side}`, axisAngle(1, 0, 0, 0.3 * swing));
      // Arms down from the T of the bind pose, swinging against the legs.
      rotations.set(`upperArm${side}`, times(axisAngle(0, 0, 1, -s * 1.25), axisAngle(0, 1, 0, 0.6 * stride * swing)));
      rotations.set(`foreArm${side}`, axisAngle(0, 1, 0, s * elbow * (1 + 0.3 * swing)));
      rotations.set(`finger1${side}`, axisAngle(0, 0, 1, -s * 0.6));
    }
    return { rotations, hips: [0, 0.95 - bounce * (1 - Math.cos(2 * phase)) / 2, 0] };
  };
}

function jump(t: number): ReturnType<PoseAt> {
  // 0-0.4 s a crouch, 0.4-0.55 the push, 0.55-0.85 in the air, 0.85-1.2 the landing and rising.
  const smooth = (x: number) => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));
  const crouch = smooth(t / 0.4) - smooth((t - 0.4) / 0.15) + smooth((t - 0.85) / 0.12) - smooth((t - 0.97) / 0.23);
  const air = t > 0.55 && t < 0.85 ? Math.sin((Math.PI * (t - 0.55)) / 0.3) : 0;
  const rotations = new Map<string, Quat>();
  rotations.set("spine1", axisAngle(1, 0, 0, 0.5 * crouch));
  for (const [side, s] of [["L", 1], ["R", -1]] as const) {
    rotations.set(`thigh${side}`, axisAngle(1, 0, 0, -1.1 * crouch));
    rotations.set(`shin${side}`, axisAngle(1, 0, 0, 1.8 * crouch));
    rotations.set(`foot${side}`, axisAngle(1, 0, 0, -0.6 * crouch + 0.5 * air));
    rotations.set(`upperArm${side}`, times(axisAngle(0, 0, 1, -s * (1.25 - 2 * air)), axisAngle(0, 1, 0, s * 0.8 * crouch)));
    rotations.set(`foreArm${side}`, axisAngle(0, 1, 0, s * 0.4 * air));
  }
  return { rotations, hips: [0, 0.95 - 0.35 * crouch + 0.3 * air, 0] };
}

const FPS = 30;

/** The humanoid as GLB bytes. */
export async function humanoidBytes(): Promise<Uint8Array> {
  const bones = skeleton(), bind = bindPositions(bones), document = new Document(), buffer = document.createBuffer();
  const nodes: Node[] = bones.map((bone) => document.createNode(bone.name).setTranslation(bone.offset));
  bones.forEach((bone, j) => { if (bone.parent >= 0) nodes[bone.parent].addChild(nodes[j]); });
  const inverseBinds = new Float32Array(16 * bones.length);
  bones.forEach((_, j) => {
    inverseBinds.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -bind[3 * j], -bind[3 * j + 1], -bind[3 * j + 2], 1], 16 * j);
  });
  const skin = document.createSkin("humanoid").setSkeleton(nodes[0]).setInverseBindMatrices(document.createAccessor().setType("MAT4").setArray(inverseBinds).setBuffer(buffer));
  for (const node of nodes) skin.addJoint(node);

  const body: Part = { positions: [], joints: [], weights: [], indices: [] }, head: Part = { positions: [], joints: [], weights: [], indices: [] };
  bones.forEach((bone, j) => {
    const a = [bind[3 * j], bind[3 * j + 1], bind[3 * j + 2]];
    const children = bones.map((b, k) => (b.parent === j ? k : -1)).filter((k) => k >= 0);
    // The hand's tube runs to its middle finger; the hips' and the chest's up the spine.
    const child = children.find((k) => bones[k].name.startsWith("finger2")) ?? children.find((k) => !/^(clavicle|thigh|finger)/.test(bones[k].name)) ?? children[0] ?? -1;
    // A bone runs to its (first) child; a leaf on along its own offset.
    const b = child >= 0 ? [bind[3 * child], bind[3 * child + 1], bind[3 * child + 2]]
      : a.map((v, k) => v + (bone.name === "head" ? [0, 0.2, 0][k] : 0.6 * bone.offset[k]));
    tube(bone.head ? head : body, a, b, bone.radius, j, bone.parent);
  });
  const mesh = document.createMesh("humanoid");
  for (const part of [body, head]) {
    mesh.addPrimitive(document.createPrimitive()
      .setAttribute("POSITION", document.createAccessor().setType("VEC3").setArray(new Float32Array(part.positions)).setBuffer(buffer))
      .setAttribute("JOINTS_0", document.createAccessor().setType("VEC4").setArray(new Uint16Array(part.joints)).setBuffer(buffer))
      .setAttribute("WEIGHTS_0", document.createAccessor().setType("VEC4").setArray(new Float32Array(part.weights)).setBuffer(buffer))
      .setIndices(document.createAccessor().setType("SCALAR").setArray(new Uint32Array(part.indices)).setBuffer(buffer)));
  }
  const scene = document.createScene("humanoid");
  scene.addChild(nodes[0]).addChild(document.createNode("skin").setMesh(mesh).setSkin(skin));

  const clips: [string, number, PoseAt][] = [
    ["Walking", 1, gait(1, 0.5, 0.7, 0.3, 0.03, 0.05)],
    ["Running", 0.66, gait(0.66, 0.9, 1.5, 1.3, 0.07, 0.25)],
    ["Jump", 1.2, jump],
  ];
  for (const [name, duration, poseAt] of clips) {
    const animation = document.createAnimation(name), frames = Math.round(duration * FPS) + 1;
    const keys = new Float32Array(frames).map((_, k) => k / FPS);
    const input = document.createAccessor().setType("SCALAR").setArray(keys).setBuffer(buffer);
    const poses = Array.from(keys, (t) => poseAt(t));
    const animated = [...new Set(poses.flatMap((p) => [...p.rotations.keys()]))];
    for (const boneName of animated) {
      const values = new Float32Array(4 * frames);
      poses.forEach((p, k) => values.set(p.rotations.get(boneName) ?? [0, 0, 0, 1], 4 * k));
      const sampler = document.createAnimationSampler().setInput(input).setOutput(document.createAccessor().setType("VEC4").setArray(values).setBuffer(buffer)).setInterpolation("LINEAR");
      animation.addSampler(sampler).addChannel(document.createAnimationChannel().setTargetNode(nodes[bones.findIndex((b) => b.name === boneName)]).setTargetPath("rotation").setSampler(sampler));
    }
    const hips = new Float32Array(3 * frames);
    poses.forEach((p, k) => hips.set(p.hips, 3 * k));
    const sampler = document.createAnimationSampler().setInput(input).setOutput(document.createAccessor().setType("VEC3").setArray(hips).setBuffer(buffer)).setInterpolation("LINEAR");
    animation.addSampler(sampler).addChannel(document.createAnimationChannel().setTargetNode(nodes[0]).setTargetPath("translation").setSampler(sampler));
  }
  return new NodeIO().writeBinary(document);
}
