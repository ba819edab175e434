// Small dense linear algebra on preallocated Float64Arrays (row-major, n x n).
// The reduced systems are a few hundred unknowns, so dense Cholesky is the fastest robust choice.

import { backSubstitute, forwardSubstitute } from "../linalg/triangular-solves";

/** In-place Cholesky A = L L^T (lower triangle of `a` overwritten by L). Returns false if A is not positive definite. */
export function choleskyFactor(a: Float64Array, n: number): boolean {
  return choleskyColumns(a, n, 0, n);
}

/**
 * Columns [from, to) of an in-place Cholesky factorisation (left-looking: column j reads only columns < j), so a
 * factorisation can be spread over several calls. Column j costs about j (n - j) multiply-adds. Returns false if
 * A is not positive definite.
 */
export function choleskyColumns(a: Float64Array, n: number, from: number, to: number): boolean {
  for (let j = from; j < to; j++) {
    const rowJ = j * n;
    let diag = a[rowJ + j];
    for (let k = 0; k < j; k++) diag -= a[rowJ + k] * a[rowJ + k];
    if (!(diag > 0)) return false;
    const ljj = Math.sqrt(diag);
    a[rowJ + j] = ljj;
    const inv = 1 / ljj;
    for (let i = j + 1; i < n; i++) {
      const rowI = i * n;
      a[rowI + j] = (a[rowI + j] - dotStrided(a, rowI, a, rowJ, j)) * inv;
    }
  }
  return true;
}

/** Solves L L^T x = b in place (b becomes x) with a factor from choleskyFactor: only L's lower triangle is read. */
export function choleskySolve(l: Float64Array, n: number, b: Float64Array): void {
  forwardSubstitute(l, n, b, n);
  backSubstitute(l, n, b, n);
}

/** sum_k a[offset + k] * b[k] for k in [from, to), with four accumulators (hot loops: the solve, the damping product). */
export function dotRange(a: Float64Array, offset: number, b: Float64Array, from: number, to: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, k = from;
  for (; k + 3 < to; k += 4) {
    s0 += a[offset + k] * b[k];
    s1 += a[offset + k + 1] * b[k + 1];
    s2 += a[offset + k + 2] * b[k + 2];
    s3 += a[offset + k + 3] * b[k + 3];
  }
  for (; k < to; k++) s0 += a[offset + k] * b[k];
  return s0 + s1 + s2 + s3;
}

/** sum_k a[ao + k] * b[bo + k] for k in [0, count), four accumulators (the Cholesky's inner loop). */
export function dotStrided(a: Float64Array, ao: number, b: Float64Array, bo: number, count: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, k = 0;
  for (; k + 3 < count; k += 4) {
    s0 += a[ao + k] * b[bo + k];
    s1 += a[ao + k + 1] * b[bo + k + 1];
    s2 += a[ao + k + 2] * b[bo + k + 2];
    s3 += a[ao + k + 3] * b[bo + k + 3];
  }
  for (; k < count; k++) s0 += a[ao + k] * b[bo + k];
  return s0 + s1 + s2 + s3;
}

export function dot(a: Float64Array, b: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/**
 * Rotation part of a 3x3 matrix F (row-major), written as a unit quaternion into `quat` [x, y, z, w].
 * Müller et al. 2016, "A robust method to extract the rotational part of deformations": iterates from the
 * previous rotation, so a warm start converges in one or two iterations and inversions never flip it.
 */
export function extractRotation(f: Float64Array, quat: Float64Array, iterations: number): void {
  let qx = quat[0], qy = quat[1], qz = quat[2], qw = quat[3];
  for (let it = 0; it < iterations; it++) {
    // R from q (row-major).
    const r00 = 1 - 2 * (qy * qy + qz * qz), r01 = 2 * (qx * qy - qw * qz), r02 = 2 * (qx * qz + qw * qy);
    const r10 = 2 * (qx * qy + qw * qz), r11 = 1 - 2 * (qx * qx + qz * qz), r12 = 2 * (qy * qz - qw * qx);
    const r20 = 2 * (qx * qz - qw * qy), r21 = 2 * (qy * qz + qw * qx), r22 = 1 - 2 * (qx * qx + qy * qy);
    // omega = sum_i r_i x f_i over columns, divided by |sum_i r_i . f_i|.
    let ox = 0, oy = 0, oz = 0, d = 0;
    for (let c = 0; c < 3; c++) {
      const rx = c === 0 ? r00 : c === 1 ? r01 : r02;
      const ry = c === 0 ? r10 : c === 1 ? r11 : r12;
      const rz = c === 0 ? r20 : c === 1 ? r21 : r22;
      const fx = f[c], fy = f[3 + c], fz = f[6 + c];
      ox += ry * fz - rz * fy;
      oy += rz * fx - rx * fz;
      oz += rx * fy - ry * fx;
      d += rx * fx + ry * fy + rz * fz;
    }
    const scale = 1 / (Math.abs(d) + 1e-9);
    ox *= scale; oy *= scale; oz *= scale;
    const angle = Math.sqrt(ox * ox + oy * oy + oz * oz);
    if (angle < 1e-9) break;
    const half = 0.5 * angle, s = Math.sin(half) / angle, c = Math.cos(half);
    const ax = ox * s, ay = oy * s, az = oz * s;
    // q <- dq * q
    const nx = c * qx + ax * qw + ay * qz - az * qy;
    const ny = c * qy - ax * qz + ay * qw + az * qx;
    const nz = c * qz + ax * qy - ay * qx + az * qw;
    const nw = c * qw - ax * qx - ay * qy - az * qz;
    const norm = 1 / Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
    qx = nx * norm; qy = ny * norm; qz = nz * norm; qw = nw * norm;
  }
  quat[0] = qx; quat[1] = qy; quat[2] = qz; quat[3] = qw;
}

/** Row-major rotation matrix of a unit quaternion [x, y, z, w]. */
export function quaternionToMatrix(quat: Float64Array, r: Float64Array): void {
  const x = quat[0], y = quat[1], z = quat[2], w = quat[3];
  r[0] = 1 - 2 * (y * y + z * z); r[1] = 2 * (x * y - w * z); r[2] = 2 * (x * z + w * y);
  r[3] = 2 * (x * y + w * z); r[4] = 1 - 2 * (x * x + z * z); r[5] = 2 * (y * z - w * x);
  r[6] = 2 * (x * z - w * y); r[7] = 2 * (y * z + w * x); r[8] = 1 - 2 * (x * x + y * y);
}

/**
 * Cyclic Jacobi eigen-decomposition of a small symmetric d x d matrix. `a` is destroyed (its diagonal ends as
 * the eigenvalues, also copied to `values`); eigenvectors are the columns of `vectors` (row-major). No allocation.
 */
export function symmetricEigen(a: Float64Array, d: number, values: Float64Array, vectors: Float64Array): void {
  vectors.fill(0, 0, d * d);
  for (let i = 0; i < d; i++) vectors[i * d + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0, diag = 0;
    for (let p = 0; p < d; p++) {
      diag += a[p * d + p] ** 2;
      for (let q = p + 1; q < d; q++) off += a[p * d + q] ** 2;
    }
    if (off <= 1e-30 * diag || off === 0) break;
    for (let p = 0; p < d; p++) {
      for (let q = p + 1; q < d; q++) {
        const apq = a[p * d + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * d + q] - a[p * d + p]) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const cs = 1 / Math.sqrt(t * t + 1), sn = t * cs;
        for (let k = 0; k < d; k++) {
          const akp = a[k * d + p], akq = a[k * d + q];
          a[k * d + p] = cs * akp - sn * akq;
          a[k * d + q] = sn * akp + cs * akq;
        }
        for (let k = 0; k < d; k++) {
          const apk = a[p * d + k], aqk = a[q * d + k];
          a[p * d + k] = cs * apk - sn * aqk;
          a[q * d + k] = sn * apk + cs * aqk;
        }
        for (let k = 0; k < d; k++) {
          const vkp = vectors[k * d + p], vkq = vectors[k * d + q];
          vectors[k * d + p] = cs * vkp - sn * vkq;
          vectors[k * d + q] = sn * vkp + cs * vkq;
        }
      }
    }
  }
  for (let i = 0; i < d; i++) values[i] = a[i * d + i];
}

/** Whether every entry is a finite number. */
export function allFinite(x: Float64Array): boolean {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i])) return false;
  return true;
}
