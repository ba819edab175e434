// What a soft body's rest shape alone decides, built once per bake and size and shared by every room (and every
// reconnect) that places it: the solver's subspace and the proxy spheres' cover. Building them takes a quarter
// second a body, which a new room would otherwise take from every running room's ticks. Both are read-only.

import type { Subspace } from "../sim";
import type { BakedBody } from "../skinning";

export interface ProxyCover {
  centres: Float64Array;
  radii: Float64Array;
  weights: Float64Array;
}

export interface BodyShape {
  subspace: Subspace;
  cover: ProxyCover;
}

/** Keyed by the bake object (a cache that hands out the same object for the same bytes shares it) and size. */
const shapes = new WeakMap<BakedBody, Map<number, BodyShape>>();

export function sharedBodyShape(baked: BakedBody, size: number, build: () => BodyShape): BodyShape {
  let bySize = shapes.get(baked);
  if (!bySize) shapes.set(baked, (bySize = new Map()));
  let shape = bySize.get(size);
  if (!shape) bySize.set(size, (shape = build()));
  return shape;
}
