// The menu inside the headset: a small panel above the left wrist (controller or hand) when it is raised into
// view, turned to the eyes, with "Reset table", "Leave VR", the material of the body last held (each press
// turns it into the next material), "Add ..." (the server's gallery meshes in turn), in AR "Align table", and what
// a visitor's character plays (each press picks the next: auto, walk, run, look, stop), pressed by touching a
// button with the right hand's fingertip or controller.
// Below the buttons: the connection and players (and, with ?debug, frame rate and simulation time), in place of
// a head-locked strip floating over the table.

import { useFrame } from "@react-three/fiber";
import { useEffect, useMemo, useRef } from "react";
import * as THREE from "three";
import { xrInputs } from "../interaction/xr-inputs";
import type { PliantRoomClient } from "../../../shared/net";
import { HANDS } from "../../../shared/net";
import { MATERIAL_NAMES, type MaterialName } from "../../../shared/scene/materials";
import type { ConnectionState } from "../room/room-connection";
import { frameStats } from "./frame-stats";
import { bodyName, uploadErrorSentence } from "./visitor-messages";
import { addGalleryMesh, fetchGallery } from "../upload/add-mesh";
import { startAligning } from "../xr/table-alignment";
import type { CharacterMode, GalleryEntry } from "../../../shared/net";
import { directCharacter, nextCharacterMode, visitorsCharacter } from "../../../shared/net/client/visitor-character";

const WIDTH = 0.16, HEIGHT = 0.187;
/** Above the wrist, m. */
const LIFT = 0.09;
/**
 * The menu shows (and takes presses) only while its wrist is raised into view: within this distance of the eyes
 * and this angle of where they look. A hand reaching past the other wrist at the table presses nothing.
 */
const LOOK_DISTANCE = 0.7;
const LOOK_COS = Math.cos((32 * Math.PI) / 180);
/** A fingertip this close to a button's centre presses it, m; a button presses once until the finger leaves. */
const PRESS = 0.022;
type ButtonId = "reset" | "leave" | "material" | "add" | "align" | "character";
/** Button centres in the panel's plane, m from its centre: four rows 3.7 cm apart, the status line below. */
const BUTTONS: Record<ButtonId, [number, number]> = {
  reset: [-0.038, 0.0635], leave: [0.038, 0.0635], material: [0, 0.0265], add: [-0.038, -0.0105], align: [0.038, -0.0105], character: [0, -0.0475],
};
const BUTTON_IDS = Object.keys(BUTTONS) as ButtonId[];

/** Where the wrist menu's buttons are this frame (tests press them); null outside a session. */
export const wristMenu = { buttons: null as Record<ButtonId, [number, number, number]> | null, presses: 0 };

/** The material after `material` in the menu's cycle. */
function nextMaterial(material: MaterialName): MaterialName {
  return MATERIAL_NAMES[(MATERIAL_NAMES.indexOf(material) + 1) % MATERIAL_NAMES.length];
}

/** `passthrough`: an immersive-ar session, where "Align table" puts the room's table on a real one again. */
export function WristMenu({ connection, client, canPlay, onLeave, debug, passthrough = false }: { connection: ConnectionState; client: PliantRoomClient | null; canPlay: boolean; onLeave: () => void; debug: boolean; passthrough?: boolean }) {
  const panel = useRef<THREE.Mesh>(null);
  const { canvas, texture } = useMemo(() => {
    const canvas = document.createElement("canvas");
    canvas.width = 512;
    canvas.height = 598;
    const texture = new THREE.CanvasTexture(canvas);
    texture.colorSpace = THREE.SRGBColorSpace;
    return { canvas, texture };
  }, []);
  useEffect(() => () => texture.dispose(), [texture]);
  const scratch = useRef({ head: new THREE.Vector3(), point: new THREE.Vector3(), pressed: null as ButtonId | null, lastDraw: 0, body: null as string | null }).current;
  // "Add": each press adds the next mesh of the server's gallery.
  const adding = useRef({ gallery: [] as GalleryEntry[], next: 0, busy: false, status: "" }).current;
  useEffect(() => {
    if (canPlay && !adding.gallery.length) void fetchGallery().then((g) => (adding.gallery = g)).catch(() => undefined);
  }, [canPlay, adding]);

  useFrame(({ gl }) => {
    const m = panel.current;
    if (!m) return;
    // The material button acts on the body last held (or the first one in the room before any grab).
    for (const hand of HANDS) scratch.body = client?.heldBody(hand) ?? scratch.body;
    if (client && (scratch.body === null || !client.bodies.has(scratch.body))) scratch.body = client.bodies.keys().next().value ?? null;
    const wrist = xrInputs.left.grip;
    const head = gl.xr.getCamera();
    let inView = false;
    if (gl.xr.isPresenting && wrist) {
      scratch.head.setFromMatrixPosition(head.matrixWorld);
      const e = head.matrixWorld.elements;
      const dx = wrist[0] - scratch.head.x, dy = wrist[1] + LIFT - scratch.head.y, dz = wrist[2] - scratch.head.z, d = Math.hypot(dx, dy, dz);
      inView = d < LOOK_DISTANCE && (-e[8] * dx - e[9] * dy - e[10] * dz) / d > LOOK_COS;
    }
    m.visible = inView;
    if (!inView || !wrist) {
      wristMenu.buttons = null;
      scratch.pressed = null;
      return;
    }
    m.position.set(wrist[0], wrist[1] + LIFT, wrist[2]);
    // Turned to the eyes, upright.
    m.lookAt(scratch.head.x, m.position.y, scratch.head.z);
    m.updateMatrixWorld();
    const buttons = (wristMenu.buttons ??= { reset: [0, 0, 0], leave: [0, 0, 0], material: [0, 0, 0], add: [0, 0, 0], align: [0, 0, 0], character: [0, 0, 0] });
    for (const id of BUTTON_IDS) {
      scratch.point.set(BUTTONS[id][0], BUTTONS[id][1], 0).applyMatrix4(m.matrixWorld);
      buttons[id][0] = scratch.point.x; buttons[id][1] = scratch.point.y; buttons[id][2] = scratch.point.z;
    }
    // The right index fingertip (hands) or the tip of the right controller (its target ray's origin) presses.
    const finger = xrInputs.right.indexTip ?? xrInputs.right.ray;
    let touching: ButtonId | null = null;
    if (finger) {
      for (const id of BUTTON_IDS) {
        const b = buttons[id];
        if (Math.hypot(finger[0] - b[0], finger[1] - b[1], finger[2] - b[2]) < PRESS) touching = id;
      }
    }
    if (touching && touching !== scratch.pressed) {
      wristMenu.presses++;
      if (touching === "reset" && canPlay) client?.resetTable();
      if (touching === "material" && canPlay && client && scratch.body) client.setMaterial(scratch.body, nextMaterial(client.materialOf(scratch.body)));
      if (touching === "leave") onLeave();
      if (touching === "align" && passthrough) startAligning();
      const character = client ? visitorsCharacter(client) : null;
      if (touching === "character" && canPlay && client && character) directCharacter(client, character.id, nextCharacterMode(character.mode));
      const entry = adding.gallery[adding.next % Math.max(1, adding.gallery.length)];
      if (touching === "add" && canPlay && client && entry && !adding.busy) {
        adding.busy = true;
        adding.status = `sending ${entry.name}…`;
        void addGalleryMesh(client, entry).then(() => {
          adding.status = `${entry.name} is on its way`;
          adding.next++;
        }, (error: unknown) => (adding.status = uploadErrorSentence(entry.name, error))).finally(() => (adding.busy = false));
      }
    }
    scratch.pressed = touching;
    const now = performance.now();
    if (now - scratch.lastDraw < 250) return;
    scratch.lastDraw = now;
    const material = client && scratch.body ? { body: bodyName(client, scratch.body), name: client.materialOf(scratch.body) } : null;
    const next = adding.gallery.length ? adding.gallery[adding.next % adding.gallery.length].name : null;
    draw(canvas, connection, canPlay, material, touching, debug, { next, status: adding.status }, passthrough, client ? visitorsCharacter(client) : null);
    texture.needsUpdate = true;
  });

  return (
    <mesh ref={panel} visible={false} renderOrder={10} name="wrist-menu">
      <planeGeometry args={[WIDTH, HEIGHT]} />
      <meshBasicMaterial map={texture} transparent side={THREE.DoubleSide} />
    </mesh>
  );
}

function draw(canvas: HTMLCanvasElement, connection: ConnectionState, canPlay: boolean, material: { body: string; name: MaterialName } | null, touching: ButtonId | null, debug: boolean, add: { next: string | null; status: string }, passthrough: boolean, character: { name: string; mode: CharacterMode } | null): void {
  const g = canvas.getContext("2d")!, w = canvas.width, h = canvas.height;
  g.clearRect(0, 0, w, h);
  g.fillStyle = "rgba(17, 20, 26, 0.85)";
  g.beginPath();
  g.roundRect(0, 0, w, h, 28);
  g.fill();
  const button = (id: ButtonId, label: string, enabled: boolean, halfWidth = 110) => {
    // Panel metres to canvas pixels: x from -W/2..W/2, y from H/2..-H/2.
    const cx = ((BUTTONS[id][0] + WIDTH / 2) / WIDTH) * w, cy = ((HEIGHT / 2 - BUTTONS[id][1]) / HEIGHT) * h;
    g.fillStyle = !enabled ? "#2c3442" : touching === id ? "#81d4fa" : id === "leave" ? "#ef5350" : id === "material" ? "#ffb74d" : id === "add" ? "#aed581" : id === "align" ? "#ce93d8" : id === "character" ? "#f48fb1" : "#4fc3f7";
    g.beginPath();
    g.roundRect(cx - halfWidth, cy - 44, 2 * halfWidth, 88, 18);
    g.fill();
    g.fillStyle = enabled ? "#0b1118" : "#7d8794";
    g.font = "700 34px system-ui, sans-serif";
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.fillText(label, cx, cy + 2);
  };
  button("reset", "Reset table", canPlay);
  button("leave", passthrough ? "Leave AR" : "Leave VR", true);
  button("material", material ? `${material.body}: ${material.name} → ${nextMaterial(material.name)}` : "no body", canPlay && material !== null, 230);
  button("add", add.next ? `Add ${add.next}` : "gallery…", canPlay && add.next !== null);
  button("align", "Align table", passthrough);
  button("character", character ? `${character.name}: ${character.mode} → ${nextCharacterMode(character.mode)}` : "no character", canPlay && character !== null, 230);
  g.textAlign = "left";
  g.fillStyle = "#e8ecf1";
  g.font = "500 26px system-ui, sans-serif";
  g.fillText(add.status || `${connection.status} · ${connection.role === "player" ? "playing" : "watching"}`, 26, 528, w - 52);
  if (debug) g.fillText(`${(connection.client?.rtt ?? 0).toFixed(0)} ms · ${frameStats.fps().toFixed(0)} fps · sim ${frameStats.mean(frameStats.simulation).toFixed(2)} ms`, 26, 568);
}
