// Page probes for the overlay's layout: which screen rectangles the HUD paints, the area of their union, and
// whether any of them covers the table's bodies or an upload's placeholder, as the camera shows them. The page
// watches itself (at the first frame after every quarter second, so that the watch leaves the page time to draw and
// answer), and keeps the worst it saw. Strings, not functions (see browser.ts).

/**
 * Starts the watch (window.__layout): checks made, the largest HUD area (fraction of the viewport), what covered
 * what, and the lines of text it showed meanwhile.
 */
export const watchLayout = `(() => {
  const room = document.querySelector("canvas");
  const skip = new Set();
  for (let e = room; e; e = e.parentElement) skip.add(e);
  const shown = (el) => el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  // Every rectangle the overlay paints, clipped to the viewport: elements with a background, a border, a backdrop
  // filter or text of their own, and controls; not the room's canvas, nor the transparent boxes that lay panels out.
  const hudRects = () => {
    const rects = [];
    for (const el of document.body.querySelectorAll("*")) {
      if (skip.has(el) || !shown(el)) continue;
      const s = getComputedStyle(el), r = el.getBoundingClientRect();
      const left = Math.max(0, r.left), top = Math.max(0, r.top), right = Math.min(innerWidth, r.right), bottom = Math.min(innerHeight, r.bottom);
      if (right - left < 1 || bottom - top < 1) continue;
      const border = ["Top", "Bottom", "Left", "Right"].some((side) => parseFloat(s["border" + side + "Width"]) > 0 && s["border" + side + "Style"] !== "none");
      const paints = !/^(transparent|rgba\\(0, 0, 0, 0\\))$/.test(s.backgroundColor) || (s.backdropFilter && s.backdropFilter !== "none") || border ||
        [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) || /^(BUTTON|INPUT|SELECT|TEXTAREA|CANVAS|IMG|svg)$/.test(el.tagName);
      if (paints) rects.push([left, top, right, bottom, (el.dataset.testid || el.tagName.toLowerCase()) + ": " + (el.textContent || "").trim().slice(0, 50)]);
    }
    return rects;
  };
  // The union's area, by coordinate compression.
  const unionArea = (rects) => {
    const xs = [...new Set(rects.flatMap((r) => [r[0], r[2]]))].sort((a, b) => a - b);
    const ys = [...new Set(rects.flatMap((r) => [r[1], r[3]]))].sort((a, b) => a - b);
    let area = 0;
    for (let i = 0; i + 1 < xs.length; i++) for (let j = 0; j + 1 < ys.length; j++) {
      const cx = (xs[i] + xs[i + 1]) / 2, cy = (ys[j] + ys[j + 1]) / 2;
      if (rects.some((r) => r[0] <= cx && cx < r[2] && r[1] <= cy && cy < r[3])) area += (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j]);
    }
    return area;
  };
  const p = window.pliant;
  const grow = (box, x, y) => { box[0] = Math.min(box[0], x); box[1] = Math.min(box[1], y); box[2] = Math.max(box[2], x); box[3] = Math.max(box[3], y); };
  // The table's soft bodies as shown: one box round their surface samples on screen.
  const bodiesBox = () => {
    const box = [Infinity, Infinity, -Infinity, -Infinity];
    for (const id of p.client?.bodies.keys() ?? []) {
      const n = p.surfaceCount(id), step = Math.max(1, Math.floor(n / 300));
      for (let i = 0; i < n; i += step) { const q = p.surfacePoint(id, i); grow(box, ...p.project(q[0], q[1], q[2])); }
    }
    return box;
  };
  // Each upload's placeholder: its turning cage (a box of its size) and the tag above it.
  const placeholderBoxes = () => {
    const boxes = [];
    for (const [, u] of p.client?.room.state.uploads ?? []) {
      const r = 0.71 * u.size, box = [Infinity, Infinity, -Infinity, -Infinity];
      for (const dx of [-r, r]) for (const dz of [-r, r]) for (const dy of [0, 1.35 * u.size]) grow(box, ...p.project(u.x + dx, u.y + dy, u.z + dz));
      boxes.push(box);
    }
    return boxes;
  };
  const overlaps = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
  const watch = (window.__layout = { frames: 0, placeholderFrames: 0, worstArea: 0, worstRects: [], hits: [], bodies: null, placeholders: [], lines: [] });
  const look = () => {
    if (p.client && p.ready) {
      const rects = hudRects(), area = unionArea(rects) / (innerWidth * innerHeight);
      if (area > watch.worstArea) { watch.worstArea = area; watch.worstRects = rects; }
      const bodies = bodiesBox(), placeholders = placeholderBoxes();
      watch.bodies = bodies;
      if (placeholders.length) { watch.placeholderFrames++; watch.placeholders = placeholders; }
      for (const line of document.body.innerText.split("\\n")) if (line.trim() && !watch.lines.includes(line.trim())) watch.lines.push(line.trim());
      const hit = (what) => { if (!watch.hits.includes(what)) watch.hits.push(what); };
      for (const r of rects) {
        if (overlaps(r, bodies)) hit("bodies <- " + r[4]);
        for (const b of placeholders) if (overlaps(r, b)) hit("placeholder <- " + r[4]);
      }
      watch.frames++;
    }
    setTimeout(() => requestAnimationFrame(look), 250);
  };
  requestAnimationFrame(look);
})()`;

export interface LayoutWatch {
  frames: number;
  placeholderFrames: number;
  worstArea: number;
  worstRects: [number, number, number, number, string][];
  hits: string[];
  bodies: [number, number, number, number] | null;
  placeholders: [number, number, number, number][];
  /** The lines of text the page showed as it was checked. */
  lines: string[];
}
