// The quasi-Newton curvature pairs (s, y) that L-BFGS keeps, carried from one step to the next. Within a step the
// inertia, damping and springs are quadratic and the elastic tangent stiffness follows a deformation that lasts
// many steps (a held body, a body squashed on a table), so the pairs of the last steps describe the next step's
// Hessian better than the rest-Hessian preconditioner alone. The body turns between steps, and the curvature turns
// with it: the pairs are kept with the rotation they were measured at and turned to the next one before use
// (coordinates are component-major, so a rotation R acts as R (x) I, as in the preconditioner). That is exact for
// every term but the contacts, which push along world normals: on a body rolling on a table the turned pairs put
// the table's stiffness where it was, and the minimiser's first iteration drops pairs whose direction overshoots.
// Pairs measured before the Hessian changed otherwise (a grab came or went, a new material) are dropped too.

/** Curvature pairs L-BFGS keeps. */
export const CURVATURE_PAIRS = 6;

export class CurvatureMemory {
  /** Steps s and gradient changes y, `pairs` rows of n. */
  readonly s: Float64Array;
  readonly y: Float64Array;
  /** 1 / (s . y) of each pair. */
  readonly rho: Float64Array;
  /** Pairs held, and the slot of the newest. */
  stored = 0;
  newest = -1;
  /** The frame's rotation (row-major 3x3) the pairs were measured in. */
  readonly rotation = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
  /** The objective's Hessian version they were measured for (Objective.hessianVersion). */
  version = -1;
  private readonly turn = new Float64Array(9);

  constructor(readonly n: number, readonly pairs = CURVATURE_PAIRS) {
    this.s = new Float64Array(pairs * n);
    this.y = new Float64Array(pairs * n);
    this.rho = new Float64Array(pairs);
  }

  forget(): void {
    this.stored = 0;
    this.newest = -1;
  }

  /** The slot of the k-th newest pair (k = 0: the newest). */
  slot(k: number): number {
    return (this.newest - k + this.pairs) % this.pairs;
  }

  /** The slot a new pair is written into (the oldest once all are held): write s and y there, then `commit`. */
  nextSlot(): number {
    return (this.newest + 1) % this.pairs;
  }

  /** Keeps the pair just written into nextSlot(), whose s . y is `sy` (positive: callers check before writing). */
  commit(sy: number): void {
    const slot = this.nextSlot();
    this.rho[slot] = 1 / sy;
    this.newest = slot;
    this.stored = Math.min(this.stored + 1, this.pairs);
  }

  /** Turns the pairs from the rotation they were measured at to `rotation` (row-major 3x3). */
  turnTo(rotation: Float64Array): void {
    const r0 = this.rotation, d = this.turn;
    let changed = false;
    for (let i = 0; i < 9; i++) changed ||= r0[i] !== rotation[i];
    if (!changed) return;
    // D = R R0^T turns a vector measured in the old frame into the new one.
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) d[3 * a + b] = rotation[3 * a] * r0[3 * b] + rotation[3 * a + 1] * r0[3 * b + 1] + rotation[3 * a + 2] * r0[3 * b + 2];
    }
    for (let k = 0; k < this.stored; k++) {
      const offset = this.slot(k) * this.n;
      turnComponents(d, this.s, offset, this.n);
      turnComponents(d, this.y, offset, this.n);
    }
    r0.set(rotation);
  }

  copyFrom(from: CurvatureMemory): void {
    if (from.n !== this.n || from.pairs !== this.pairs) throw new RangeError(`curvature of ${from.pairs} x ${from.n} copied into ${this.pairs} x ${this.n}`);
    this.s.set(from.s);
    this.y.set(from.y);
    this.rho.set(from.rho);
    this.stored = from.stored;
    this.newest = from.newest;
    this.rotation.set(from.rotation);
    this.version = from.version;
  }
}

/** x <- (D (x) I) x for the n numbers of x at `offset`, component-major (three blocks of n / 3). */
function turnComponents(d: Float64Array, x: Float64Array, offset: number, n: number): void {
  const m = n / 3;
  for (let i = 0; i < m; i++) {
    const x0 = x[offset + i], x1 = x[offset + m + i], x2 = x[offset + 2 * m + i];
    x[offset + i] = d[0] * x0 + d[1] * x1 + d[2] * x2;
    x[offset + m + i] = d[3] * x0 + d[4] * x1 + d[5] * x2;
    x[offset + 2 * m + i] = d[6] * x0 + d[7] * x1 + d[8] * x2;
  }
}
