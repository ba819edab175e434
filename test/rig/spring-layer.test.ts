// The spring layer's arithmetic: each step is the exact solution of a damped spring towards its target (checked
// against a fine Runge-Kutta integration, under-, critically and over-damped, at 15 and 90 Hz), and the fit finds a
// spring back from its own trajectory under keyframe-like spiky forcing.

import { expect, it } from "vitest";
import { fitSprings, SpringLayer, type ModalBasis } from "../../shared/rig";

/** One direction along q's first coordinate, mass-orthonormal for a unit mass block and density 1. */
function oneDirection(n = 3): { basis: ModalBasis; massBlock: Float64Array } {
  const vectors = new Float64Array(n);
  vectors[0] = 1;
  return { basis: { n, count: 1, vectors, frequencies2: Float64Array.of(100) }, massBlock: Float64Array.of(1) };
}

/** eta'' = -k (eta - g F / k) - c eta' by RK4 with a tiny step, F held over each frame. */
function reference(k: number, c: number, g: number, forcing: number[], dt: number): number[] {
  const substeps = 4000, h = dt / substeps, out: number[] = [];
  let x = 0, v = 0;
  for (const f of forcing) {
    const accel = (px: number, pv: number) => -k * px - c * pv + g * f;
    for (let s = 0; s < substeps; s++) {
      const k1x = v, k1v = accel(x, v);
      const k2x = v + 0.5 * h * k1v, k2v = accel(x + 0.5 * h * k1x, v + 0.5 * h * k1v);
      const k3x = v + 0.5 * h * k2v, k3v = accel(x + 0.5 * h * k2x, v + 0.5 * h * k2v);
      const k4x = v + h * k3v, k4v = accel(x + h * k3x, v + h * k3v);
      x += (h / 6) * (k1x + 2 * k2x + 2 * k3x + k4x);
      v += (h / 6) * (k1v + 2 * k2v + 2 * k3v + k4v);
    }
    out.push(x);
  }
  return out;
}

it("a spring's step is exact at any frame rate, whatever its damping", () => {
  const w = 2 * Math.PI * 4;
  for (const zeta of [0.1, 1, 3]) {
    for (const hz of [15, 90]) {
      const dt = 1 / hz, k = w * w, c = 2 * zeta * w, g = 0.7;
      const forcing = Array.from({ length: Math.round(hz) }, (_, i) => (i < hz / 3 ? 2 : i < hz / 2 ? -1 : 0));
      const { basis } = oneDirection();
      const layer = new SpringLayer(basis, { stiffness: Float64Array.of(k), damping: Float64Array.of(c), gain: Float64Array.of(g) });
      const expected = reference(k, c, g, forcing, dt), force = new Float64Array(3);
      let worst = 0, scale = 0;
      forcing.forEach((f, i) => {
        force[0] = f;
        layer.step(force, dt);
        worst = Math.max(worst, Math.abs(layer.eta[0] - expected[i]));
        scale = Math.max(scale, Math.abs(expected[i]));
      });
      expect(worst).toBeLessThan(1e-9 * scale);
    }
  }
});

it("the fit finds a spring again from its own trajectory under spiky forcing", () => {
  const { basis, massBlock } = oneDirection();
  const truth = { k: (2 * Math.PI * 3.3) ** 2, c: 2 * 0.27 * 2 * Math.PI * 3.3, g: 0.42 };
  const dt = 1 / 60, steps = 360;
  // Spikes where a 24 fps clip's keys fall, of varying size, as a keyframed rig's acceleration is.
  const forcing = Array.from({ length: steps }, (_, i) => (Math.floor(((i + 1) * 24) / 60) !== Math.floor((i * 24) / 60) ? Math.sin(0.37 * i) * 40 : 0));
  const layer = new SpringLayer(basis, { stiffness: Float64Array.of(truth.k), damping: Float64Array.of(truth.c), gain: Float64Array.of(truth.g) });
  const q: Float64Array[] = [], force: Float64Array[] = [];
  for (const f of forcing) {
    const step = Float64Array.of(f, 0, 0);
    layer.step(step, dt);
    q.push(Float64Array.of(layer.eta[0], 0, 0));
    force.push(step);
  }
  const fitted = fitSprings(basis, massBlock, 1, [{ q, force, dt }]);
  // Within 2% (the search is a grid, refined).
  expect(Math.abs(Math.sqrt(fitted.stiffness[0] / truth.k) - 1)).toBeLessThan(0.02);
  expect(Math.abs(fitted.damping[0] / truth.c - 1)).toBeLessThan(0.02);
  expect(Math.abs(fitted.gain[0] / truth.g - 1)).toBeLessThan(0.02);
});
