// Per-body typed arrays grow and shrink as bodies join and leave a room (uploads).

/**
 * A copy of a typed array with `group` entries at `at` inserted (`values` given) or removed (none given): the
 * per-thing arrays change only when a body joins or leaves the room, never in a step.
 */
export function spliced<T extends Int32Array | Float64Array | Uint8Array>(array: T, at: number, group: number, values?: readonly number[]): T {
  const length = array.length + (values ? group : -group);
  const out = new (array.constructor as new (n: number) => T)(length);
  out.set(array.subarray(0, at));
  if (values) {
    out.set(values, at);
    out.set(array.subarray(at), at + group);
  } else out.set(array.subarray(at + group), at);
  return out;
}
