// The spring layer's arithmetic: each step is BDF2 of a damped spring (the solver's step), so it converges to the
// spring's exact motion at second order (against a fine Runge-Kutta integration, under-, critically and over-damped)
// and stays bounded at any frame rate, and a change of frame rate restarts its history from the motion it has
// instead of mixing two steps.

import { expect, it } from "vitest";
import { SpringLayer, type ModalBasis } from "../../shared/rig";

/** One direction along q's first coordinate, mass-orthonormal for a unit mass block and density 1. */
function oneDirection(n = 3): ModalBasis {
  const vectors = new Float64Array(n);
  vectors[0] = 1;
  return { n, count: 1, vectors, frequencies2: Float64Array.of(100) };
}

/** eta'' = F - k eta - c eta' by RK4 with a tiny step, F(t) a smooth push and release. */
function exact(k: number, c: number, push: (t: number) => number, dt: number, steps: number): number[] {
  const substeps = 2000, h = dt / substeps, out: number[] = [];
  let x = 0, v = 0, t = 0;
  const accel = (time: number, px: number, pv: number) => push(time) - k * px - c * pv;
  for (let s = 0; s < steps; s++) {
    for (let i = 0; i < substeps; i++) {
      const k1x = v, k1v = accel(t, x, v);
      const k2x = v + 0.5 * h * k1v, k2v = accel(t + h / 2, x + 0.5 * h * k1x, v + 0.5 * h * k1v);
      const k3x = v + 0.5 * h * k2v, k3v = accel(t + h / 2, x + 0.5 * h * k2x, v + 0.5 * h * k2v);
      const k4x = v + h * k3v, k4v = accel(t + h, x + h * k3x, v + h * k3v);
      x += (h / 6) * (k1x + 2 * k2x + 2 * k3x + k4x);
      v += (h / 6) * (k1v + 2 * k2v + 2 * k3v + k4v);
      t += h;
    }
    out.push(x);
  }
  return out;
}

/** The layer's largest error against the exact motion over 1 s at `hz`, relative to the motion's size. */
function relativeError(k: number, c: number, push: (t: number) => number, hz: number): number {
  const dt = 1 / hz, steps = Math.round(hz), expected = exact(k, c, push, dt, steps);
  const layer = new SpringLayer(oneDirection(), { stiffness: Float64Array.of(k), damping: Float64Array.of(c) }), force = new Float64Array(3);
  let worst = 0, scale = 0;
  for (let s = 0; s < steps; s++) {
    force[0] = push((s + 1) * dt); // implicit: the force at the step's end
    layer.step(force, dt);
    worst = Math.max(worst, Math.abs(layer.eta[0] - expected[s]));
    scale = Math.max(scale, Math.abs(expected[s]));
  }
  return worst / scale;
}

it("a spring's step is second order in time, whatever its damping", () => {
  const w = 2 * Math.PI * 2, push = (t: number) => 50 * Math.sin(Math.PI * Math.min(t, 0.5) / 0.5) ** 2;
  for (const zeta of [0.1, 1, 3]) {
    const k = w * w, c = 2 * zeta * w;
    const coarse = relativeError(k, c, push, 120), fine = relativeError(k, c, push, 480);
    // Second order: a quarter of the step, a sixteenth of the error (BDF2's start from rest costs a little of it).
    expect(coarse / fine).toBeGreaterThan(8);
    expect(fine).toBeLessThan(0.02);
  }
});

it("stays bounded and comes to rest at any frame rate", () => {
  const w = 2 * Math.PI * 30, layer = new SpringLayer(oneDirection(), { stiffness: Float64Array.of(w * w), damping: Float64Array.of(0) });
  const force = Float64Array.of(1000, 0, 0);
  // A stiff, undamped spring stepped far past any explicit limit (w dt = 12), then released.
  for (let s = 0; s < 20; s++) layer.step(force, 1 / 15);
  force[0] = 0;
  for (let s = 0; s < 200; s++) layer.step(force, 1 / 15);
  expect(Math.abs(layer.eta[0])).toBeLessThan(1e-6 * (1000 / (w * w)));
  // Held by a constant force, a spring settles at F / k.
  force[0] = 1000;
  for (let s = 0; s < 400; s++) layer.step(force, 1 / 15);
  expect(layer.eta[0]).toBeCloseTo(1000 / (w * w), 9);
});

it("goes on at its pace when the frame rate changes mid-swing", () => {
  // A spring stepped at 60 Hz until it swings through its rest, then one step at 240 Hz: that step goes on at the
  // pace the spring had (mixing the two steps' histories moves it about twice as far, starting as from rest 2/3 as far).
  const w = 2 * Math.PI * 2, k = w * w, c = 2 * 0.1 * w;
  const layer = new SpringLayer(oneDirection(), { stiffness: Float64Array.of(k), damping: Float64Array.of(c) }), force = new Float64Array(3);
  force[0] = 40;
  for (let s = 0; s < 15; s++) layer.step(force, 1 / 60);
  force[0] = 0;
  // Let go, it swings back: step on until it is about to cross its rest (fastest, with little acceleration).
  let steps = 0;
  while (layer.eta[0] > 0.3 * 40 / k && steps++ < 200) layer.step(force, 1 / 60);
  const eta = layer.eta[0], rate = layer.rate[0], dt = 1 / 240;
  expect(Math.abs(rate * dt)).toBeGreaterThan(1e-3 * 40 / k);
  layer.step(force, dt);
  expect(Math.abs(layer.eta[0] - (eta + rate * dt)) / Math.abs(rate * dt)).toBeLessThan(0.1);
});
