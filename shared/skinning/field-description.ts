// Skinning fields rebuilt from a baked body's compact description, so that a client computes its render
// weights itself (in a worker) and the server never sends V x (K + 1) numbers per body.

import { normalisedWithConstant } from "./bake";
import type { BakedBody } from "./baked-body";
import { BASELINE_DESCRIPTION, baselineFieldsFromDescription } from "./baseline";
import { SkinningError, type FieldDescription, type SkinningFields } from "./fields";

export function fieldsFromDescription(description: FieldDescription): SkinningFields {
  if (description.kind === BASELINE_DESCRIPTION) return baselineFieldsFromDescription(description.data);
  throw new SkinningError(`unknown field description "${description.kind}"`);
}

/** Vertices evaluated between progress reports. */
const CHUNK = 4096;

/**
 * The render weights of a baked body (V x (K + 1), normalised as the bake does): the body's own when it carries
 * them, otherwise evaluated from its field description, reporting progress in [0, 1].
 */
export async function renderWeightsOf(body: BakedBody, onProgress?: (fraction: number) => void): Promise<Float64Array> {
  const vertices = body.renderPositions.length / 3, h = body.learnedHandles + 1;
  if (body.renderWeights.length === vertices * h) return body.renderWeights;
  if (!body.fieldKind) throw new SkinningError("this baked body has neither render weights nor a description of its fields");
  const fields = fieldsFromDescription({ kind: body.fieldKind, data: body.fieldDescription });
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
