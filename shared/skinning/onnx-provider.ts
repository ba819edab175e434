// Skinning fields from the trained network, run by an injected onnxruntime module (onnxruntime-node on the
// server and in CLIs, onnxruntime-web in the browser), so this file stays isomorphic.
// The encoder turns surface points + normals into shape latents once per shape; the decoder maps query points
// to raw fields in batches. Gradients are central finite differences (6 extra queries a point).

import { SkinningError, type FieldDescription, type ShapeSamples, type SkinningFieldProvider, type SkinningFields } from "./fields";

/** Fields described by the shape's latents: evaluating them needs the decoder network (fieldsFromDescription). */
export const MODEL_DESCRIPTION = "model-decoder";

/** The part of onnxruntime's API this provider uses (both onnxruntime-node and -web satisfy it). */
export interface OrtTensor {
  readonly data: unknown;
  readonly dims: readonly number[];
}
export interface OrtSession {
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  release?(): Promise<void>;
}
export interface OrtModule {
  Tensor: new (type: "float32", data: Float32Array, dims: readonly number[]) => OrtTensor;
  InferenceSession: { create(model: Uint8Array, options?: Record<string, unknown>): Promise<OrtSession> };
}

export interface ModelFiles {
  encoder: Uint8Array;
  decoder: Uint8Array;
}

export interface ModelProviderOptions {
  /** Execution providers in order of preference, e.g. ["webgpu", "wasm"] in a browser; default ORT's own. */
  executionProviders?: string[];
  /** Query points per decoder run. */
  batchSize?: number;
  /** Surface points shown to the encoder (the bake passes 4096). */
  maxSurfacePoints?: number;
}

/** Finite-difference step for weight gradients, in normalised coordinates (matches training). */
export const FIELD_GRADIENT_STEP = 1e-3;

export async function createModelProvider(ort: OrtModule, files: ModelFiles, options: ModelProviderOptions = {}): Promise<SkinningFieldProvider> {
  const sessionOptions = options.executionProviders ? { executionProviders: options.executionProviders } : {};
  let encoder: OrtSession, decoder: OrtSession;
  try {
    encoder = await ort.InferenceSession.create(files.encoder, sessionOptions);
    decoder = await ort.InferenceSession.create(files.decoder, sessionOptions);
  } catch (error) {
    throw new SkinningError(`cannot load the skinning model: ${(error as Error).message}`);
  }
  const batchSize = options.batchSize ?? 8192;
  const fieldCount = await predictedFieldCount(ort, encoder, decoder);
  return {
    name: "model-raw",
    anchorsPoses: true,
    fieldCount,
    async fieldsFor(shape: ShapeSamples, count: number): Promise<SkinningFields> {
      const n = shape.surfacePoints.length / 3;
      if (n < 16) throw new SkinningError(`the model needs surface samples, got ${n}`);
      const surface = new Float32Array(6 * n);
      for (let i = 0; i < n; i++) {
        for (let a = 0; a < 3; a++) {
          surface[6 * i + a] = shape.surfacePoints[3 * i + a];
          surface[6 * i + 3 + a] = shape.surfaceNormals[3 * i + a];
        }
      }
      const { latents } = await encoder.run({ surface: new ort.Tensor("float32", surface, [1, n, 6]) });
      if (fieldCount !== count) throw new SkinningError(`the model predicts ${fieldCount} fields, ${count} were asked for`);
      return new ModelFields(ort, decoder, latents, fieldCount, batchSize);
    },
  };
}

/** How many fields the network predicts: its decoder's output for one point of a small sphere's latents. */
async function predictedFieldCount(ort: OrtModule, encoder: OrtSession, decoder: OrtSession): Promise<number> {
  const n = 64, surface = new Float32Array(6 * n);
  for (let i = 0; i < n; i++) {
    // Points spread over the unit sphere (a golden-angle spiral), their normals the same vectors.
    const y = 1 - (2 * (i + 0.5)) / n, r = Math.sqrt(1 - y * y), phi = i * 2.399963229728653;
    surface.set([r * Math.cos(phi), y, r * Math.sin(phi), r * Math.cos(phi), y, r * Math.sin(phi)], 6 * i);
  }
  try {
    const { latents } = await encoder.run({ surface: new ort.Tensor("float32", surface, [1, n, 6]) });
    const probe = await decoder.run({ latents, points: new ort.Tensor("float32", new Float32Array(3), [1, 1, 3]) });
    return probe.fields.dims[2];
  } catch (error) {
    throw new SkinningError(`the skinning model does not run: ${(error as Error).message}`);
  }
}

class ModelFields implements SkinningFields {
  constructor(
    private readonly ort: OrtModule,
    private readonly decoder: OrtSession,
    private readonly latents: OrtTensor,
    readonly count: number,
    private readonly batchSize: number,
  ) {}

  /** [fields, rank, ...latent dims, ...latents]: what a decoder needs to evaluate these fields anywhere. */
  describe(): FieldDescription {
    const dims = this.latents.dims, values = this.latents.data as Float32Array;
    const data = new Float64Array(2 + dims.length + values.length);
    data[0] = this.count;
    data[1] = dims.length;
    data.set(dims, 2);
    data.set(values, 2 + dims.length);
    return { kind: MODEL_DESCRIPTION, data };
  }

  async evaluate(points: Float64Array, weights: Float64Array, gradients?: Float64Array): Promise<void> {
    const n = points.length / 3, k = this.count, h = FIELD_GRADIENT_STEP;
    if (weights.length < n * k) throw new SkinningError(`weights need ${n * k} numbers, got ${weights.length}`);
    if (gradients && gradients.length < n * k * 3) throw new SkinningError(`gradients need ${n * k * 3} numbers`);
    const stencil = gradients ? 7 : 1;
    const perBatch = Math.max(1, Math.floor(this.batchSize / stencil));
    for (let start = 0; start < n; start += perBatch) {
      const count = Math.min(perBatch, n - start);
      const query = new Float32Array(3 * count * stencil);
      for (let i = 0; i < count; i++) {
        const x = points[3 * (start + i)], y = points[3 * (start + i) + 1], z = points[3 * (start + i) + 2];
        for (let s = 0; s < stencil; s++) {
          const o = 3 * (i * stencil + s);
          const axis = (s - 1) >> 1, sign = s % 2 === 1 ? 1 : -1;
          query[o] = x + (axis === 0 ? sign * h : 0);
          query[o + 1] = y + (axis === 1 ? sign * h : 0);
          query[o + 2] = z + (axis === 2 ? sign * h : 0);
        }
      }
      const out = await this.decoder.run({ latents: this.latents, points: new this.ort.Tensor("float32", query, [1, count * stencil, 3]) });
      const raw = out.fields.data as Float32Array;
      for (let i = 0; i < count; i++) {
        const base = i * stencil * k;
        for (let f = 0; f < k; f++) {
          weights[(start + i) * k + f] = raw[base + f];
          if (gradients) {
            for (let a = 0; a < 3; a++) {
              const plus = raw[base + (1 + 2 * a) * k + f], minus = raw[base + (2 + 2 * a) * k + f];
              gradients[3 * ((start + i) * k + f) + a] = (plus - minus) / (2 * h);
            }
          }
        }
      }
    }
  }
}

/** The model's fields from a description (ModelFields.describe) and a decoder session. */
export function modelFieldsFromDescription(ort: OrtModule, decoder: OrtSession, data: Float64Array, batchSize = 8192): SkinningFields {
  const count = data[0], rank = data[1];
  if (!(Number.isInteger(count) && count >= 1 && Number.isInteger(rank) && rank >= 1 && rank <= 4)) throw new SkinningError("a model field description is malformed");
  const dims = Array.from(data.subarray(2, 2 + rank));
  const size = dims.reduce((a, b) => a * b, 1);
  if (data.length !== 2 + rank + size) throw new SkinningError("a model field description has the wrong size");
  const latents = new ort.Tensor("float32", Float32Array.from(data.subarray(2 + rank)), dims);
  return new ModelFields(ort, decoder, latents, count, batchSize);
}

/**
 * Execution providers for onnxruntime-web: WebGPU when the browser gives an adapter, wasm otherwise (and always
 * as the fallback). `gpu` is `navigator.gpu` where it exists.
 */
export async function browserExecutionProviders(gpu?: { requestAdapter(): Promise<unknown> }): Promise<string[]> {
  if (!gpu) return ["wasm"];
  try {
    return (await gpu.requestAdapter()) ? ["webgpu", "wasm"] : ["wasm"];
  } catch {
    return ["wasm"];
  }
}
