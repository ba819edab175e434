// Free-free natural frequencies of a reduced body as the solver would vibrate it: the rest Hessian of the elastic
// energy (linear elasticity with mu and the classical lambda) against the mass matrix, over the directions that
// move some point (the mass matrix's range, cut where the solver cuts it: the others move nothing and have no
// frequency).

import { lameParameters, NULL_EIGENVALUE, symmetricEigen, type Material, type Subspace } from "../../shared/sim";

export interface ReducedModes {
  /** Non-rigid free-free frequencies, Hz, ascending. */
  frequenciesHz: number[];
  /** Modes with (numerically) zero stiffness: 6 for a body that moves rigidly in all directions. */
  nearZero: number;
}

/** A mode whose squared angular frequency is below this share of the largest counts as rigid. */
const RIGID = 1e-9;

export function reducedModes(subspace: Subspace, material: Material): ReducedModes {
  const m = subspace.m, n = subspace.n, { mu, lambda } = lameParameters(material);
  // The mass block's range, whitened: x = U diag(d)^-1/2 y makes M the identity.
  const massValues = new Float64Array(m), massVectors = new Float64Array(m * m);
  symmetricEigen(Float64Array.from(subspace.massBlock), m, massValues, massVectors);
  const largest = Math.max(...massValues);
  const kept: number[] = [];
  // The solver's own cut: it keeps (and moves) every direction the mass sees above it.
  for (let j = 0; j < m; j++) if (massValues[j] >= NULL_EIGENVALUE * largest) kept.push(j);
  const r = kept.length, d = 3 * r;
  // basis column (a, k): component a, mass eigenvector kept[k] scaled by 1 / sqrt(rho d_k).
  const basis = new Float64Array(n * d);
  for (let a = 0; a < 3; a++) {
    kept.forEach((j, k) => {
      const scale = 1 / Math.sqrt(material.density * massValues[j]);
      for (let i = 0; i < m; i++) basis[(a * m + i) * d + a * r + k] = scale * massVectors[i * m + j];
    });
  }
  // A = B^T K B with K = mu K_mu + lambda K_lambda.
  const kb = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let l = 0; l < n; l++) {
      const kil = mu * subspace.stiffnessMu[i * n + l] + lambda * subspace.stiffnessLambda[i * n + l];
      if (kil === 0) continue;
      for (let c = 0; c < d; c++) kb[i * d + c] += kil * basis[l * d + c];
    }
  }
  const a = new Float64Array(d * d);
  for (let i = 0; i < n; i++) {
    for (let r1 = 0; r1 < d; r1++) {
      const b = basis[i * d + r1];
      if (b === 0) continue;
      for (let c = 0; c < d; c++) a[r1 * d + c] += b * kb[i * d + c];
    }
  }
  const values = new Float64Array(d), vectors = new Float64Array(d * d);
  symmetricEigen(a, d, values, vectors);
  const sorted = Array.from(values).sort((x, y) => x - y);
  const top = sorted[sorted.length - 1];
  const nearZero = sorted.filter((v) => v < RIGID * top).length;
  return { frequenciesHz: sorted.slice(nearZero).map((w2) => Math.sqrt(w2) / (2 * Math.PI)), nearZero };
}
