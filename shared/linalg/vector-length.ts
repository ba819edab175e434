// The length of a 3-vector for what runs every step, tick or message. Math.hypot is not used there: in V8 each
// call allocated, and on the room's tick paths that made a minor GC every few ticks (FleshLimit.apply on the fox:
// 235 collections in 20,000 calls with Math.hypot, 1 without). The components here are metres or metres a second,
// far from where a plain sum of squares would overflow or underflow.

export function length3(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z);
}

/** The length of a 4-vector (a quaternion's norm), likewise. */
export function length4(x: number, y: number, z: number, w: number): number {
  return Math.sqrt(x * x + y * y + z * z + w * w);
}
