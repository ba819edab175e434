// Orthonormal fields: a provider wrapper that replaces the K fields by an orthonormal basis of the same span,
// orthonormal over the shape's interior samples (mean of w_a w_b = delta_ab). The solver uses only the span, but
// nearly collinear fields (what a network trained for a few CPU hours predicts) make a poorly conditioned
// subspace; the rotated basis is what the bake, the quality figures and the client all see.

import { choleskyFactor } from "../sim/linalg";
import { strided } from "./baseline";
import { SkinningError, type FieldDescription, type ShapeSamples, type SkinningFieldProvider, type SkinningFields } from "./fields";

/** Prefix of a described orthonormalised field set: "orthonormal+" then the inner fields' kind. */
export const ORTHONORMAL_PREFIX = "orthonormal+";

/** At most this many interior samples define the inner product (evenly strided). */
const GRAM_POINTS = 4096;
/** Ridge relative to the mean diagonal, so that a rank-deficient set still factors. */
const RELATIVE_RIDGE = 1e-8;

export function orthonormalProvider(inner: SkinningFieldProvider): SkinningFieldProvider {
  return {
    name: inner.name,
    anchorsPoses: inner.anchorsPoses,
    ...(inner.anchorProvider ? { anchorProvider: orthonormalProvider(inner.anchorProvider) } : {}),
    async fieldsFor(shape: ShapeSamples, count: number): Promise<SkinningFields> {
      const fields = await inner.fieldsFor(shape, count);
      const points = strided(shape.interiorPoints, GRAM_POINTS);
      const n = points.length / 3, k = fields.count;
      const weights = new Float64Array(n * k);
      await fields.evaluate(points, weights);
      return new OrthonormalFields(fields, orthonormalisingFactor(weights, n, k));
    },
  };
}

/** Lower-triangular L with L L^T = W^T W / n (+ a tiny ridge): the fields L^-1 w are orthonormal. */
export function orthonormalisingFactor(weights: Float64Array, n: number, k: number): Float64Array {
  const gram = new Float64Array(k * k);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    for (let a = 0; a < k; a++) {
      const wa = weights[row + a];
      for (let b = 0; b <= a; b++) gram[a * k + b] += wa * weights[row + b];
    }
  }
  let trace = 0;
  for (let a = 0; a < k; a++) trace += gram[a * k + a] / n;
  if (!(trace > 0) || !Number.isFinite(trace)) throw new SkinningError("the fields are zero or non-finite on the shape's interior");
  const ridge = (RELATIVE_RIDGE * trace) / k;
  for (let a = 0; a < k; a++) {
    for (let b = 0; b <= a; b++) gram[a * k + b] = gram[b * k + a] = gram[a * k + b] / n + (a === b ? ridge : 0);
  }
  if (!choleskyFactor(gram, k)) throw new SkinningError("the fields' Gram matrix is not positive definite");
  return gram;
}

export class OrthonormalFields implements SkinningFields {
  readonly count: number;

  constructor(private readonly inner: SkinningFields, private readonly lower: Float64Array) {
    this.count = inner.count;
    // Describable when the inner fields are: [k, the factor (k x k), the inner fields' description].
    if (inner.describe) {
      this.describe = (): FieldDescription => {
        const description = inner.describe!();
        const data = new Float64Array(1 + lower.length + description.data.length);
        data[0] = this.count;
        data.set(lower, 1);
        data.set(description.data, 1 + lower.length);
        return { kind: ORTHONORMAL_PREFIX + description.kind, data };
      };
    }
  }

  describe?: () => FieldDescription;

  async evaluate(points: Float64Array, weights: Float64Array, gradients?: Float64Array): Promise<void> {
    await this.inner.evaluate(points, weights, gradients);
    const k = this.count, n = points.length / 3, l = this.lower;
    // Forward substitution per point, in place: w'_a = (w_a - sum_{b<a} L_ab w'_b) / L_aa.
    for (let i = 0; i < n; i++) {
      const row = i * k;
      for (let a = 0; a < k; a++) {
        let v = weights[row + a];
        for (let b = 0; b < a; b++) v -= l[a * k + b] * weights[row + b];
        weights[row + a] = v / l[a * k + a];
        if (gradients) {
          for (let c = 0; c < 3; c++) {
            let g = gradients[3 * (row + a) + c];
            for (let b = 0; b < a; b++) g -= l[a * k + b] * gradients[3 * (row + b) + c];
            gradients[3 * (row + a) + c] = g / l[a * k + a];
          }
        }
      }
    }
  }
}
