// The skinning-field contract: whoever predicts the K learned fields (the baseline here, the neural model
// later) hands the bake an object that evaluates them at any points of the normalised shape.

import type { InsideTest } from "../geometry";
import type { RigRegions } from "./rig-regions";

/** What a provider may look at: the shape in normalised coordinates (largest extent [-1, 1]). */
export interface ShapeSamples {
  /** Surface points (3N) with unit outward normals (3N), area-uniform. */
  surfacePoints: Float64Array;
  surfaceNormals: Float64Array;
  /** Dense, volume-uniform interior points (3N). */
  interiorPoints: Float64Array;
  /**
   * The solid itself, for providers that discretise its volume: its inside test, bounding box, and the share of
   * the box inside when the caller has measured it (the network's finish then sizes its grids without a probe).
   */
  solid?: { inside: InsideTest; min: ArrayLike<number>; max: ArrayLike<number>; share?: number };
  /**
   * A rigged mesh's joint regions at its vertices (rig-regions.ts), for fields complementary to its rig: made on
   * request (a large skin's table is big, and only complementary fields need it).
   */
  rigRegions?: () => RigRegions;
}

/** K scalar fields over the normalised shape (the constant channel is not one of them). */
export interface SkinningFields {
  readonly count: number;
  /**
   * Writes the fields at `points` (3N, normalised coordinates) into `weights` (N * count, point-major) and,
   * when given, their spatial gradients into `gradients` (N * count * 3, per normalised unit).
   */
  evaluate(points: Float64Array, weights: Float64Array, gradients?: Float64Array): Promise<void>;
  /**
   * A compact, self-contained description of the fields (a few kilobytes) from which fieldsFromDescription can
   * evaluate them anywhere, e.g. in a browser at the render vertices; absent when the fields cannot be described.
   */
  describe?(): FieldDescription;
  /** What a page with the network's decoder refines the render weights with (refined-fields.ts), when there is any. */
  refinement?(): Float64Array | undefined;
  /**
   * Set when the provider could not make its own fields and another made these (the network's finish falling back
   * to eigenmodes): that provider's name and why. The bake records the name and reports the reason.
   */
  readonly fallback?: { provider: string; reason: string };
}

export interface FieldDescription {
  kind: string;
  data: Float64Array;
}

export interface SkinningFieldProvider {
  /** Recorded in baked bodies: "model", "eigen", "baseline" or "model-raw" (server/skinning/weights-source.ts). */
  readonly name: string;
  fieldsFor(shape: ShapeSamples, count: number): Promise<SkinningFields>;
  /**
   * Predicts on a rigged mesh's anchor frame instead of its bind pose (a network, whose fields move with the pose:
   * anchored-prediction.ts); optionally with another provider for that (the pose-consistent fine-tune).
   */
  readonly anchorsPoses?: boolean;
  /** The number of fields it always makes, when fixed (a network's outputs): fieldsFor asks for exactly these. */
  readonly fieldCount?: number;
  readonly anchorProvider?: SkinningFieldProvider;
}

export class SkinningError extends Error {
  override name = "SkinningError";
}
