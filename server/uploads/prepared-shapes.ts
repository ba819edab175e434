// Body shapes (subspace and proxy cover) the bake thread built for uploads, waiting for their room in this process
// to place the body: building one on the room's thread would stall its ticks for a quarter second. A room in
// another process (Redis) finds none here and builds its own.

import type { BodyShape } from "../../shared/scene/body-shape-cache";

/** Shapes kept at most: each waits only from its bake to its room's uploadBaked. */
const KEPT = 8;
const prepared = new Map<string, BodyShape>();

const key = (hash: string, size: number) => `${hash}@${size}`;

export function keepPreparedShape(hash: string, size: number, shape: BodyShape): void {
  prepared.set(key(hash, size), shape);
  if (prepared.size > KEPT) prepared.delete(prepared.keys().next().value!);
}

/** The shape prepared for this bake and size, once (null when none was). */
export function takePreparedShape(hash: string, size: number): BodyShape | null {
  const shape = prepared.get(key(hash, size)) ?? null;
  prepared.delete(key(hash, size));
  return shape;
}
