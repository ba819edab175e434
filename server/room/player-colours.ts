// Every seat in a room gets a colour nobody else there has, so that people can tell whose hand is whose: the one
// asked for when no other seat's is close to it, otherwise the first free colour of the palette.

export const PALETTE = ["#ef5350", "#42a5f5", "#66bb6a", "#ffa726", "#ab47bc", "#26c6da", "#ec407a", "#d4e157"];

/** Colours closer than this (RGB distance, 0-441) are too alike to tell apart across a room. */
const TOO_CLOSE = 60;

function rgb(colour: string): [number, number, number] {
  const v = Number.parseInt(colour.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

function distance(a: string, b: string): number {
  const [r1, g1, b1] = rgb(a), [r2, g2, b2] = rgb(b);
  return Math.hypot(r1 - r2, g1 - g2, b1 - b2);
}

/**
 * A colour for a new seat: `wanted` ("#rrggbb" or null) unless one of `taken` is too close to it; then the first
 * free palette colour; in a room fuller than that, the candidate hue farthest from every colour taken.
 */
export function uniqueColour(wanted: string | null, taken: readonly string[], slot: number): string {
  const nearest = (colour: string) => taken.reduce((d, other) => Math.min(d, distance(colour, other)), Infinity);
  if (wanted && nearest(wanted) >= TOO_CLOSE) return wanted;
  for (let k = 0; k < PALETTE.length; k++) {
    const colour = PALETTE[(slot + k) % PALETTE.length];
    if (nearest(colour) >= TOO_CLOSE) return colour;
  }
  let best = PALETTE[slot % PALETTE.length], bestDistance = -1;
  for (const colour of EXTRA_HUES) {
    const d = nearest(colour);
    if (d > bestDistance) { best = colour; bestDistance = d; }
  }
  return best;
}

function hsl(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return `#${[channel(0), channel(8), channel(4)].map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** Bright hues a golden angle apart, in three lightnesses, for rooms fuller than the palette. */
const EXTRA_HUES = Array.from({ length: 96 }, (_, k) => hsl((k * 137.508) % 360, 0.75, [0.55, 0.7, 0.42][k % 3]));
