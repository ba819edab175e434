// One term of the incremental potential a step minimises. Each term reads the step's shared state (StepState)
// and its own data; `accumulate` adds its value and gradient, `addHessian` adds the matrix the preconditioner
// uses for it (exact where the term is quadratic, the rest Hessian in the body's frame for elasticity).

export interface EnergyTerm {
  /** Adds the term's gradient at q into g; returns its value. */
  accumulate(q: Float64Array, g: Float64Array): number;
}

/**
 * A term that contributes to the preconditioner: its Hessian in the body's own (unrotated) frame, for a step of
 * effective size h (s). The body frame is where the rest Hessian is exact for any rigid rotation.
 */
export interface HessianTerm {
  /** Adds the term's Hessian (n x n, row-major, component-major unknowns) for step size h into `matrix`. */
  addHessian(matrix: Float64Array, h: number): void;
}

/** Adds k b b^T (b: row r of `rows`, m entries) into the upper triangle of an m x m block (addIsotropicBlock finishes it). */
export function addOuterUpper(block: Float64Array, m: number, rows: Float64Array, r: number, k: number): void {
  for (let i = 0; i < m; i++) {
    const bi = k * rows[r + i];
    if (bi === 0) continue;
    const o = i * m;
    for (let j = i; j < m; j++) block[o + j] += bi * rows[r + j];
  }
}

/** Adds an m x m symmetric block, given by its upper triangle, into each of the three diagonal blocks of an n x n matrix. */
export function addIsotropicBlock(matrix: Float64Array, n: number, m: number, upper: Float64Array): void {
  for (let i = 0; i < m; i++) {
    for (let j = i; j < m; j++) {
      const v = upper[i * m + j];
      if (v === 0) continue;
      for (let a = 0; a < 3; a++) {
        const o = a * m;
        matrix[(o + i) * n + o + j] += v;
        if (j !== i) matrix[(o + j) * n + o + i] += v;
      }
    }
  }
}

/** World position (origin + rest + b . q) of point i of a set (basis rows + rest positions) into out[0..2]. */
export function pointAt(q: Float64Array, m: number, origin: Float64Array, rows: Float64Array, rest: Float64Array, i: number, out: Float64Array): void {
  const r = i * m;
  let ux = 0, uy = 0, uz = 0;
  for (let j = 0; j < m; j++) {
    const b = rows[r + j];
    ux += b * q[j]; uy += b * q[m + j]; uz += b * q[2 * m + j];
  }
  out[0] = origin[0] + rest[3 * i] + ux;
  out[1] = origin[1] + rest[3 * i + 1] + uy;
  out[2] = origin[2] + rest[3 * i + 2] + uz;
}

/**
 * A point spring k/2 |p - t|^2 on point i of a set (basis rows + rest positions, body origin `origin`): adds
 * its gradient into g and returns its energy. `p` is 3 numbers of scratch.
 */
export function pointSpring(
  q: Float64Array, g: Float64Array, m: number, origin: Float64Array, rows: Float64Array, rest: Float64Array, i: number,
  tx: number, ty: number, tz: number, k: number, p: Float64Array,
): number {
  const r = i * m;
  pointAt(q, m, origin, rows, rest, i, p);
  const dx = p[0] - tx, dy = p[1] - ty, dz = p[2] - tz;
  const kx = k * dx, ky = k * dy, kz = k * dz;
  for (let j = 0; j < m; j++) {
    const b = rows[r + j];
    g[j] += kx * b;
    g[m + j] += ky * b;
    g[2 * m + j] += kz * b;
  }
  return 0.5 * k * (dx * dx + dy * dy + dz * dz);
}
