// Skinning eigenmodes (Benchekroun et al. 2023): the K lowest non-constant eigenfunctions of the shape's
// Laplacian with free (Neumann) boundaries, the fields whose affine handles span the softest deformations of a
// uniform isotropic solid (its stiffness summed over the three components is (4 mu + lambda) times the
// Laplacian). Rayleigh-Ritz in the baseline's dictionary (the coordinate functions and Gaussian bumps at
// farthest-point centres): the Dirichlet energy and the L2 inner product are integrated on the interior samples,
// so the domain, not straight-line distance, decides what moves together. The result is described exactly as the
// baseline's fields are (bumps and coefficients), so a browser rebuilds it from a few kilobytes.

import { choleskyFactor, symmetricEigen } from "../sim/linalg";
import { bumpDictionary, checkFieldRequest, OrthogonalFields, strided, type GaussianBumps } from "./baseline";
import { SkinningError, type ShapeSamples, type SkinningFieldProvider, type SkinningFields } from "./fields";

export const EIGEN_DESCRIPTION = "eigen-bumps";
/** Interior samples the integrals run over. */
const QUADRATURE_SAMPLES = 4096;
/** Bumps per field, at most MAX_DICTIONARY, and their width in centre spacings. */
const DICTIONARY_PER_FIELD = 12;
const MAX_DICTIONARY = 256;
const WIDTH_PER_SPACING = 1.5;
/** Ridge on the Gram matrix, relative to its mean diagonal: nearly dependent bumps stay factorable. */
const RIDGE = 1e-9;

export const eigenProvider: SkinningFieldProvider = {
  name: "eigen",
  async fieldsFor(shape: ShapeSamples, count: number): Promise<SkinningFields> {
    return createEigenFields(shape.interiorPoints, count);
  },
};

export function createEigenFields(interior: Float64Array, count: number): SkinningFields {
  checkFieldRequest(interior, count, 8);
  const samples = strided(interior, QUADRATURE_SAMPLES), n = samples.length / 3;
  const bumps = bumpDictionary(samples, Math.min(DICTIONARY_PER_FIELD * count, MAX_DICTIONARY, Math.floor(n / 4)), WIDTH_PER_SPACING);
  const d = bumps.count;
  const { stiffness, gram, means } = integrals(bumps, samples);
  // With G = L L^T (a ridge keeps nearly dependent bumps factorable), c = L^-T y turns A c = lambda G c into the
  // plain symmetric problem (L^-1 A L^-T) y = lambda y, and every solution has unit RMS (c^T G c = y^T y = 1).
  let trace = 0;
  for (let i = 0; i < d; i++) trace += gram[i * d + i];
  for (let i = 0; i < d; i++) gram[i * d + i] += RIDGE * (trace / d);
  if (!choleskyFactor(gram, d)) throw new SkinningError("eigen fields are degenerate: the shape has too few distinct interior points");
  const r = d;
  // X = L^-1 A (columns by forward substitution), then L^-1 X^T = L^-1 A L^-T (A is symmetric).
  const x = forwardSubstituteColumns(gram, stiffness, d);
  const transposed = new Float64Array(d * d);
  for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) transposed[i * d + j] = x[j * d + i];
  const reduced = forwardSubstituteColumns(gram, transposed, d);
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) reduced[i * d + j] = reduced[j * d + i] = 0.5 * (reduced[i * d + j] + reduced[j * d + i]);
  const values = new Float64Array(r), vectors = new Float64Array(r * r);
  symmetricEigen(reduced, r, values, vectors);
  const order = Array.from(values.keys()).sort((a, b) => values[a] - values[b]);
  // The centred dictionary has no constant: every eigenvalue is a non-constant mode's.
  const coefficients = new Float64Array(count * (d + 1)), c = new Float64Array(d);
  for (let f = 0; f < count; f++) {
    const which = order[f], row = f * (d + 1);
    // c = L^-T y by back substitution.
    for (let i = d - 1; i >= 0; i--) {
      let sum = vectors[i * r + which];
      for (let k = i + 1; k < d; k++) sum -= gram[k * d + i] * c[k];
      c[i] = sum / gram[i * d + i];
    }
    let offset = 0;
    for (let i = 0; i < d; i++) {
      coefficients[row + i] = c[i];
      offset -= c[i] * means[i];
    }
    coefficients[row + d] = offset;
  }
  return new OrthogonalFields(bumps, coefficients, count, EIGEN_DESCRIPTION);
}

/** Dirichlet energies (mean of grad . grad) and L2 Gram matrix (of the mean-free values) over the samples, and the means. */
function integrals(bumps: GaussianBumps, samples: Float64Array): { stiffness: Float64Array; gram: Float64Array; means: Float64Array } {
  const d = bumps.count, n = samples.length / 3;
  const values = new Float64Array(n * d), gradients = new Float64Array(n * d * 3);
  const v = new Float64Array(d), g = new Float64Array(3 * d);
  const means = new Float64Array(d);
  for (let p = 0; p < n; p++) {
    bumps.at(samples[3 * p], samples[3 * p + 1], samples[3 * p + 2], v, g);
    values.set(v, p * d);
    gradients.set(g, p * d * 3);
    for (let j = 0; j < d; j++) means[j] += v[j] / n;
  }
  for (let p = 0; p < n; p++) for (let j = 0; j < d; j++) values[p * d + j] -= means[j];
  const stiffness = new Float64Array(d * d), gram = new Float64Array(d * d);
  for (let p = 0; p < n; p++) {
    const vo = p * d, go = p * d * 3;
    for (let a = 0; a < d; a++) {
      const va = values[vo + a], gax = gradients[go + 3 * a], gay = gradients[go + 3 * a + 1], gaz = gradients[go + 3 * a + 2];
      for (let b = a; b < d; b++) {
        gram[a * d + b] += va * values[vo + b];
        stiffness[a * d + b] += gax * gradients[go + 3 * b] + gay * gradients[go + 3 * b + 1] + gaz * gradients[go + 3 * b + 2];
      }
    }
  }
  for (let a = 0; a < d; a++) for (let b = a; b < d; b++) {
    gram[a * d + b] /= n;
    stiffness[a * d + b] /= n;
    gram[b * d + a] = gram[a * d + b];
    stiffness[b * d + a] = stiffness[a * d + b];
  }
  return { stiffness, gram, means };
}

/** L^-1 B for a lower-triangular L (the lower triangle of `l`) and a d x d B, column by column. */
function forwardSubstituteColumns(l: Float64Array, b: Float64Array, d: number): Float64Array {
  const out = Float64Array.from(b);
  for (let i = 0; i < d; i++) {
    const inv = 1 / l[i * d + i];
    for (let k = 0; k < i; k++) {
      const lik = l[i * d + k];
      if (lik === 0) continue;
      for (let j = 0; j < d; j++) out[i * d + j] -= lik * out[k * d + j];
    }
    for (let j = 0; j < d; j++) out[i * d + j] *= inv;
  }
  return out;
}
