// The playground: the default room's static scene, rigid props and soft bodies, as data both sides read.
// Units: metres, y up, the floor at y = 0.

import { ASSET_CREDITS } from "./asset-credits";
import type { MaterialName } from "./materials";

export interface StaticBoxSpec {
  name: string;
  center: [number, number, number];
  half: [number, number, number];
  /** Collides but is not drawn (the ceiling: drawn, it would shut out the light and the spectators' view). */
  hidden?: boolean;
}

export interface PropSpec {
  id: string;
  shape: "ball" | "block";
  /** Ball radius or block half extent, m. */
  size: number;
  position: [number, number, number];
  density: number;
  color: string;
}

export interface SoftBodySpec {
  id: string;
  /** "asset:NAME" (a mesh the server ships), "file:/absolute/path" (a mesh file on the server), "box:LxWxH" or "sphere:R" (generated), metres. */
  mesh: string;
  /** Largest extent of an asset mesh, m. */
  size: number;
  material: MaterialName;
  /** Turn about the vertical axis before baking, degrees (to face a mesh towards the players). */
  yaw?: number;
  /** A base-colour texture the server ships beside an asset mesh (NAME.png), drawn with the mesh's own UVs. */
  texture?: string;
  /** Where the body's lowest point starts (x, z) and how high above the surface below (y). */
  position: [number, number, number];
}

/** A rigged character that walks the room on its own (its flesh simulated: shared/rig/character-body.ts). */
export interface CharacterSpec {
  id: string;
  /** "asset:NAME": a skinned glTF with clips that the server ships. */
  mesh: string;
  /** Largest extent (the fox: nose to tail tip), m. */
  size: number;
  /** The loop it walks on the floor: an ellipse about (x, z) with half axes (along x, along z), m. */
  path: { centre: [number, number]; radii: [number, number] };
  /** Its clips for walking, running and looking around, and its speed along the path while walking and running, m/s. */
  clips: { walk: string; run: string; look: string };
  speeds: { walk: number; run: number };
  /** Who made it, as pages show it while it is in the room. */
  credit: string;
  /** Which way it faces (radians about +y from +z) where its loop is a point (radii 0: it plays in place). */
  facing?: number;
  /** Height of what it stands on (m): 0, the floor (default), or the table's top. */
  ground?: number;
}

export interface SceneLayout {
  statics: StaticBoxSpec[];
  props: PropSpec[];
  bodies: SoftBodySpec[];
  /** Characters that walk the room (none when absent). */
  characters?: CharacterSpec[];
  /**
   * Where a character a visitor uploads plays in place (x and z on `ground`, the height it stands at, facing as
   * CharacterSpec's), clear of the others; a room without one takes no characters.
   */
  stage?: { centre: [number, number]; facing: number; ground: number };
  /** Half extent of the room's floor (square), m: anything beyond is out of the room. */
  roomHalfExtent: number;
  /** Height of the room's ceiling, m: anything above is out of the room. */
  roomHeight: number;
}

const TABLE_TOP = 0.75;

export const PLAYGROUND: SceneLayout = {
  roomHalfExtent: 4,
  roomHeight: 3,
  statics: [
    { name: "floor", center: [0, -0.25, 0], half: [4, 0.25, 4] },
    { name: "table", center: [0, TABLE_TOP - 0.025, -0.6], half: [0.8, 0.025, 0.45] },
    { name: "table-leg-1", center: [-0.72, (TABLE_TOP - 0.05) / 2, -0.97], half: [0.03, (TABLE_TOP - 0.05) / 2, 0.03] },
    { name: "table-leg-2", center: [0.72, (TABLE_TOP - 0.05) / 2, -0.97], half: [0.03, (TABLE_TOP - 0.05) / 2, 0.03] },
    { name: "table-leg-3", center: [-0.72, (TABLE_TOP - 0.05) / 2, -0.23], half: [0.03, (TABLE_TOP - 0.05) / 2, 0.03] },
    { name: "table-leg-4", center: [0.72, (TABLE_TOP - 0.05) / 2, -0.23], half: [0.03, (TABLE_TOP - 0.05) / 2, 0.03] },
    // Walls and ceiling are a metre thick (inner faces at 4 m and 3 m): a body flung at 15-20 m/s moves 25-35 cm
    // in a step, and a thin wall's far face would push it on through.
    { name: "wall-north", center: [0, 1.5, -4.5], half: [5, 1.5, 0.5] },
    { name: "wall-south", center: [0, 1.5, 4.5], half: [5, 1.5, 0.5] },
    { name: "wall-west", center: [-4.5, 1.5, 0], half: [0.5, 1.5, 5] },
    { name: "wall-east", center: [4.5, 1.5, 0], half: [0.5, 1.5, 5] },
    // A body flung hard enough (a stretched rubber block let go sails at 8-21 m/s) would clear 3 m walls.
    { name: "ceiling", center: [0, 3.5, 0], half: [5, 0.5, 5], hidden: true },
  ],
  props: [
    { id: "ball-1", shape: "ball", size: 0.06, position: [0.55, TABLE_TOP + 0.06, -0.35], density: 400, color: "#ffb300" },
    // The floor's props rest clear of the fox's loop by more than CHARACTER_PROP_CLEARANCE (21 and 22 cm from its
    // skin at the nearest, running; at [-0.9, 0.4] and [0.9, 0.35] they were 5.5 and 7.5 cm from it).
    { id: "ball-2", shape: "ball", size: 0.08, position: [-0.85, 0.08, 0.25], density: 300, color: "#7cb342" },
    { id: "block-1", shape: "block", size: 0.05, position: [-0.55, TABLE_TOP + 0.05, -0.35], density: 600, color: "#8d6e63" },
    { id: "block-2", shape: "block", size: 0.07, position: [0.85, 0.07, 0.2], density: 600, color: "#5c6bc0" },
  ],
  bodies: [
    { id: "spot", mesh: "asset:spot", texture: "spot_texture", size: 0.3, material: "jelly", yaw: 180, position: [0, TABLE_TOP + 0.002, -0.6] },
    { id: "rubber-block", mesh: "box:0.18x0.12x0.12", size: 0.18, material: "rubber", position: [0.45, TABLE_TOP + 0.002, -0.7] },
    { id: "dough-ball", mesh: "sphere:0.08", size: 0.16, material: "dough", position: [-0.45, TABLE_TOP + 0.002, -0.7] },
  ],
  // On the table, at the front between its props and in front of spot, side on to the players (facing +x).
  stage: { centre: [0, -0.3], facing: Math.PI / 2, ground: TABLE_TOP },
  characters: [
    // Around the table, clear of its legs and of the props on the floor by the width of a fox.
    { id: "fox", mesh: "asset:fox", size: 0.8, path: { centre: [0, -0.6], radii: [1.7, 1.45] }, clips: { walk: "Walk", run: "Run", look: "Survey" }, speeds: { walk: 0.5, run: 1.8 }, credit: ASSET_CREDITS.fox },
  ],
};
