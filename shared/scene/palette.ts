// Colours for uploads that bring none of their own: a mesh without a texture or vertex colours would otherwise
// wear its material's colour, and every uploaded OBJ looked the same flat blue. Each gets one of these instead,
// the same for the same file, and never one too like a body already on the table.

/** Bright, friendly colours, none close to a material's (jelly blue, rubber red, dough cream). */
export const UPLOAD_PALETTE = Object.freeze(["#ab47bc", "#26a69a", "#ffa726", "#9ccc65", "#ec407a", "#7986cb", "#ffd54f", "#f48fb1"]);

/** Colours closer than this (RGB distance, 0-441) are too alike to tell two bodies apart on the table. */
const TOO_CLOSE = 60;

/**
 * The colour an upload wears: the palette colour `seed` (the upload's bake hash) picks, or the next one not too
 * close to any of `taken` (the colours of the bodies on the table); with every one taken, the farthest from them.
 */
export function uploadColour(seed: string, taken: readonly string[]): string {
  const nearest = (colour: string) => taken.reduce((d, other) => Math.min(d, distance(colour, other)), Infinity);
  const start = hash(seed) % UPLOAD_PALETTE.length;
  let best = UPLOAD_PALETTE[start], bestDistance = -1;
  for (let k = 0; k < UPLOAD_PALETTE.length; k++) {
    const colour = UPLOAD_PALETTE[(start + k) % UPLOAD_PALETTE.length], d = nearest(colour);
    if (d >= TOO_CLOSE) return colour;
    if (d > bestDistance) { best = colour; bestDistance = d; }
  }
  return best;
}

/** "#rrggbb" (or "#rgb") to 0-255 channels; anything else is black. */
function rgb(colour: string): [number, number, number] {
  const hex = /^#[0-9a-f]{3}$/i.test(colour) ? colour.replace(/[0-9a-f]/gi, (c) => c + c) : colour;
  const v = /^#[0-9a-f]{6}$/i.test(hex) ? Number.parseInt(hex.slice(1), 16) : 0;
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

function distance(a: string, b: string): number {
  const [r1, g1, b1] = rgb(a), [r2, g2, b2] = rgb(b);
  return Math.hypot(r1 - r2, g1 - g2, b1 - b2);
}

/** FNV-1a: a string to a well-spread unsigned 32-bit number. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
