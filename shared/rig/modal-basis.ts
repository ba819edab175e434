// The basis the spring layer (spring-layer.ts) puts one spring on each direction of: the vibration modes
// K phi = w^2 M phi of the rest stiffness, restricted to the directions complementary to the rig at one pose,
// mass-orthonormal (phi_k^T M phi_l = delta_kl), so a direction's share of a force is a dot product. Exact for small
// motion about that pose; a running pose's rig directions turn away from it, which the spring character answers by
// projecting the force and the result onto the current pose's complement (spring-character.ts).

import { symmetricEigenSorted } from "../linalg/symmetric-eigen";
import { lameParameters, type Material } from "../sim/material";
import type { Subspace } from "../sim/subspace";
import type { StateConstraint } from "../sim/body-types";

/** Mass eigenvalues under this share of the largest move nothing. */
const NULL_MASS = 1e-13;
/** Projector eigenvalues above this count as inside the constraint. */
const INSIDE = 0.5;

export interface ModalBasis {
  /** Unknowns of the body (3m) and directions kept. */
  n: number;
  count: number;
  /** Direction k is vectors[k n .. (k + 1) n], mass-orthonormal (M: density x the mass block, per component). */
  vectors: Float64Array;
  /** Each direction's stiffness phi^T K phi (1/s^2: w^2 for a mode). */
  frequencies2: Float64Array;
}

/** Coordinates y in which the mass is the identity: q_a = W y_a per component, W = V diag(1 / sqrt(rho l)). */
class MassWhitening {
  readonly r: number;
  readonly size: number;
  private readonly w: Float64Array;
  private readonly wPlus: Float64Array;

  constructor(massBlock: Float64Array, readonly m: number, density: number) {
    const values = new Float64Array(m), vectors = new Float64Array(m * m);
    symmetricEigenSorted(Float64Array.from(massBlock), m, values, vectors);
    const kept: number[] = [];
    for (let e = 0; e < m; e++) if (values[e] > NULL_MASS * values[m - 1]) kept.push(e);
    const r = (this.r = kept.length);
    this.size = 3 * r;
    this.w = new Float64Array(m * r);
    this.wPlus = new Float64Array(r * m);
    kept.forEach((e, c) => {
      const s = Math.sqrt(density * values[e]);
      for (let row = 0; row < m; row++) {
        this.w[row * r + c] = vectors[row * m + e] / s;
        this.wPlus[c * m + row] = vectors[row * m + e] * s;
      }
    });
  }

  toQ(y: ArrayLike<number>, q: Float64Array): void {
    const { m, r, w } = this;
    for (let a = 0; a < 3; a++) for (let row = 0; row < m; row++) {
      let s = 0;
      for (let c = 0; c < r; c++) s += w[row * r + c] * y[a * r + c];
      q[a * m + row] = s;
    }
  }

  toY(q: ArrayLike<number>, y: Float64Array): void {
    const { m, r, wPlus } = this;
    for (let a = 0; a < 3; a++) for (let c = 0; c < r; c++) {
      let s = 0;
      for (let row = 0; row < m; row++) s += wPlus[c * m + row] * q[a * m + row];
      y[a * r + c] = s;
    }
  }
}

/** The body's rest stiffness (classical Lame: stable Neo-Hookean's at rest) times q, into out. */
function stiffnessTimes(subspace: Subspace, material: Material, q: Float64Array, out: Float64Array): void {
  const { mu, lambda } = lameParameters(material), n = subspace.n;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += (mu * subspace.stiffnessMu[i * n + j] + lambda * subspace.stiffnessLambda[i * n + j]) * q[j];
    out[i] = s;
  }
}

/**
 * The `count` lowest modes (with a non-zero frequency) of a body of `material`, complementary to the rig as
 * `constraint` holds it (a projection updated at the bind pose).
 */
export function complementaryModes(subspace: Subspace, material: Material, constraint: StateConstraint, count: number): ModalBasis {
  const n = subspace.n, whitening = new MassWhitening(subspace.massBlock, subspace.m, material.density), ny = whitening.size;
  const toQ = (y: Float64Array, q: Float64Array) => whitening.toQ(y, q), toY = (q: Float64Array, y: Float64Array) => whitening.toY(q, y);

  // The constraint's projector in mass-orthonormal coordinates is an orthogonal projector: its eigenvectors with
  // eigenvalue 1 are an orthonormal basis of the complementary directions.
  const projector = new Float64Array(ny * ny), q = new Float64Array(n), y = new Float64Array(ny);
  for (let i = 0; i < ny; i++) {
    y.fill(0);
    y[i] = 1;
    toQ(y, q);
    constraint.project(q);
    toY(q, y);
    for (let j = 0; j < ny; j++) projector[j * ny + i] = y[j];
  }
  for (let i = 0; i < ny; i++) for (let j = 0; j < i; j++) projector[i * ny + j] = projector[j * ny + i] = 0.5 * (projector[i * ny + j] + projector[j * ny + i]);
  const pValues = new Float64Array(ny), pVectors = new Float64Array(ny * ny);
  symmetricEigenSorted(projector, ny, pValues, pVectors);
  const inside: number[] = [];
  for (let e = 0; e < ny; e++) if (pValues[e] > INSIDE) inside.push(e);
  const d = inside.length;

  // The rest stiffness in those coordinates: N^T W^T K W N.
  const basisQ = new Float64Array(d * n), stiffQ = new Float64Array(d * n), kq = new Float64Array(n);
  const column = new Float64Array(ny);
  inside.forEach((e, k) => {
    for (let j = 0; j < ny; j++) column[j] = pVectors[j * ny + e];
    toQ(column, q);
    basisQ.set(q, k * n);
    stiffnessTimes(subspace, material, q, kq);
    stiffQ.set(kq, k * n);
  });
  const reduced = new Float64Array(d * d);
  for (let a = 0; a < d; a++) for (let b = 0; b <= a; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += basisQ[a * n + i] * stiffQ[b * n + i];
    reduced[a * d + b] = reduced[b * d + a] = s;
  }
  const kValues = new Float64Array(d), kVectors = new Float64Array(d * d);
  symmetricEigenSorted(reduced, d, kValues, kVectors);
  // Modes that cost no energy (motions the cubature cannot see) are no springs.
  const floor = 1e-8 * kValues[d - 1];
  const chosen: number[] = [];
  for (let e = 0; e < d && chosen.length < count; e++) if (kValues[e] > floor) chosen.push(e);
  const out = new Float64Array(chosen.length * n), frequencies2 = new Float64Array(chosen.length);
  chosen.forEach((e, k) => {
    frequencies2[k] = kValues[e];
    for (let b = 0; b < d; b++) {
      const c = kVectors[b * d + e];
      if (c === 0) continue;
      for (let i = 0; i < n; i++) out[k * n + i] += c * basisQ[b * n + i];
    }
  });
  return { n, count: chosen.length, vectors: out, frequencies2 };
}
