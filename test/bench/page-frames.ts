// The page's own account of its frames (window.pliant.frameStats, client/src/hud/frame-stats.ts), read by the
// browser benchmarks: the series since a frame count, their p50 / p95 / max, and waiting for frames to pass.

import type { Page } from "playwright-core";
import { quantile } from "../../server/scenarios/run-scenario";
import { inPage } from "../browser/browser";

export interface FrameSeries { frames: number; simulation: number[]; steps: number[]; scene: number[]; render: number[]; interval: number[] }

/** p50, p95, max. */
export function quantiles(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return [quantile(sorted, 0.5), quantile(sorted, 0.95), quantile(sorted, 1)];
}

export const frameCount = (page: Page) => inPage<number>(page, "window.pliant.frameStats.count");

/** Resolves once the page has run `frames` more frames than `since` (its frame count). */
export async function framesPass(page: Page, since: number, frames: number): Promise<void> {
  await page.waitForFunction(`window.pliant.frameStats.count >= ${since + frames}`, undefined, { timeout: 600_000, polling: "raf" });
}

/** Each part's time in every frame since frame count `start` (as many as the page keeps). */
export async function framesSince(page: Page, start: number): Promise<FrameSeries> {
  const stats = await inPage<{ count: number; simulation: number[]; steps: number[]; scene: number[]; render: number[]; interval: number[] }>(page,
    "(() => { const s = window.pliant.frameStats; return { count: s.count, simulation: Array.from(s.simulation), steps: Array.from(s.steps), scene: Array.from(s.scene), render: Array.from(s.render), interval: Array.from(s.interval) }; })()");
  const n = Math.min(stats.count - start, stats.simulation.length);
  const pick = (series: number[]) => Array.from({ length: n }, (_, k) => series[(stats.count - n + k) % series.length]);
  return { frames: n, simulation: pick(stats.simulation), steps: pick(stats.steps), scene: pick(stats.scene), render: pick(stats.render), interval: pick(stats.interval) };
}
