// What other people look like, made in code (nothing fetched): a round head in the player's colour with a friendly
// face, hands with a palm and five fingers in a relaxed pose, name tags, and the pointer a desktop player pulls
// with. Geometries and the face's material are built once and shared by every avatar: each avatar adds one
// material (its colour) and one name tag, and draws in five calls (head, face, two hands, tag).

import * as THREE from "three";
import { mergeGeometries } from "three/examples/jsm/utils/BufferGeometryUtils.js";
import { RoundedBoxGeometry } from "three/examples/jsm/geometries/RoundedBoxGeometry.js";

export const HEAD_RADIUS = 0.1;
/** Where a head's name tag floats: above the head's centre, m. */
export const NAME_TAG_HEIGHT = 0.2;
/** A name tag's height in the room, m (its width follows the name). */
export const NAME_TAG_SIZE = 0.09;
/** The parts a face and a hand are made of (userData.parts of their meshes: tests and tools read them). */
export const FACE_PARTS = ["eye-left", "eye-right", "mouth", "cheek-left", "cheek-right"] as const;
export const HAND_PARTS = ["palm", "thumb", "index", "middle", "ring", "little"] as const;

const UP = new THREE.Vector3(0, 1, 0), FORWARD = new THREE.Vector3(0, 0, -1);

/** A part's geometry, non-indexed, every vertex in `colour` (linear, as vertex colours are read). */
function painted(geometry: THREE.BufferGeometry, colour: string): THREE.BufferGeometry {
  const flat = geometry.index ? geometry.toNonIndexed() : geometry;
  if (flat !== geometry) geometry.dispose();
  flat.deleteAttribute("uv");
  const c = new THREE.Color(colour), colours = new Float32Array(3 * flat.getAttribute("position").count);
  for (let i = 0; i < colours.length; i += 3) { colours[i] = c.r; colours[i + 1] = c.g; colours[i + 2] = c.b; }
  flat.setAttribute("color", new THREE.BufferAttribute(colours, 3));
  return flat;
}

/**
 * A face feature on the head's surface: `shape` is made facing forward (-Z, as the head looks) and is turned to
 * face out of the sphere at `direction`, `lift` m off the surface.
 */
function onHead(shape: THREE.BufferGeometry, direction: [number, number, number], lift: number): THREE.BufferGeometry {
  const n = new THREE.Vector3(...direction).normalize();
  const turn = new THREE.Quaternion().setFromUnitVectors(FORWARD, n);
  return shape.applyMatrix4(new THREE.Matrix4().compose(n.multiplyScalar(HEAD_RADIUS + lift), turn, new THREE.Vector3(1, 1, 1)));
}

function ellipsoid(rx: number, ry: number, rz: number, colour: string, offset: [number, number, number] = [0, 0, 0]): THREE.BufferGeometry {
  return painted(new THREE.SphereGeometry(1, 16, 10).scale(rx, ry, rz).translate(...offset), colour);
}

/** The face: eyes with a glint, rosy cheeks and a smile; drawn over a head sphere of radius HEAD_RADIUS. */
function createFaceGeometry(): THREE.BufferGeometry {
  const parts: THREE.BufferGeometry[] = [], ranges: { name: string; start: number; count: number }[] = [];
  let start = 0;
  const add = (name: string, ...pieces: THREE.BufferGeometry[]) => {
    const count = pieces.reduce((n, p) => n + p.getAttribute("position").count, 0);
    parts.push(...pieces);
    ranges.push({ name, start, count });
    start += count;
  };
  for (const [name, side] of [["eye-left", -1], ["eye-right", 1]] as const) {
    const at: [number, number, number] = [side * 0.34, 0.16, -0.93];
    add(name,
      onHead(ellipsoid(0.019, 0.024, 0.008, "#ffffff"), at, -0.001),
      onHead(ellipsoid(0.0115, 0.0145, 0.006, "#1b1d26", [side * 0.002, -0.003, -0.004]), at, 0.002),
      onHead(ellipsoid(0.0038, 0.0038, 0.002, "#ffffff", [side * 0.001 + 0.004, 0.004, -0.009]), at, 0.002));
  }
  // A smile: half a torus, opening upward, bent round the head's front.
  const smile = new THREE.TorusGeometry(0.027, 0.0055, 8, 20, Math.PI).rotateZ(Math.PI).translate(0, 0.014, 0);
  add("mouth", onHead(painted(smile, "#5a1f2a"), [0, -0.34, -0.94], -0.004));
  for (const [name, side] of [["cheek-left", -1], ["cheek-right", 1]] as const) add(name, onHead(ellipsoid(0.017, 0.011, 0.003, "#ff8fa3"), [side * 0.56, -0.14, -0.82], -0.0005));
  const face = mergeGeometries(parts)!;
  for (const part of parts) part.dispose();
  face.userData.parts = ranges;
  return face;
}

/** One finger (or the thumb): two capsules from `base`, pointing along `direction` then curled by `curl` radians more. */
function finger(base: THREE.Vector3, direction: THREE.Vector3, axis: THREE.Vector3, lengths: [number, number], radius: number, curl: number): THREE.BufferGeometry[] {
  const pieces: THREE.BufferGeometry[] = [], at = base.clone(), d = direction.clone().normalize();
  for (let k = 0; k < 2; k++) {
    if (k === 1) d.applyAxisAngle(axis, curl);
    const centre = at.clone().addScaledVector(d, lengths[k] / 2);
    const capsule = new THREE.CapsuleGeometry(radius * (k === 1 ? 0.92 : 1), lengths[k], 4, 10);
    pieces.push(painted(capsule.applyMatrix4(new THREE.Matrix4().compose(centre, new THREE.Quaternion().setFromUnitVectors(UP, d), new THREE.Vector3(1, 1, 1))), "#ffffff"));
    at.addScaledVector(d, lengths[k]);
  }
  return pieces;
}

/**
 * A right hand, relaxed (fingers gently curled), in the hand's own frame as WebXR gives a wrist: the wrist at the
 * origin, fingers towards -Z, the back of the hand towards +Y, the thumb towards -X.
 */
function createRightHandGeometry(): THREE.BufferGeometry {
  const parts: THREE.BufferGeometry[] = [], ranges: { name: string; start: number; count: number }[] = [];
  let start = 0;
  const add = (name: string, pieces: THREE.BufferGeometry[]) => {
    const count = pieces.reduce((n, p) => n + p.getAttribute("position").count, 0);
    parts.push(...pieces);
    ranges.push({ name, start, count });
    start += count;
  };
  const curlAxis = new THREE.Vector3(-1, 0, 0);
  add("palm", [painted(new RoundedBoxGeometry(0.078, 0.03, 0.085, 4, 0.0145).translate(0, 0, -0.05), "#ffffff")]);
  // Index to little: across the knuckles, each shorter and more curled than the last.
  const fingers: [string, number, [number, number], number, number][] = [
    ["index", -0.027, [0.04, 0.034], 0.0088, 0.35],
    ["middle", -0.009, [0.044, 0.037], 0.009, 0.45],
    ["ring", 0.009, [0.041, 0.034], 0.0086, 0.55],
    ["little", 0.027, [0.032, 0.028], 0.0078, 0.65],
  ];
  for (const [name, x, lengths, radius, curl] of fingers) {
    const knuckle = new THREE.Vector3(x, 0, -0.088);
    // The knuckle bends the finger towards the palm (-Y) too.
    const direction = new THREE.Vector3(0, 0, -1).applyAxisAngle(curlAxis, curl * 0.6);
    add(name, finger(knuckle, direction, curlAxis, lengths, radius, curl));
  }
  // The thumb: from the heel of the palm on the index side, out and forward, its tip turned in.
  add("thumb", finger(new THREE.Vector3(-0.034, -0.006, -0.03), new THREE.Vector3(-0.62, -0.28, -0.73), new THREE.Vector3(0.3, -1, 0.2).normalize(), [0.038, 0.032], 0.0098, 0.45));
  const hand = mergeGeometries(parts)!;
  for (const part of parts) part.dispose();
  hand.deleteAttribute("color");
  hand.userData.parts = ranges;
  return hand;
}

/** The left hand: the right one mirrored across its YZ plane (triangles turned back to face out). */
function mirroredHand(right: THREE.BufferGeometry): THREE.BufferGeometry {
  const left = right.clone().scale(-1, 1, 1);
  for (const attribute of Object.values(left.attributes) as THREE.BufferAttribute[]) {
    const a = attribute.array, w = attribute.itemSize;
    for (let t = 0; t < attribute.count; t += 3) for (let k = 0; k < w; k++) {
      const i = (t + 1) * w + k, j = (t + 2) * w + k, swap = a[i];
      a[i] = a[j];
      a[j] = swap;
    }
  }
  left.userData.parts = right.userData.parts;
  return left;
}

/**
 * Where the hand's frame sits in the pose a page sends for a hand (its grip: the fist's centre, -Z along a held
 * rod towards the thumb, the back of the right hand towards +X and of the left towards -X): the wrist 7.5 cm
 * towards the forearm (+Y), the palm beside the rod on the back's side.
 */
export function handOffset(side: "left" | "right"): { position: THREE.Vector3; quaternion: THREE.Quaternion } {
  const s = side === "right" ? 1 : -1;
  const basis = new THREE.Matrix4().makeBasis(new THREE.Vector3(0, 0, s), new THREE.Vector3(s, 0, 0), new THREE.Vector3(0, 1, 0));
  return { position: new THREE.Vector3(s * 0.03, 0.075, 0), quaternion: new THREE.Quaternion().setFromRotationMatrix(basis) };
}

let shared: { head: THREE.SphereGeometry; face: THREE.BufferGeometry; faceMaterial: THREE.MeshStandardMaterial; hands: Record<"left" | "right", THREE.BufferGeometry> } | null = null;

/** The geometries and the face's material every avatar shares (made on first use, kept for the page's life). */
export function avatarParts(): NonNullable<typeof shared> {
  if (!shared) {
    const right = createRightHandGeometry();
    shared = {
      head: new THREE.SphereGeometry(HEAD_RADIUS, 28, 18),
      face: createFaceGeometry(),
      faceMaterial: new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.35 }),
      hands: { right, left: mirroredHand(right) },
    };
  }
  return shared;
}

/** A canvas sprite: always facing the viewer, drawn with the browser's own fonts (nothing fetched). */
function canvasSprite(width: number, height: number, draw: (g: CanvasRenderingContext2D) => void, metres: number): THREE.Sprite {
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  draw(canvas.getContext("2d")!);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: texture, depthWrite: false }));
  sprite.scale.set((metres * width) / height, metres, 1);
  return sprite;
}

const TAG_FONT = "600 34px system-ui, sans-serif";

/** Draws a name in a dark pill with a dot of the player's colour, from (x, y) (its top left); returns its width. */
function drawNamePill(g: CanvasRenderingContext2D, name: string, colour: string, x: number, y: number, width: number): void {
  g.fillStyle = "rgba(17, 20, 26, 0.8)";
  g.beginPath();
  g.roundRect(x + 2, y + 2, width - 4, 60, 30);
  g.fill();
  g.fillStyle = colour;
  g.beginPath();
  g.arc(x + 34, y + 32, 13, 0, Math.PI * 2);
  g.fill();
  g.fillStyle = "#ffffff";
  g.font = TAG_FONT;
  g.textBaseline = "middle";
  g.fillText(name, x + 58, y + 34);
}

/** The width of a name's pill in canvas pixels. */
function pillWidth(name: string): number {
  const g = document.createElement("canvas").getContext("2d")!;
  g.font = TAG_FONT;
  return Math.ceil(g.measureText(name).width) + 80;
}

/** A name tag: the player's name in a dark pill with a dot of their colour; userData.text holds the name. */
export function createNameTag(name: string, colour: string): THREE.Sprite {
  const width = pillWidth(name);
  const tag = canvasSprite(width, 64, (g) => drawNamePill(g, name, colour, 0, 0, width), NAME_TAG_SIZE);
  tag.name = "avatar-name-tag";
  tag.userData.text = name;
  return tag;
}

/**
 * A desktop player's pointer where they pull: an arrow in their colour, outlined white, its tip at the sprite's
 * position, and their name beside it. Drawn over the bodies (it marks a hand inside one). userData.text: the name.
 */
export function createPointerMarker(name: string, colour: string): THREE.Sprite {
  const pill = pillWidth(name), width = 56 + pill, height = 128;
  const marker = canvasSprite(width, height, (g) => {
    // The arrow of a mouse pointer, tip at (6, 6).
    g.beginPath();
    g.moveTo(6, 6);
    g.lineTo(6, 74);
    g.lineTo(22, 59);
    g.lineTo(33, 84);
    g.lineTo(45, 79);
    g.lineTo(34, 54);
    g.lineTo(55, 54);
    g.closePath();
    g.lineJoin = "round";
    g.lineWidth = 6;
    g.strokeStyle = "#ffffff";
    g.stroke();
    g.fillStyle = colour;
    g.fill();
    drawNamePill(g, name, colour, 52, 60, pill);
  }, 0.11);
  marker.center.set(6 / width, 1 - 6 / height);
  marker.material.depthTest = false;
  marker.renderOrder = 10;
  marker.name = "pointer-marker";
  marker.userData.text = name;
  return marker;
}

/** Disposes a canvas sprite's texture and material (its geometry is three's shared sprite quad). */
export function disposeSprite(sprite: THREE.Sprite): void {
  sprite.material.map?.dispose();
  sprite.material.dispose();
}
