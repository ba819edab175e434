// Which bodies the page's pointer is over and which its hands hold, for the meshes to light up: the only state
// shared between the interactions and the renderer, read every frame (no React re-render).

export const highlight = {
  /** The body under the mouse or finger, if it could be grabbed. */
  hovered: null as string | null,
  /** Bodies this page holds (mouse, touch, controllers or hands). */
  held: new Set<string>(),
};

/** Emissive intensity of a hovered and of a held body. */
export const HOVER_GLOW = 0.12;
export const HELD_GLOW = 0.28;
