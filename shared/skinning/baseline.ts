// Baseline skinning fields that need no model: the coordinate functions plus the smoothest combinations of
// Gaussian bumps around farthest-point centres inside the volume, made orthogonal (to the constant channel and
// to each other) over the interior samples. Straight-line distances can leak across thin gaps (two legs close
// together); the neural model does not have that weakness.

import { symmetricEigen } from "../sim/linalg";
import { farthestPoints } from "../geometry";
import { SkinningError, type FieldDescription, type ShapeSamples, type SkinningFieldProvider, type SkinningFields } from "./fields";

/** Interior samples used to orthogonalise; more changes the fields by well under a percent. */
const ORTHOGONALISATION_SAMPLES = 4096;
/** x, y, z lead the fields: with affine handles they give quadratic motion, so a bent bar can thin and bulge. */
const LINEAR_FIELDS = 3;
/** Bumps per field and their width in centre spacings: measured on the cantilever (K = 8/16/32 deflect 85/97/107% of Euler-Bernoulli with a 3x3-point cross-section). Narrower bumps lock, wider ones leave too few smooth directions. */
const DICTIONARY_PER_FIELD = 4;
const MAX_DICTIONARY = 160;
const WIDTH_PER_SPACING = 1.5;

export const BASELINE_DESCRIPTION = "baseline-bumps";

/** The baseline fields again, from their description (see OrthogonalFields.describe). */
export function baselineFieldsFromDescription(data: Float64Array): SkinningFields {
  const b = data[0], k = data[1];
  if (!(Number.isInteger(b) && b >= 0 && Number.isInteger(k) && k >= 1 && data.length === 2 + 4 * b + k * (b + LINEAR_FIELDS + 1))) {
    throw new SkinningError("a baseline field description has the wrong size");
  }
  const centres = data.slice(2, 2 + 3 * b), inverseVariance = data.slice(2 + 3 * b, 2 + 4 * b);
  return new OrthogonalFields(new GaussianBumps(centres, inverseVariance), data.slice(2 + 4 * b), k);
}

export const baselineProvider: SkinningFieldProvider = {
  name: "baseline",
  async fieldsFor(shape: ShapeSamples, count: number): Promise<SkinningFields> {
    return createBaselineFields(shape.interiorPoints, count);
  },
};

/** Throws unless `count` fields can be made from these interior samples, at least `perField` of them each. */
function checkFieldRequest(interior: Float64Array, count: number, perField: number): void {
  const total = interior.length / 3;
  if (!Number.isInteger(count) || count < 1) throw new SkinningError(`handle count must be a positive integer, got ${count}`);
  if (total < perField * count) throw new SkinningError(`${total} interior samples are too few for ${count} handles`);
}

export function createBaselineFields(interior: Float64Array, count: number): SkinningFields {
  checkFieldRequest(interior, count, 4);
  const samples = strided(interior, ORTHOGONALISATION_SAMPLES);
  const bumps = bumpDictionary(samples, Math.min(DICTIONARY_PER_FIELD * count, MAX_DICTIONARY), WIDTH_PER_SPACING);
  const coefficients = principalFields(bumps, samples, count);
  return new OrthogonalFields(bumps, coefficients, count);
}

/** `size` Gaussian bumps at farthest-point centres among the samples, `widthPerSpacing` centre spacings wide. */
function bumpDictionary(samples: Float64Array, size: number, widthPerSpacing: number): GaussianBumps {
  const centres = farthestPoints(samples, size);
  let meanNearest = 0;
  for (let h = 0; h < size; h++) {
    let nearest = Infinity;
    for (let k = 0; k < size; k++) if (k !== h) nearest = Math.min(nearest, distance2(centres, h, centres, k));
    meanNearest += Math.sqrt(nearest) / size;
  }
  const width = widthPerSpacing * meanNearest;
  return new GaussianBumps(centres, new Float64Array(size).fill(1 / (width * width)));
}

/** The dictionary: the three coordinate functions, then Gaussian bumps. */
class GaussianBumps {
  readonly count: number;

  /** One centre (3 numbers) and one inverse variance (1 / width^2) per bump. */
  constructor(readonly centres: Float64Array, readonly inverseVariance: Float64Array) {
    this.count = inverseVariance.length + LINEAR_FIELDS;
  }

  /** Values (count) at one point, and gradients (3 count) when asked. */
  at(x: number, y: number, z: number, values: Float64Array, gradients?: Float64Array): void {
    values[0] = x; values[1] = y; values[2] = z;
    if (gradients) {
      gradients.fill(0, 0, 9);
      gradients[0] = gradients[4] = gradients[8] = 1;
    }
    for (let b = LINEAR_FIELDS; b < this.count; b++) {
      const h = b - LINEAR_FIELDS;
      const dx = x - this.centres[3 * h], dy = y - this.centres[3 * h + 1], dz = z - this.centres[3 * h + 2];
      const a = this.inverseVariance[h];
      const v = Math.exp(-0.5 * a * (dx * dx + dy * dy + dz * dz));
      values[b] = v;
      if (gradients) {
        gradients[3 * b] = -a * dx * v;
        gradients[3 * b + 1] = -a * dy * v;
        gradients[3 * b + 2] = -a * dz * v;
      }
    }
  }
}

/** w_k = sum_j C[k][j] bump_j + C[k][D]: rows of C, (D + 1) numbers each, over a dictionary of D bumps. */
class OrthogonalFields implements SkinningFields {
  readonly count: number;

  constructor(private readonly bumps: GaussianBumps, private readonly coefficients: Float64Array, count: number) {
    this.count = count;
  }

  /** [bumps, fields, centres (3 per bump), inverse variances (1 per bump), coefficients (fields x (bumps + 4))]. */
  describe(): FieldDescription {
    const b = this.bumps.inverseVariance.length;
    const data = new Float64Array(2 + 4 * b + this.coefficients.length);
    data[0] = b;
    data[1] = this.count;
    data.set(this.bumps.centres, 2);
    data.set(this.bumps.inverseVariance, 2 + 3 * b);
    data.set(this.coefficients, 2 + 4 * b);
    return { kind: BASELINE_DESCRIPTION, data };
  }

  async evaluate(points: Float64Array, weights: Float64Array, gradients?: Float64Array): Promise<void> {
    const k = this.count, d = this.bumps.count, n = points.length / 3, c = this.coefficients;
    if (weights.length < n * k) throw new SkinningError(`weights need ${n * k} numbers, got ${weights.length}`);
    if (gradients && gradients.length < n * k * 3) throw new SkinningError(`gradients need ${n * k * 3} numbers, got ${gradients.length}`);
    const values = new Float64Array(d);
    const bumpGradients = gradients ? new Float64Array(3 * d) : undefined;
    for (let i = 0; i < n; i++) {
      this.bumps.at(points[3 * i], points[3 * i + 1], points[3 * i + 2], values, bumpGradients);
      for (let f = 0; f < k; f++) {
        const row = f * (d + 1);
        let w = c[row + d], gx = 0, gy = 0, gz = 0;
        for (let j = 0; j < d; j++) {
          const cj = c[row + j];
          if (cj === 0) continue;
          w += cj * values[j];
          if (bumpGradients) {
            gx += cj * bumpGradients[3 * j];
            gy += cj * bumpGradients[3 * j + 1];
            gz += cj * bumpGradients[3 * j + 2];
          }
        }
        weights[i * k + f] = w;
        if (gradients) {
          const o = 3 * (i * k + f);
          gradients[o] = gx;
          gradients[o + 1] = gy;
          gradients[o + 2] = gz;
        }
      }
    }
  }
}

/**
 * The fields: the coordinate functions made orthonormal, then the smoothest combinations of the bumps that
 * are orthogonal to them (principal components of the bump values over the interior samples, i.e. kernel PCA).
 * All come out mean-free, orthogonal and of unit RMS, and a symmetric shape gets symmetric fields (no preferred
 * direction sneaks in from where the centres happened to land).
 */
function principalFields(bumps: GaussianBumps, samples: Float64Array, count: number): Float64Array {
  const d = bumps.count, n = samples.length / 3;
  const columns = new Float64Array(d * n);
  const values = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    bumps.at(samples[3 * i], samples[3 * i + 1], samples[3 * i + 2], values);
    for (let f = 0; f < d; f++) columns[f * n + i] = values[f];
  }
  const column = (j: number) => columns.subarray(j * n, (j + 1) * n);
  const inner = (a: Float64Array, b: Float64Array) => {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += a[i] * b[i];
    return sum / n;
  };
  // coefficients[j] expresses the (modified) column j over the raw dictionary plus a constant (last entry).
  const coefficients: Float64Array[] = [];
  for (let j = 0; j < d; j++) {
    const c = new Float64Array(d + 1);
    c[j] = 1;
    const col = column(j);
    let mean = 0;
    for (let i = 0; i < n; i++) mean += col[i];
    mean /= n;
    for (let i = 0; i < n; i++) col[i] -= mean;
    c[d] = -mean;
    coefficients.push(c);
  }
  const fields: Float64Array[] = [];
  // Linear fields: Gram-Schmidt, unit RMS.
  for (let j = 0; j < LINEAR_FIELDS; j++) {
    const col = column(j);
    for (let l = 0; l < j; l++) {
      const p = inner(col, column(l));
      for (let i = 0; i < n; i++) col[i] -= p * column(l)[i];
      for (let t = 0; t <= d; t++) coefficients[j][t] -= p * coefficients[l][t];
    }
    const rms = Math.sqrt(inner(col, col));
    if (!(rms > 1e-9)) throw new SkinningError("baseline fields are degenerate: the shape is flat");
    for (let i = 0; i < n; i++) col[i] /= rms;
    for (let t = 0; t <= d; t++) coefficients[j][t] /= rms;
    if (fields.length < count) fields.push(coefficients[j]);
  }
  // Bumps without their linear part, then their principal components.
  for (let j = LINEAR_FIELDS; j < d; j++) {
    const col = column(j);
    for (let l = 0; l < LINEAR_FIELDS; l++) {
      const p = inner(col, column(l));
      for (let i = 0; i < n; i++) col[i] -= p * column(l)[i];
      for (let t = 0; t <= d; t++) coefficients[j][t] -= p * coefficients[l][t];
    }
  }
  const m = d - LINEAR_FIELDS;
  const gram = new Float64Array(m * m);
  for (let a = 0; a < m; a++) {
    for (let b = a; b < m; b++) gram[a * m + b] = gram[b * m + a] = inner(column(a + LINEAR_FIELDS), column(b + LINEAR_FIELDS));
  }
  const eigenvalues = new Float64Array(m), vectors = new Float64Array(m * m);
  symmetricEigen(gram, m, eigenvalues, vectors);
  const order = Array.from(eigenvalues.keys()).sort((a, b) => eigenvalues[b] - eigenvalues[a]);
  for (let e = 0; fields.length < count; e++) {
    const which = order[e], lambda = eigenvalues[which];
    if (e >= m || !(lambda > 1e-14)) throw new SkinningError("baseline fields are degenerate: the shape has too few distinct interior points");
    const c = new Float64Array(d + 1);
    const scale = 1 / Math.sqrt(lambda);
    for (let j = 0; j < m; j++) {
      const v = vectors[j * m + which] * scale;
      for (let t = 0; t <= d; t++) c[t] += v * coefficients[j + LINEAR_FIELDS][t];
    }
    fields.push(c);
  }
  const out = new Float64Array(count * (d + 1));
  fields.forEach((c, f) => out.set(c, f * (d + 1)));
  return out;
}

function distance2(a: Float64Array, i: number, b: Float64Array, j: number): number {
  const dx = a[3 * i] - b[3 * j], dy = a[3 * i + 1] - b[3 * j + 1], dz = a[3 * i + 2] - b[3 * j + 2];
  return dx * dx + dy * dy + dz * dz;
}

/** Every (n / limit)-th point, so big sample sets stay cheap and the choice stays deterministic. */
export function strided(points: Float64Array, limit: number): Float64Array {
  const n = points.length / 3;
  if (n <= limit) return points;
  const out = new Float64Array(3 * limit);
  for (let k = 0; k < limit; k++) {
    const i = Math.floor((k * n) / limit);
    out.set(points.subarray(3 * i, 3 * i + 3), 3 * k);
  }
  return out;
}
