// Which skinning fields a bake uses, by name (CLIs' --weights, the server's SKINNING, the upload baker), and the
// key that keeps their bakes apart in caches.

import { baselineProvider, eigenProvider, orthonormalProvider, ritzFinishProvider, SkinningError, type SkinningFieldProvider } from "../../shared/skinning";
import { modelCacheKey, modelProvider, modelWithAnchor } from "./model-provider";

/**
 * model: the network's fields finished by Rayleigh-Ritz on the voxel solid (shared/skinning/ritz-finish.ts), the
 * product's fields; eigen: skinning eigenmodes, the reference; baseline: Gaussian bumps, no solve; model-raw: the
 * network's fields as they are (orthonormalised), for measuring what the finish adds.
 */
export const WEIGHTS_SOURCES = ["model", "eigen", "baseline", "model-raw"] as const;
export type WeightsSource = (typeof WEIGHTS_SOURCES)[number];

/**
 * The default fields: the network's, finished by Rayleigh-Ritz. As close to full FEM as the skinning eigenmodes
 * (1.128 against 1.128 over 14 held-out solids, models/README.md) and, with folds released (fold-release.ts), as
 * good in the room; eigen stays the reference and a choice. A mesh the network cannot handle gets eigenmodes (ritzFinishProvider's fallback), and
 * the room says so.
 */
export const DEFAULT_WEIGHTS: WeightsSource = "model";

/**
 * The fields characters are baked with: eigen, because the shipped secondary-motion networks
 * (models/secondary-NAME.onnx) were trained on their eigen bodies and answer in those fields' coordinates; another
 * basis would silently misread them. Until they are retrained on the default fields.
 */
export const CHARACTER_WEIGHTS: WeightsSource = "eigen";

export function isWeightsSource(value: unknown): value is WeightsSource {
  return WEIGHTS_SOURCES.includes(value as WeightsSource);
}

export async function providerFor(weights: WeightsSource): Promise<SkinningFieldProvider> {
  if (weights === "model") return ritzFinishProvider(await modelProvider(), eigenProvider);
  if (weights === "eigen") return eigenProvider;
  if (weights === "baseline") return baselineProvider;
  // The network's fields are nearly collinear in places; the bake gets an orthonormal basis of their span.
  if (weights === "model-raw") return orthonormalProvider(await modelWithAnchor());
  throw new SkinningError(`unknown weights "${String(weights)}": use ${WEIGHTS_SOURCES.join(", ")}`);
}

/** Names the fields in bake cache keys: the network's include a hash of its files, so a retrained one never reuses bakes. */
export async function providerKeyFor(weights: WeightsSource): Promise<string> {
  if (weights === "model") return `ritz-${await modelCacheKey()}`;
  if (weights === "model-raw") return `raw-${await modelCacheKey()}`;
  return weights;
}

/** A provider with its cache key. */
export interface FieldChoice {
  provider: SkinningFieldProvider;
  providerKey: string;
}

export async function fieldChoice(weights: WeightsSource = DEFAULT_WEIGHTS): Promise<FieldChoice> {
  return { provider: await providerFor(weights), providerKey: await providerKeyFor(weights) };
}
