// Material presets a room offers. Young's modulus and density are physical; damping is the solver's
// stiffness-proportional beta (s). Dough is soft and heavily damped (it slumps and barely wobbles), jelly is
// soft and lively, rubber is stiff and springy.

import type { Material } from "../sim";

export interface MaterialPreset extends Material {
  damping: number;
  /** Display colour (sRGB hex) for clients. */
  color: string;
}

export const MATERIALS = Object.freeze({
  jelly: Object.freeze({ youngsModulus: 1.5e5, poissonRatio: 0.45, density: 1050, damping: 0.004, color: "#4fc3f7" }),
  rubber: Object.freeze({ youngsModulus: 6e5, poissonRatio: 0.45, density: 1100, damping: 0.002, color: "#e53935" }),
  dough: Object.freeze({ youngsModulus: 2.5e4, poissonRatio: 0.4, density: 1200, damping: 0.03, color: "#f3d9a4" }),
} satisfies Record<string, MaterialPreset>);

export type MaterialName = keyof typeof MATERIALS;

/** The presets' names, in the order menus offer them. */
export const MATERIAL_NAMES = Object.freeze(Object.keys(MATERIALS) as MaterialName[]);

export function isMaterialName(value: unknown): value is MaterialName {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(MATERIALS, value);
}
