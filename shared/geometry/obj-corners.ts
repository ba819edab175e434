// Wavefront OBJ text read into triangle corners, with the meaning three's OBJLoader gives every line (the reference:
// test/geometry/obj-corners.test.ts compares the two on every asset and on hand-written edge cases), in one pass
// over the text without the loader's per-line arrays, regular expressions and face normals: 55-85 ms on the 2.4 MB
// bunny where the loader takes 115-150 ms (warm, in Node), before the vertex merge. What it keeps is what parseObj
// uses: positions, texture coordinates and vertex colours at every corner, as the loader's float32 attributes hold them.
//
// The loader's rules kept here: polygons are fans from their first corner; an index counts from 1, or back from the
// end when negative; a corner that names a missing vertex or UV reads NaN; 'o' and 'g' lines start a new part (the
// first only names the part already begun); a part has UVs when any of its faces names one (its others get (0, 0)),
// and colours when any corner's vertex has one (a vertex without lines up the part's colours against later corners,
// as the loader's attribute does); `v x y z r g b` colours are sRGB, kept linear; a part with a line or point
// element is not a mesh (parseObj drops those elements' lines before).

import { Color, SRGBColorSpace } from "three";

export interface ObjCorners {
  /** Three a corner, three corners a triangle, in the file's order. */
  positions: Float64Array;
  /** Two a corner, or null unless every part with faces has texture coordinates. */
  uvs: Float64Array | null;
  /** Three a corner (linear), or null unless every part with faces has vertex colours; NaN where a corner has none. */
  colours: Float64Array | null;
}

interface Part {
  positions: number[];
  uvs: number[];
  colours: number[];
  hasUVs: boolean;
  dropped: boolean;
}

const colour = new Color();

export function objCorners(text: string): ObjCorners {
  const vertices: number[] = [], colours: (number | undefined)[] = [], uvs: number[] = [];
  const parts: Part[] = [];
  let part = newPart(), named = false;
  parts.push(part);
  const tokens: string[] = [];
  // A face's corners: where each starts and ends in the text.
  const cornerStart: number[] = [], cornerEnd: number[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let at = start;
    while (at < end && isSpace(text.charCodeAt(at))) at++;
    const first = text.charCodeAt(at);
    if (at < end && first !== 35 /* # */) {
      if (first === 118 /* v */) {
        split(text, at, end, tokens);
        // The loader splits the line on /\s+/: trailing whitespace leaves an empty last token (it counts towards a colour).
        if (isSpace(text.charCodeAt(end - 1))) tokens.push("");
        const kind = tokens[0];
        if (kind === "v") {
          vertices.push(parseFloat(tokens[1]), parseFloat(tokens[2]), parseFloat(tokens[3]));
          if (tokens.length >= 7) {
            colour.setRGB(parseFloat(tokens[4]), parseFloat(tokens[5]), parseFloat(tokens[6]), SRGBColorSpace);
            colours.push(colour.r, colour.g, colour.b);
          } else colours.push(undefined, undefined, undefined);
        } else if (kind === "vt") uvs.push(parseFloat(tokens[1]), parseFloat(tokens[2]));
      } else if (first === 102 /* f */) {
        spans(text, at + 1, end, cornerStart, cornerEnd);
        for (let j = 1; j + 1 < cornerStart.length; j++) {
          addFace(text, part, cornerStart[0], cornerEnd[0], cornerStart[j], cornerEnd[j], cornerStart[j + 1], cornerEnd[j + 1], vertices, colours, uvs);
        }
      } else if (first === 108 /* l */ || first === 112 /* p */) {
        // A line or point element turns the loader's part into lines or points: its faces are not a mesh's.
        part.dropped = true;
      } else if (first === 111 /* o */ || first === 103 /* g */) {
        // The loader's first object line names the part begun without one; later ones start another.
        if (named) parts.push((part = newPart()));
        named = true;
      }
    }
    start = end + 1;
  }
  const used = parts.filter((p) => p.positions.length > 0 && !p.dropped);
  const corners = used.reduce((n, p) => n + p.positions.length / 3, 0);
  const textured = used.every((p) => p.hasUVs), coloured = used.every((p) => p.colours.length > 0);
  const positions = new Float64Array(3 * corners), uvOut = textured ? new Float64Array(2 * corners) : null;
  const colourOut = coloured ? new Float64Array(3 * corners).fill(NaN) : null;
  let offset = 0;
  for (const p of used) {
    // As the loader's float32 attributes hold them; a part's colours one a corner whose vertex had one, in order.
    for (let i = 0; i < p.positions.length; i++) positions[offset + i] = Math.fround(p.positions[i]);
    if (uvOut) for (let i = 0; i < p.uvs.length; i++) uvOut[(2 * offset) / 3 + i] = Math.fround(p.uvs[i]);
    if (colourOut) for (let i = 0, n = Math.min(p.colours.length, p.positions.length); i < n; i++) colourOut[offset + i] = Math.fround(p.colours[i]);
    offset += p.positions.length;
  }
  return { positions, uvs: uvOut, colours: colourOut };
}

function newPart(): Part {
  return { positions: [], uvs: [], colours: [], hasUVs: false, dropped: false };
}

/** One triangle of corners a, b, c (text spans "v", "v/vt" or "v/vt/vn"; normals are not read). */
function addFace(
  text: string, part: Part, a0: number, a1: number, b0: number, b1: number, c0: number, c1: number,
  vertices: number[], colours: (number | undefined)[], uvs: number[],
): void {
  const vertexCount = vertices.length / 3;
  addCorner(part, index(text, a0, a1, vertexCount), vertices, colours);
  addCorner(part, index(text, b0, b1, vertexCount), vertices, colours);
  addCorner(part, index(text, c0, c1, vertexCount), vertices, colours);
  // Like the loader, the first corner decides whether the face has texture coordinates: a second slot, not empty.
  const ua = slash(text, a0, a1);
  if (ua >= 0 && ua + 1 < a1 && text.charCodeAt(ua + 1) !== 47 /* / */) {
    const uvCount = uvs.length / 2;
    for (const [from, to] of [[a0, a1], [b0, b1], [c0, c1]]) {
      const at = slash(text, from, to);
      const i = at >= 0 ? index(text, at + 1, to, uvCount) : NaN;
      part.uvs.push(read(uvs, 2 * i), read(uvs, 2 * i + 1));
    }
    part.hasUVs = true;
  } else part.uvs.push(0, 0, 0, 0, 0, 0);
}

function addCorner(part: Part, i: number, vertices: number[], colours: (number | undefined)[]): void {
  part.positions.push(read(vertices, 3 * i), read(vertices, 3 * i + 1), read(vertices, 3 * i + 2));
  // A corner's colour only when its vertex has one (the loader skips the others, so later corners' colours move up).
  const c = 3 * i;
  if (c >= 0 && c < colours.length && colours[c] !== undefined) part.colours.push(colours[c]!, colours[c + 1]!, colours[c + 2]!);
}

/**
 * The 0-based index in text[from, to) up to its first '/' (1-based, or negative from the end of a list of `count`),
 * read as parseInt(slot, 10) reads it (a sign and the digits that follow); NaN when there are none.
 */
function index(text: string, from: number, to: number, count: number): number {
  let at = from, sign = 1;
  const first = text.charCodeAt(at);
  if (at < to && (first === 45 /* - */ || first === 43 /* + */)) {
    if (first === 45) sign = -1;
    at++;
  }
  let value = 0, digits = 0;
  for (; at < to; at++, digits++) {
    const d = text.charCodeAt(at) - 48;
    if (d < 0 || d > 9) break;
    value = 10 * value + d;
  }
  if (digits === 0) return NaN;
  value *= sign;
  return value >= 0 ? value - 1 : value + count;
}

/** The first '/' in text[from, to), or -1. */
function slash(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 47) return i;
  return -1;
}

/** list[i], or NaN where the loader would read past the list (a missing vertex or UV). */
function read(list: number[], i: number): number {
  return i >= 0 && i < list.length ? list[i] : NaN;
}

/** The whitespace-separated tokens of text[from, to), into `out`. */
function split(text: string, from: number, to: number, out: string[]): void {
  spans(text, from, to, tokenStarts, tokenEnds);
  out.length = 0;
  for (let k = 0; k < tokenStarts.length; k++) out.push(text.slice(tokenStarts[k], tokenEnds[k]));
}

const tokenStarts: number[] = [], tokenEnds: number[] = [];

/** Where each whitespace-separated token of text[from, to) starts and ends. */
function spans(text: string, from: number, to: number, starts: number[], ends: number[]): void {
  starts.length = 0;
  ends.length = 0;
  let i = from;
  for (;;) {
    while (i < to && isSpace(text.charCodeAt(i))) i++;
    if (i >= to) return;
    starts.push(i);
    while (i < to && !isSpace(text.charCodeAt(i))) i++;
    ends.push(i);
  }
}

/** JavaScript's \s (what the loader splits and trims on). */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}
