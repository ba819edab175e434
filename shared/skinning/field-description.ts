// Skinning fields rebuilt from a baked body's compact description, so that a client computes its render
// weights itself (in a worker) and the server never sends V x (K + 1) numbers per body.

import { normalisedWithConstant } from "./bake";
import type { BakedBody } from "./baked-body";
import { BASELINE_DESCRIPTION, baselineFieldsFromDescription } from "./baseline";
import { GRID_DESCRIPTION, gridFieldsFromDescription } from "./grid-fields";
import { SkinningError, type FieldDescription, type SkinningFields } from "./fields";
import { MODEL_DESCRIPTION, modelFieldsFromDescription, type OrtModule, type OrtSession } from "./onnx-provider";
import { ORTHONORMAL_PREFIX, OrthonormalFields } from "./orthonormal";
import { readRefinement, refinementCorrection } from "./refined-fields";

/** What evaluating the network's fields needs: an onnxruntime module and a session of the decoder. */
export interface DecoderRuntime {
  ort: OrtModule;
  decoder: OrtSession;
}

/** Whether fields of this kind need the decoder network (fieldsFromDescription's `decoder`). */
export function needsDecoder(kind: string): boolean {
  return kind.endsWith(MODEL_DESCRIPTION);
}

export function fieldsFromDescription(description: FieldDescription, decoder?: DecoderRuntime): SkinningFields {
  const { kind, data } = description;
  if (kind === BASELINE_DESCRIPTION) return baselineFieldsFromDescription(data);
  if (kind === GRID_DESCRIPTION) return gridFieldsFromDescription(data);
  if (kind === MODEL_DESCRIPTION) {
    if (!decoder) throw new SkinningError("these fields need the skinning decoder network");
    return modelFieldsFromDescription(decoder.ort, decoder.decoder, data);
  }
  if (kind.startsWith(ORTHONORMAL_PREFIX)) {
    const k = data[0];
    if (!(Number.isInteger(k) && k >= 1 && data.length > 1 + k * k)) throw new SkinningError("an orthonormal field description is malformed");
    const fields = fieldsFromDescription({ kind: kind.slice(ORTHONORMAL_PREFIX.length), data: data.subarray(1 + k * k) }, decoder);
    if (fields.count !== k) throw new SkinningError("an orthonormal field description is malformed");
    return new OrthonormalFields(fields, data.slice(1, 1 + k * k));
  }
  throw new SkinningError(`unknown field description "${kind}"`);
}

/** Vertices evaluated between progress reports. */
const CHUNK = 4096;

/**
 * The render weights of a baked body (V x (K + 1), normalised as the bake does): the body's own when it carries
 * them, otherwise evaluated from its field description, reporting progress in [0, 1].
 */
export async function renderWeightsOf(body: BakedBody, onProgress?: (fraction: number) => void, decoder?: DecoderRuntime): Promise<Float64Array> {
  const vertices = body.renderPositions.length / 3, h = body.learnedHandles + 1;
  if (body.renderWeights.length === vertices * h) return body.renderWeights;
  if (!body.fieldKind) throw new SkinningError("this baked body has neither render weights nor a description of its fields");
  const fields = fieldsFromDescription({ kind: body.fieldKind, data: body.fieldDescription }, decoder);
  if (fields.count !== body.learnedHandles) throw new SkinningError(`the field description has ${fields.count} fields, the body ${body.learnedHandles}`);
  const out = new Float64Array(vertices * h);
  for (let start = 0; start < vertices; start += CHUNK) {
    const end = Math.min(vertices, start + CHUNK);
    const raw = new Float64Array((end - start) * body.learnedHandles);
    await fields.evaluate(body.renderPositions.subarray(3 * start, 3 * end), raw);
    out.set(normalisedWithConstant(raw, undefined, body.fieldNorms, end - start, body.learnedHandles), start * h);
    onProgress?.(end / vertices);
  }
  return out;
}

/**
 * A baked body's render weights (renderWeightsOf's) refined by the network between its grid's nodes
 * (refined-fields.ts), with the number of network queries it took; null when the body carries no refinement.
 */
export async function refinedRenderWeights(body: BakedBody, weights: Float64Array, decoder: DecoderRuntime): Promise<{ weights: Float64Array; queries: number } | null> {
  if (body.fieldRefinement.length === 0) return null;
  const refinement = readRefinement(body.fieldRefinement), k = body.learnedHandles, h = k + 1;
  if (refinement.count !== k) throw new SkinningError(`the refinement has ${refinement.count} fields, the body ${k}`);
  const network = modelFieldsFromDescription(decoder.ort, decoder.decoder, refinement.network);
  const { correction, queries } = await refinementCorrection(refinement, network, body.renderPositions);
  const out = Float64Array.from(weights), vertices = body.renderPositions.length / 3;
  for (let v = 0; v < vertices; v++) for (let f = 0; f < k; f++) out[v * h + f + 1] += correction[v * k + f] / body.fieldNorms[f];
  return { weights: out, queries };
}
