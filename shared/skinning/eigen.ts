// Skinning eigenmodes (Benchekroun et al. 2023): the K lowest non-constant eigenfunctions of the shape's
// Laplacian with free (Neumann) boundaries, the fields whose affine handles span the softest deformations of a
// uniform isotropic solid (its stiffness summed over the three components is (4 mu + lambda) times the
// Laplacian). Rayleigh-Ritz in the baseline's dictionary (the coordinate functions and Gaussian bumps at
// farthest-point centres): the Dirichlet energy and the L2 inner product are integrated on the interior samples,
// so the domain, not straight-line distance, decides what moves together. The result is described exactly as the
// baseline's fields are (bumps and coefficients), so a browser rebuilds it from a few kilobytes.

import { symmetricEigen } from "../sim/linalg";
import { bumpDictionary, OrthogonalFields, strided, type GaussianBumps } from "./baseline";
import { SkinningError, type ShapeSamples, type SkinningFieldProvider, type SkinningFields } from "./fields";

export const EIGEN_DESCRIPTION = "eigen-bumps";
/** Interior samples the integrals run over. */
const QUADRATURE_SAMPLES = 4096;
/** Bumps per field, at most MAX_DICTIONARY, and their width in centre spacings. */
const DICTIONARY_PER_FIELD = 12;
const MAX_DICTIONARY = 256;
const WIDTH_PER_SPACING = 1.5;
/** Directions of the dictionary that its samples cannot tell apart (relative eigenvalue of the Gram matrix) are dropped. */
const DEPENDENT = 1e-9;

export const eigenProvider: SkinningFieldProvider = {
  name: "eigen",
  async fieldsFor(shape: ShapeSamples, count: number): Promise<SkinningFields> {
    return createEigenFields(shape.interiorPoints, count);
  },
};

export function createEigenFields(interior: Float64Array, count: number): SkinningFields {
  const total = interior.length / 3;
  if (!Number.isInteger(count) || count < 1) throw new SkinningError(`handle count must be a positive integer, got ${count}`);
  if (total < 8 * count) throw new SkinningError(`${total} interior samples are too few for ${count} eigenmodes`);
  const samples = strided(interior, QUADRATURE_SAMPLES), n = samples.length / 3;
  const bumps = bumpDictionary(samples, Math.min(DICTIONARY_PER_FIELD * count, MAX_DICTIONARY, Math.floor(n / 4)), WIDTH_PER_SPACING);
  const d = bumps.count;
  const { stiffness, gram, means } = integrals(bumps, samples);
  // Whiten the Gram matrix over its independent directions: c = W y turns A c = lambda G c into a plain
  // symmetric problem (W^T A W) y = lambda y, and every solution has unit RMS (c^T G c = 1).
  const gValues = new Float64Array(d), gVectors = new Float64Array(d * d);
  symmetricEigen(gram, d, gValues, gVectors);
  const largest = Math.max(...gValues);
  const kept = Array.from(gValues.keys()).filter((j) => gValues[j] > DEPENDENT * largest);
  if (kept.length < count) throw new SkinningError("eigen fields are degenerate: the shape has too few distinct interior points");
  const r = kept.length, w = new Float64Array(d * r);
  kept.forEach((j, col) => {
    const scale = 1 / Math.sqrt(gValues[j]);
    for (let i = 0; i < d; i++) w[i * r + col] = scale * gVectors[i * d + j];
  });
  const aw = multiply(stiffness, w, d, d, r);
  const reduced = new Float64Array(r * r);
  for (let a = 0; a < r; a++) for (let b = 0; b < r; b++) {
    let sum = 0;
    for (let i = 0; i < d; i++) sum += w[i * r + a] * aw[i * r + b];
    reduced[a * r + b] = sum;
  }
  const values = new Float64Array(r), vectors = new Float64Array(r * r);
  symmetricEigen(reduced, r, values, vectors);
  const order = Array.from(values.keys()).sort((a, b) => values[a] - values[b]);
  // The centred dictionary has no constant: every eigenvalue is a non-constant mode's.
  const coefficients = new Float64Array(count * (d + 1));
  for (let f = 0; f < count; f++) {
    const which = order[f], row = f * (d + 1);
    let offset = 0;
    for (let i = 0; i < d; i++) {
      let c = 0;
      for (let col = 0; col < r; col++) c += w[i * r + col] * vectors[col * r + which];
      coefficients[row + i] = c;
      offset -= c * means[i];
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

/** (rows x inner) times (inner x cols), row-major. */
function multiply(a: Float64Array, b: Float64Array, rows: number, inner: number, cols: number): Float64Array {
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    for (let k = 0; k < inner; k++) {
      const aik = a[i * inner + k];
      if (aik === 0) continue;
      for (let j = 0; j < cols; j++) out[i * cols + j] += aik * b[k * cols + j];
    }
  }
  return out;
}
