// Looking at screenshots: they are decoded and measured by the page itself (no image library in Node), kept there
// by name, and only the figures (or a small PNG made of them) come back.

import type { Page } from "playwright-core";
import { inPage } from "./browser";

/** Hides everything drawn over the 3D view (title, panels, the QR code's canvas): what the scene alone looks like. */
export async function hideOverlays(page: Page): Promise<void> {
  await page.addStyleTag({ content: "#root > :not(:has(canvas:not([data-testid]))) { visibility: hidden !important; }" });
}

/** Decodes a screenshot in the page and keeps its pixels there under `name`. */
export async function keepShot(page: Page, name: string, png: Buffer): Promise<void> {
  await inPage(page, `(async () => {
    const image = await createImageBitmap(await (await fetch("data:image/png;base64,${png.toString("base64")}")).blob());
    const canvas = new OffscreenCanvas(image.width, image.height);
    const g = canvas.getContext("2d");
    g.drawImage(image, 0, 0);
    (window.shots ??= {})[${JSON.stringify(name)}] = g.getImageData(0, 0, image.width, image.height);
  })()`);
}

/** Per horizontal third of a kept shot (top, middle, bottom): mean luminance (0-255) and the share of near-black pixels. */
export function thirds(page: Page, name: string, nearBlack: number): Promise<{ mean: number; dark: number }[]> {
  return inPage(page, `(() => {
    const shot = window.shots[${JSON.stringify(name)}], { width, height, data } = shot, out = [];
    for (let t = 0; t < 3; t++) {
      let sum = 0, dark = 0, n = 0;
      for (let y = Math.floor((t * height) / 3); y < Math.floor(((t + 1) * height) / 3); y++) for (let x = 0; x < width; x++) {
        const i = 4 * (y * width + x), l = 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
        sum += l; n++;
        if (l < ${nearBlack}) dark++;
      }
      out.push({ mean: sum / n, dark: dark / n });
    }
    return out;
  })()`);
}

/**
 * An edge seen through a body is a line of steps, at least this many (the block's outline across the cow's muzzle
 * was hundreds); fewer large steps, wherever they lie, are refraction noise.
 */
const LINE_PIXELS = 20;

/** Four views from one camera: with and without a body, each with and without the things behind it. */
export interface ShowThroughShots { all: string; bodyAlone: string; behindAlone: string; neither: string }

/**
 * How much of what lies behind a body shows through it, and how sharply. The body's silhouette: where the views
 * with and without it differ, both with and without the things behind (so that its shadow on them is left out),
 * within `rect` (x0, y0, x1, y1, page pixels), shrunk by `inset` pixels (its antialiased edge left out). Inside it:
 * the area (pixels), the mean and the largest luminance change (0-255) the things behind make, and the largest change
 * of that difference between neighbouring pixels (a sharp edge seen through the body; a soft blur has no step) with
 * its 99.5th percentile, and the LINE_PIXELS-th largest (lineStep: an edge seen through is a line of at least that
 * many steps, not necessarily joined up; a lone pixel of refraction noise is not). Steps across the body's own edges are left out: where the body alone changes by more than
 * `ownEdge` between the two pixels (its texture's patches, a leg in front of its belly), what shows through it
 * changes there too, as it would through real jelly; a ghost is an edge the body itself does not have. `sharp`: the
 * same steps for the things behind seen directly (with minus without them, no body), scaled to the same mean change:
 * what a ghost blended over the scene would give, the reference a blurred view is judged against.
 */
export function showThrough(page: Page, shots: ShowThroughShots, rect: [number, number, number, number], inset: number, ownEdge: number): Promise<{ area: number; mean: number; max: number; step: number; lineStep: number; step995: number; largestAt: [number, number]; sharp: { lineStep: number; step995: number } }> {
  return inPage(page, `(() => {
    const s = window.shots, all = s[${JSON.stringify(shots.all)}], body = s[${JSON.stringify(shots.bodyAlone)}];
    const behind = s[${JSON.stringify(shots.behindAlone)}], neither = s[${JSON.stringify(shots.neither)}];
    const { width, height } = all, [x0, y0, x1, y1] = ${JSON.stringify(rect)};
    const lum = (d, i) => 0.2126 * d[4 * i] + 0.7152 * d[4 * i + 1] + 0.0722 * d[4 * i + 2];
    const differs = (u, v, i) => Math.abs(u.data[4 * i] - v.data[4 * i]) + Math.abs(u.data[4 * i + 1] - v.data[4 * i + 1]) + Math.abs(u.data[4 * i + 2] - v.data[4 * i + 2]) > 24;
    let mask = new Uint8Array(width * height);
    for (let y = Math.max(0, Math.floor(y0)); y < Math.min(height, Math.ceil(y1)); y++) for (let x = Math.max(0, Math.floor(x0)); x < Math.min(width, Math.ceil(x1)); x++) {
      const i = y * width + x;
      mask[i] = differs(all, behind, i) && differs(body, neither, i) ? 1 : 0;
    }
    for (let r = 0; r < ${inset}; r++) {
      const next = new Uint8Array(width * height);
      for (let y = 1; y < height - 1; y++) for (let x = 1; x < width - 1; x++) {
        const i = y * width + x;
        next[i] = mask[i] & mask[i - 1] & mask[i + 1] & mask[i - width] & mask[i + width];
      }
      mask = next;
    }
    // What shows through the body, and what lies behind it seen directly (as through a clear window).
    const diff = new Float32Array(width * height), sharp = new Float32Array(width * height);
    let area = 0, sum = 0, sharpSum = 0, max = 0;
    for (let i = 0; i < width * height; i++) {
      if (!mask[i]) continue;
      diff[i] = lum(all.data, i) - lum(body.data, i);
      sharp[i] = lum(behind.data, i) - lum(neither.data, i);
      area++; sum += Math.abs(diff[i]); sharpSum += Math.abs(sharp[i]); max = Math.max(max, Math.abs(diff[i]));
    }
    const scale = sharpSum > 0 ? sum / sharpSum : 0;
    const steps = [], sharpSteps = [];
    let largestAt = [0, 0], largest = -1;
    const step = (i, j, x, y) => {
      if (Math.abs(lum(body.data, j) - lum(body.data, i)) > ${ownEdge}) return;
      const d = Math.abs(diff[j] - diff[i]);
      steps.push(d);
      sharpSteps.push(scale * Math.abs(sharp[j] - sharp[i]));
      if (d > largest) { largest = d; largestAt = [x, y]; }
    };
    for (let y = 0; y < height - 1; y++) for (let x = 0; x < width - 1; x++) {
      const i = y * width + x;
      if (!mask[i]) continue;
      if (mask[i + 1]) step(i, i + 1, x, y);
      if (mask[i + width]) step(i, i + width, x, y);
    }
    steps.sort((u, v) => u - v);
    sharpSteps.sort((u, v) => u - v);
    const at = (list, f) => list.length ? list[Math.min(list.length - 1, Math.floor(f * list.length))] : 0;
    const lineAt = (list) => list.length ? list[Math.max(0, list.length - ${LINE_PIXELS})] : 0;
    return {
      area, mean: area ? sum / area : 0, max, step: at(steps, 1), lineStep: lineAt(steps), step995: at(steps, 0.995), largestAt,
      sharp: { lineStep: lineAt(sharpSteps), step995: at(sharpSteps, 0.995) },
    };
  })()`);
}

/** A PNG of kept shots side by side, `columns` to a row, each scaled by `scale`. */
export async function contactSheet(page: Page, names: string[], columns: number, scale: number): Promise<Buffer> {
  const base64 = await inPage<string>(page, `(async () => {
    const shots = ${JSON.stringify(names)}.map((n) => window.shots[n]);
    const w = Math.round(shots[0].width * ${scale}), h = Math.round(shots[0].height * ${scale}), rows = Math.ceil(shots.length / ${columns});
    const sheet = new OffscreenCanvas(w * Math.min(${columns}, shots.length), h * rows), g = sheet.getContext("2d");
    g.imageSmoothingQuality = "high";
    for (const [k, shot] of shots.entries()) {
      const bitmap = await createImageBitmap(shot);
      g.drawImage(bitmap, (k % ${columns}) * w, Math.floor(k / ${columns}) * h, w, h);
    }
    const bytes = new Uint8Array(await (await sheet.convertToBlob({ type: "image/png" })).arrayBuffer());
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
  })()`);
  return Buffer.from(base64, "base64");
}

/** What an object covers on screen (the pixels that differ between two kept shots) against points said to be on it. */
export interface Silhouette {
  /** Share of the points (page pixels) with a covered pixel within `radius`. */
  covered: number;
  /** The covered pixels' bounding box and the points' (x0, y0, x1, y1). */
  box: [number, number, number, number];
  pointBox: [number, number, number, number];
  /** For each column asked about: the topmost covered pixel's row in it (Infinity where none). */
  tops: number[];
}

/**
 * The silhouette of what the shot `with` has and `without` lacks (a pixel differs by more than `threshold` summed
 * over its three channels), measured against `points` and the columns `columns`.
 */
export function silhouette(page: Page, withName: string, withoutName: string, threshold: number, points: [number, number][], radius: number, columns: number[]): Promise<Silhouette> {
  return inPage(page, `(() => {
    const a = window.shots[${JSON.stringify(withName)}], b = window.shots[${JSON.stringify(withoutName)}].data, { width, height, data } = a;
    const mask = new Uint8Array(width * height), box = [Infinity, Infinity, -Infinity, -Infinity];
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
      const i = 4 * (y * width + x);
      if (Math.abs(data[i] - b[i]) + Math.abs(data[i + 1] - b[i + 1]) + Math.abs(data[i + 2] - b[i + 2]) <= ${threshold}) continue;
      mask[y * width + x] = 1;
      box[0] = Math.min(box[0], x); box[1] = Math.min(box[1], y); box[2] = Math.max(box[2], x); box[3] = Math.max(box[3], y);
    }
    const points = ${JSON.stringify(points)}, r = ${radius}, pointBox = [Infinity, Infinity, -Infinity, -Infinity];
    let covered = 0;
    for (const [px, py] of points) {
      pointBox[0] = Math.min(pointBox[0], px); pointBox[1] = Math.min(pointBox[1], py); pointBox[2] = Math.max(pointBox[2], px); pointBox[3] = Math.max(pointBox[3], py);
      let hit = false;
      for (let y = Math.max(0, Math.round(py) - r); y <= Math.min(height - 1, Math.round(py) + r) && !hit; y++)
        for (let x = Math.max(0, Math.round(px) - r); x <= Math.min(width - 1, Math.round(px) + r) && !hit; x++) hit = mask[y * width + x] === 1;
      if (hit) covered++;
    }
    const tops = ${JSON.stringify(columns)}.map((column) => {
      const x = Math.round(column);
      if (!(x >= 0 && x < width)) return Infinity;
      for (let y = 0; y < height; y++) if (mask[y * width + x]) return y;
      return Infinity;
    });
    return { covered: covered / Math.max(1, points.length), box, pointBox, tops };
  })()`);
}
