// Each part of the solver on its own: every energy term's gradient against central finite differences of its
// value, and the matrix the preconditioner uses for it against finite differences of that gradient (exact where
// the term is quadratic, at rest and at rigid rotations for elasticity); the rest stiffness (the stable
// Neo-Hookean Hessian at rest); the sliced Cholesky; the contacts' low-rank correction.

import { describe, expect, it } from "vitest";
import { FloorContact, lameParameters, neoHookeanEnergyAndStress, Subspace, type Material } from "../../shared/sim";
import { AffineContactCorrection } from "../../shared/sim/affine-correction";
import { ContactSnapshot, ContactTerm } from "../../shared/sim/energy/contact";
import { ContactHessianAssembler } from "../../shared/sim/contact-hessian";
import { DampingTerm } from "../../shared/sim/energy/damping";
import { ElasticTerm } from "../../shared/sim/energy/elastic";
import { ExternalForceTerm } from "../../shared/sim/energy/gravity";
import { InertiaTerm } from "../../shared/sim/energy/inertia";
import { SpringTerm } from "../../shared/sim/energy/springs";
import type { EnergyTerm } from "../../shared/sim/energy/term";
import { GrabSet } from "../../shared/sim/grabs";
import { choleskyColumns, choleskyFactor, choleskySolve, quaternionToMatrix } from "../../shared/sim/linalg";
import { StepState } from "../../shared/sim/step-state";
import { bodyFor, randoms, relativeDifference } from "./helpers";

const JELLY: Material = { youngsModulus: 1e5, poissonRatio: 0.45, density: 1000 };
const H = 1 / 90;


function value(term: EnergyTerm, q: Float64Array): number {
  return term.accumulate(q, new Float64Array(q.length));
}

function gradient(term: EnergyTerm, q: Float64Array): Float64Array {
  const g = new Float64Array(q.length);
  term.accumulate(q, g);
  return g;
}

/** Largest |analytic - central difference| of the gradient, relative to the gradient's largest entry. */
function gradientError(term: EnergyTerm, q: Float64Array, step: number): number {
  const g = gradient(term, q), x = Float64Array.from(q);
  let worst = 0, scale = 1e-300;
  for (let i = 0; i < q.length; i++) {
    x[i] = q[i] + step;
    const plus = value(term, x);
    x[i] = q[i] - step;
    const minus = value(term, x);
    x[i] = q[i];
    worst = Math.max(worst, Math.abs((plus - minus) / (2 * step) - g[i]));
    scale = Math.max(scale, Math.abs(g[i]));
  }
  return worst / scale;
}

/** Central-difference Hessian (n x n) from the term's gradient. */
function numericHessian(term: EnergyTerm, q: Float64Array, step: number): Float64Array {
  const n = q.length, out = new Float64Array(n * n), x = Float64Array.from(q);
  for (let j = 0; j < n; j++) {
    x[j] = q[j] + step;
    const plus = gradient(term, x);
    x[j] = q[j] - step;
    const minus = gradient(term, x);
    x[j] = q[j];
    for (let i = 0; i < n; i++) out[i * n + j] = (plus[i] - minus[i]) / (2 * step);
  }
  return out;
}


/** (R (x) I) A (R^T (x) I): a body-frame matrix in world axes. */
function rotated(matrix: Float64Array, r: Float64Array, m: number): Float64Array {
  const n = 3 * m, t = new Float64Array(n * n), out = new Float64Array(n * n);
  for (let a = 0; a < 3; a++) for (let i = 0; i < m; i++) for (let k = 0; k < n; k++) {
    t[(a * m + i) * n + k] = r[3 * a] * matrix[i * n + k] + r[3 * a + 1] * matrix[(m + i) * n + k] + r[3 * a + 2] * matrix[(2 * m + i) * n + k];
  }
  for (let row = 0; row < n; row++) for (let a = 0; a < 3; a++) for (let j = 0; j < m; j++) {
    out[row * n + a * m + j] = r[3 * a] * t[row * n + j] + r[3 * a + 1] * t[row * n + m + j] + r[3 * a + 2] * t[row * n + 2 * m + j];
  }
  return out;
}

/** q of a rigid rotation R about the body origin (constant channel A = R - I). */
function rigidRotation(r: Float64Array, n: number, m: number): Float64Array {
  const q = new Float64Array(n);
  for (let a = 0; a < 3; a++) for (let j = 0; j < 3; j++) q[a * m + j] = r[3 * a + j] - (a === j ? 1 : 0);
  return q;
}

async function setup() {
  const loaded = await bodyFor("box:0.2x0.12x0.1", 4, 48);
  const subspace: Subspace = loaded.subspace;
  const state = new StepState(subspace.n, H);
  state.hTilde = H;
  const lame = lameParameters(JELLY);
  return { subspace, state, lame, n: subspace.n, m: subspace.m };
}

describe("energy terms against finite differences", () => {
  it("inertia: gradient, and its Hessian is the mass matrix", async () => {
    const { subspace, state, n, m } = await setup();
    const term = new InertiaTerm(subspace, state);
    term.density = JELLY.density;
    state.xHat.set(randoms(n, 1).map((v) => 0.01 * v));
    const q = randoms(n, 2).map((v) => 0.02 * v);
    expect(gradientError(term, q, 1e-6)).toBeLessThan(1e-6);
    const exact = new Float64Array(n * n);
    term.addHessian(exact, H);
    expect(relativeDifference(exact, numericHessian(term, q, 1e-5))).toBeLessThan(1e-6);
    expect(m).toBeGreaterThan(0);
  });

  it("elasticity: gradient at a large deformation; Hessian h^2 K at rest and (R (x) I) h^2 K (R^T (x) I) at a rigid rotation", async () => {
    const { subspace, state, lame, n, m } = await setup();
    const term = new ElasticTerm(subspace, state);
    term.setLame(lame.mu, lame.lambda, lame.lambdaStable);
    const stretched = randoms(n, 3).map((v) => 0.15 * v);
    expect(gradientError(term, stretched, 1e-7)).toBeLessThan(1e-5);
    const k = new Float64Array(n * n);
    term.addHessian(k, H);
    expect(relativeDifference(k, numericHessian(term, new Float64Array(n), 1e-6))).toBeLessThan(1e-5);
    const r = new Float64Array(9);
    const axis = [0.3, -0.5, 0.81], angle = 1.1, norm = Math.hypot(...axis), s = Math.sin(angle / 2) / norm;
    quaternionToMatrix(Float64Array.from([axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)]), r);
    expect(relativeDifference(rotated(k, r, m), numericHessian(term, rigidRotation(r, n, m), 1e-6))).toBeLessThan(1e-5);
  });

  it("the rest stiffness is stable Neo-Hookean's Hessian at rest: K dq matches finite differences of the stress", async () => {
    const { subspace, lame, n } = await setup();
    const dq = randoms(n, 4);
    const k = new Float64Array(n * n);
    for (let i = 0; i < k.length; i++) k[i] = lame.mu * subspace.stiffnessMu[i] + lame.lambda * subspace.stiffnessLambda[i];
    // Finite differences of the elastic force along dq, integrated over the cubature exactly as the solver does.
    const force = (t: number) => {
      const state = new StepState(n, 1);
      state.hTilde = 1;
      const term = new ElasticTerm(subspace, state);
      term.setLame(lame.mu, lame.lambda, lame.lambdaStable);
      return gradient(term, dq.map((v) => t * v));
    };
    const eps = 1e-6, plus = force(eps), minus = force(-eps);
    const numeric = plus.map((v, i) => (v - minus[i]) / (2 * eps));
    const analytic = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) analytic[i] += k[i * n + j] * dq[j];
    expect(relativeDifference(analytic, numeric)).toBeLessThan(1e-6);
    // And the density itself: stress is dPsi/dF.
    const f = Float64Array.from([1.1, 0.2, -0.1, 0.05, 0.9, 0.3, -0.2, 0.1, 1.2]), p = new Float64Array(9), scratch = new Float64Array(9);
    neoHookeanEnergyAndStress(f, lame.mu, lame.lambdaStable, p);
    for (let e = 0; e < 9; e++) {
      const x = Float64Array.from(f);
      x[e] += 1e-6;
      const up = neoHookeanEnergyAndStress(x, lame.mu, lame.lambdaStable, scratch);
      x[e] -= 2e-6;
      const down = neoHookeanEnergyAndStress(x, lame.mu, lame.lambdaStable, scratch);
      expect(Math.abs((up - down) / 2e-6 - p[e])).toBeLessThan(1e-6 * lame.lambdaStable);
    }
  });

  it("gravity and point forces: gradient, and nothing to precondition (linear)", async () => {
    const { subspace, state, n } = await setup();
    const term = new ExternalForceTerm(subspace, state, [0, -9.81, 0]);
    term.density = JELLY.density;
    term.addPointForce(subspace.surfaceRows, 3, 2, -1, 0.5);
    const q = randoms(n, 5).map((v) => 0.02 * v);
    expect(gradientError(term, q, 1e-5)).toBeLessThan(1e-8);
    const hessian = numericHessian(term, q, 1e-4);
    const g = gradient(term, q);
    const scale = Math.max(...g.map(Math.abs));
    expect(Math.max(...hessian.map(Math.abs))).toBeLessThan(1e-8 * scale);
  });

  it("damping: gradient, and its Hessian is h beta (R (x) I) K (R^T (x) I)", async () => {
    const { subspace, state, lame, n, m } = await setup();
    const elastic = new ElasticTerm(subspace, state);
    elastic.setLame(lame.mu, lame.lambda, lame.lambdaStable);
    const term = new DampingTerm(subspace, state, elastic);
    term.beta = 0.01;
    quaternionToMatrix(Float64Array.from([0.2, 0.1, -0.3, Math.sqrt(1 - 0.14)]), state.rotation);
    state.qCentre.set(randoms(n, 6).map((v) => 0.01 * v));
    const q = randoms(n, 7).map((v) => 0.03 * v);
    expect(gradientError(term, q, 1e-6)).toBeLessThan(1e-6);
    const bodyFrame = new Float64Array(n * n);
    term.addHessian(bodyFrame, H);
    expect(relativeDifference(rotated(bodyFrame, state.rotation, m), numericHessian(term, q, 1e-5))).toBeLessThan(1e-6);
  });

  it("pins and grabs: gradient, and their isotropic Hessian", async () => {
    const { subspace, state, n } = await setup();
    const grabs = new GrabSet(subspace);
    const origin = Float64Array.from([0.1, 0.5, -0.2]);
    const term = new SpringTerm(subspace, state, grabs, origin);
    const positions = new Float64Array(3 * subspace.surfaceCount);
    for (let i = 0; i < positions.length; i++) positions[i] = origin[i % 3] + subspace.surfaceRest[i];
    const p = [positions[0], positions[1], positions[2]];
    const id = grabs.grabNearest(positions, p[0], p[1], p[2], 0.05, 800);
    expect(id).toBeGreaterThanOrEqual(0);
    grabs.move(id, p[0] + 0.05, p[1] + 0.1, p[2], [0, -1, 0, 1, 0, 0, 0, 0, 1]);
    term.pins.push({ rows: subspace.surfaceRows.slice(0, 2 * subspace.m), rest: subspace.surfaceRest.slice(0, 6), targets: Float64Array.from([0.1, 0.4, -0.2, 0.2, 0.5, -0.1]), stiffness: 3000, count: 2 });
    const q = randoms(n, 8).map((v) => 0.02 * v);
    expect(gradientError(term, q, 1e-6)).toBeLessThan(1e-6);
    const exact = new Float64Array(n * n);
    term.addHessian(exact, H);
    expect(relativeDifference(exact, numericHessian(term, q, 1e-5))).toBeLessThan(1e-6);
  });

  it("contacts: gradient while pressing in, sticking and sliding; the factored Hessian where it is exact", async () => {
    const { subspace, state, n } = await setup();
    const origin = Float64Array.from([0, 0.05, 0]);
    const term = new ContactTerm(subspace, state, origin, 0.25);
    term.surfaces.push(new FloorContact(0.0));
    term.stiffness = 2e4;
    term.dampingCoefficient = 30;
    term.friction = 0.6;
    // Predicted and reference states: the bottom a little into the floor, sliding sideways.
    state.qCentre.fill(0);
    state.xHat.fill(0);
    const m = subspace.m;
    state.xHat[m + 3] = -0.055; // y translation of the constant channel: 5 mm into the floor
    state.qCentre[m + 3] = -0.05;
    term.gather();
    expect(term.contacts.count).toBeGreaterThan(0);
    term.updateNormalForces(state.xHat);
    const sticking = Float64Array.from(state.xHat);
    expect(gradientError(term, sticking, 1e-8)).toBeLessThan(1e-5);
    const sliding = Float64Array.from(state.xHat);
    sliding[3] = 0.004; // x translation: 4 mm over the step, far beyond the slip speed
    expect(gradientError(term, sliding, 1e-8)).toBeLessThan(1e-5);
    // At the prediction every touching sample sticks: the snapshot's Hessian is exact there (one normal, no grouping error).
    const snapshot = new ContactSnapshot(term.contacts.capacity);
    term.snapshot(snapshot, H);
    // The snapshot also holds samples a hair above the floor (bare penalty, for a steadier factor); at the
    // prediction only the touching ones have curvature: compare with those.
    const touching = new ContactSnapshot(snapshot.count), p = new Float64Array(3);
    for (let i = 0; i < snapshot.count; i++) {
      const sample = snapshot.sample[i];
      let uy = 0;
      for (let j = 0; j < m; j++) uy += subspace.surfaceRows[sample * m + j] * sticking[m + j];
      p[1] = origin[1] + subspace.surfaceRest[3 * sample + 1] + uy;
      if (p[1] >= 0) continue;
      const k = touching.count++;
      touching.sample[k] = sample;
      touching.normal.set(snapshot.normal.subarray(3 * i, 3 * i + 3), 3 * k);
      touching.normalWeight[k] = snapshot.normalWeight[i];
      touching.tangentWeight[k] = snapshot.tangentWeight[i];
    }
    expect(touching.count).toBeGreaterThan(4);
    const assembler = new ContactHessianAssembler(m, touching.count, subspace.surfaceRows);
    assembler.begin(touching);
    assembler.add(touching, 0, touching.count);
    const assembled = new Float64Array(n * n);
    assembler.finish(assembled);
    expect(relativeDifference(assembled, numericHessian(term, sticking, 1e-9))).toBeLessThan(1e-4);
  });
});

describe("linear algebra", () => {
  const spd = (n: number, seed: number) => {
    const b = randoms(n * n, seed), a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      let s = i === j ? n : 0;
      for (let k = 0; k < n; k++) s += b[i * n + k] * b[j * n + k];
      a[i * n + j] = s;
    }
    return a;
  };

  it("Cholesky: L L^T = A, a factorisation spread over slices gives the same bits, and solves", () => {
    const n = 37, a = spd(n, 9);
    const whole = Float64Array.from(a);
    expect(choleskyFactor(whole, n)).toBe(true);
    let worst = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k <= j; k++) s += whole[i * n + k] * whole[j * n + k];
      worst = Math.max(worst, Math.abs(s - a[i * n + j]));
    }
    expect(worst).toBeLessThan(1e-10 * n);
    const sliced = Float64Array.from(a);
    for (const [from, to] of [[0, 5], [5, 6], [6, 30], [30, 37]]) expect(choleskyColumns(sliced, n, from, to)).toBe(true);
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) expect(sliced[i * n + j]).toBe(whole[i * n + j]);
    // The solve reads only L: what lies above it must not matter.
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) whole[i * n + j] = NaN;
    const x = randoms(n, 10), b = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) b[i] += a[i * n + j] * x[j];
    choleskySolve(whole, n, b);
    expect(relativeDifference(b, x)).toBeLessThan(1e-10);
    const indefinite = Float64Array.from(a);
    indefinite[0] = -1;
    expect(choleskyFactor(indefinite, n)).toBe(false);
  });

  it("the contacts' Woodbury correction solves (P + C) x = b exactly when C lies in the affine motions", () => {
    // Two handles whose second weighs nothing at the contact samples: C lives in the constant channel's affine
    // coordinates, where the Nystrom approximation is C itself.
    const m = 8, n = 3 * m, samples = 5;
    const rows = new Float64Array(samples * m), points = randoms(3 * samples, 13);
    for (let i = 0; i < samples; i++) rows.set([points[3 * i], points[3 * i + 1], points[3 * i + 2], 1, 0, 0, 0, 0], i * m);
    const p = spd(n, 11);
    const snapshot = new ContactSnapshot(samples);
    for (let i = 0; i < samples; i++) {
      snapshot.sample[i] = i;
      const normal = randoms(3, 20 + i), length = Math.hypot(...normal);
      for (let a = 0; a < 3; a++) snapshot.normal[3 * i + a] = normal[a] / length;
      snapshot.normalWeight[i] = 50 + 10 * i;
      snapshot.tangentWeight[i] = 3 * i;
    }
    snapshot.count = samples;
    // Exact C: each contact assembled on its own (the assembler groups by normal).
    const c = new Float64Array(n * n), assembler = new ContactHessianAssembler(m, 1, rows), single = new ContactSnapshot(1);
    single.count = 1;
    for (let i = 0; i < samples; i++) {
      single.sample[0] = i;
      single.normal.set(snapshot.normal.subarray(3 * i, 3 * i + 3));
      single.normalWeight[0] = snapshot.normalWeight[i];
      single.tangentWeight[0] = snapshot.tangentWeight[i];
      assembler.begin(single);
      assembler.add(single, 0, 1);
      assembler.finish(c);
    }
    const factor = Float64Array.from(p);
    choleskyFactor(factor, n);
    const correction = new AffineContactCorrection(n, m, rows);
    correction.build(snapshot, (v) => choleskySolve(factor, n, v));
    const x = randoms(n, 12), b = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) b[i] += (p[i * n + j] + c[i * n + j]) * x[j];
    correction.solve(b, (v) => choleskySolve(factor, n, v));
    expect(relativeDifference(b, x)).toBeLessThan(1e-8);
  });
});
