// Moves an emulated headset's (IWER) hands and controllers so that what the app tracks lands on a target: the
// app sees a tracked point (the grip, the index fingertip) at an offset from the device pose that it sets.

import type { Page } from "playwright-core";
import { inPage, waitForPage } from "./browser";

type Vec = [number, number, number];

/** Moves an emulated controller or hand until the app sees its grip (or index fingertip) at `target`. */
export async function placeInput(page: Page, kind: "controllers" | "hands", side: "left" | "right", target: Vec, tracked: "grip" | "indexTip"): Promise<void> {
  let device = await inPage<Vec>(page, `(() => { const p = window.pliant.device.${kind}.${side}.position; return [p.x, p.y, p.z]; })()`);
  for (let attempt = 0; attempt < 4; attempt++) {
    const seen = await waitForInput(page, side, tracked, device);
    const error = [target[0] - seen[0], target[1] - seen[1], target[2] - seen[2]];
    if (Math.hypot(...error) < 0.002) return;
    device = [device[0] + error[0], device[1] + error[1], device[2] + error[2]];
  }
  throw new Error(`could not place the ${side} ${kind} at ${target.join(", ")}`);
}

/** Sets the device position and waits until the app has rendered frames with it; returns what the app saw. */
export async function waitForInput(page: Page, side: string, tracked: string, devicePosition: Vec): Promise<Vec> {
  await inPage(page, `(() => { const d = window.pliant.device; const i = d.primaryInputMode === 'hand' ? d.hands.${side} : d.controllers.${side}; i.position.set(${devicePosition.join(", ")}); })()`);
  const before = await inPage<number>(page, "window.pliant.frameStats.count");
  await waitForPage(page, `window.pliant.frameStats.count >= ${before + 3} && window.pliant.inputs.${side}.${tracked} != null`, 20_000);
  return inPage<Vec>(page, `window.pliant.inputs.${side}.${tracked}`);
}

