// The reduced basis (METHOD.md section 1): a rest point x moves by u(x) = sum_h w_h(x) T_h [x; 1].
// q is stored component-major: q = [q_x | q_y | q_z], each of length m = 4 * handles, and
// q_a[4h + j] = T_h[a, j]. A point's displacement component a is then b(x) . q_a with
// b(x)[4h + j] = w_h(x) * [x, y, z, 1]_j, so the mass matrix is I3 (x) (sum m b b^T) and dF/dq has three
// identical m x 3 blocks D(x): F[a][c] = delta_ac + q_a . D[:, c].

import { symmetricEigen } from "./linalg";
import { SimParameterError } from "./material";

/** Weights of all handles (channel 0 is the constant channel, = 1) at a set of rest points, in body metres. */
export interface WeightedPoints {
  /** 3N rest positions, metres, relative to the body origin. */
  positions: Float64Array;
  /** N * handles weights, point-major. */
  weights: Float64Array;
}

export interface CubaturePoints extends WeightedPoints {
  /** N volumes, m^3. */
  volumes: Float64Array;
  /** N * handles * 3 weight gradients (per metre), point-major then handle then axis. */
  gradients: Float64Array;
}

export interface MassSamples extends WeightedPoints {
  /** N volumes, m^3 (dense interior samples: the mass matrix is integrated on these). */
  volumes: Float64Array;
}

/**
 * What the solver keeps of the mass samples: their integrals. A client's copy of a bake carries these instead of
 * the samples (a few thousand numbers instead of ~86,000 per body).
 */
export interface MassIntegrals {
  /** Per-unit-density mass matrix block, m x m (sum V b b^T). */
  block: Float64Array;
  /** First moment, m (sum V b). */
  moment: Float64Array;
  /** Total volume, m^3. */
  volume: number;
  /** Rest centroid (3). */
  centroid: Float64Array;
}

/** Everything the solver needs about a body's shape and skinning fields, in body-local metres. */
export interface SubspaceSource {
  /** Total handles including the constant channel (K + 1). */
  handles: number;
  cubature: CubaturePoints;
  /** Dense interior samples, or their integrals (integrateMass). */
  mass: MassSamples | MassIntegrals;
  /** Surface samples used for contacts and grabs. */
  surface: WeightedPoints;
}

/** Basis rows b(x) of a point set: N x m. */
export function basisRows(points: WeightedPoints, handles: number): Float64Array {
  const n = points.positions.length / 3;
  const m = 4 * handles;
  const rows = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    const x = points.positions[3 * i], y = points.positions[3 * i + 1], z = points.positions[3 * i + 2];
    for (let h = 0; h < handles; h++) {
      const w = points.weights[i * handles + h];
      const o = i * m + 4 * h;
      rows[o] = w * x; rows[o + 1] = w * y; rows[o + 2] = w * z; rows[o + 3] = w;
    }
  }
  return rows;
}

/** The displacement B q of point i of a set (basis rows, as from basisRows; m = q.length / 3 a row) into out[0..2]. */
export function displacementAt(rows: Float64Array, q: ArrayLike<number>, i: number, out: Float64Array): void {
  const m = q.length / 3, r = i * m;
  let ux = 0, uy = 0, uz = 0;
  for (let k = 0; k < m; k++) {
    const b = rows[r + k];
    ux += b * q[k]; uy += b * q[m + k]; uz += b * q[2 * m + k];
  }
  out[0] = ux; out[1] = uy; out[2] = uz;
}

const displacement = new Float64Array(3);

/** RMS over the points of a set (basis rows) of their displacement B q, m. */
export function displacementRms(rows: Float64Array, q: ArrayLike<number>): number {
  const count = rows.length / (q.length / 3);
  let sum = 0;
  for (let i = 0; i < count; i++) {
    displacementAt(rows, q, i, displacement);
    sum += displacement[0] ** 2 + displacement[1] ** 2 + displacement[2] ** 2;
  }
  return Math.sqrt(sum / count);
}

/** Precomputed, material-independent matrices of one body's subspace. */
export class Subspace {
  readonly handles: number;
  /** Unknowns per component (4 * handles). */
  readonly m: number;
  /** Total unknowns (3 m). */
  readonly n: number;
  readonly cubatureCount: number;
  readonly cubatureVolumes: Float64Array;
  /** Cubature dF/dq blocks: cubatureCount x m x 3. */
  readonly cubatureJacobians: Float64Array;
  /** What those blocks are made of (jacobianBlockInto): the points (N x 3), their weights (N x handles) and the weights' gradients (N x handles x 3). */
  readonly cubaturePositions: Float64Array;
  readonly cubatureWeights: Float64Array;
  readonly cubatureGradients: Float64Array;
  /** Volume-weighted mean of the Jacobian blocks (m x 3): mean F = I + q_a . meanJacobian[:, c]. */
  readonly meanJacobian: Float64Array;
  readonly totalVolume: number;
  /** Per-unit-density mass matrix block (m x m): M = I3 (x) (density * massBlock). */
  readonly massBlock: Float64Array;
  /** Per-unit-density first moment sum V b(x) (m): gravity force component a = density g_a * massMoment. */
  readonly massMoment: Float64Array;
  /** Volume of the mass samples, m^3 (mass = density * massVolume). */
  readonly massVolume: number;
  /** Rest centroid of the mass samples (metres, body frame). */
  readonly restCentroid: Float64Array;
  /** Stiffness of stable Neo-Hookean at rest, split as K = mu * stiffnessMu + lambda * stiffnessLambda (n x n). */
  readonly stiffnessMu: Float64Array;
  readonly stiffnessLambda: Float64Array;
  /**
   * Directions of one component's coordinates (m each, `nullCount` of them, orthonormal) that move no point at
   * all: with the baseline's coordinate fields, w_x [1] and w_0 [x] are the same function (and w_x [y] = w_y [x]).
   * Nothing restores q along them, so the solver removes them after every step (see removeNullComponents).
   */
  readonly nullBasis: Float64Array;
  readonly nullCount: number;
  readonly surfaceCount: number;
  readonly surfaceRest: Float64Array;
  /** Surface basis rows: surfaceCount x m. */
  readonly surfaceRows: Float64Array;

  constructor(source: SubspaceSource) {
    validateSource(source);
    const handles = source.handles;
    const m = 4 * handles;
    this.handles = handles;
    this.m = m;
    this.n = 3 * m;

    const cub = source.cubature;
    const nc = cub.volumes.length;
    this.cubatureCount = nc;
    this.cubatureVolumes = Float64Array.from(cub.volumes);
    this.cubatureJacobians = jacobianBlocks(cub, handles);
    this.cubaturePositions = Float64Array.from(cub.positions);
    this.cubatureWeights = Float64Array.from(cub.weights);
    this.cubatureGradients = Float64Array.from(cub.gradients);
    this.meanJacobian = new Float64Array(m * 3);
    let totalVolume = 0;
    for (let c = 0; c < nc; c++) {
      const base = c * m * 3;
      const v = cub.volumes[c];
      totalVolume += v;
      for (let k = 0; k < m * 3; k++) this.meanJacobian[k] += v * this.cubatureJacobians[base + k];
    }
    for (let k = 0; k < m * 3; k++) this.meanJacobian[k] /= totalVolume;
    this.totalVolume = totalVolume;

    // Mass is integrated on the dense samples: the cubature set may have fewer points than unknowns.
    const mass = "block" in source.mass ? source.mass : integrateMass(source.mass, handles);
    this.massBlock = Float64Array.from(mass.block);
    this.massMoment = Float64Array.from(mass.moment);
    this.restCentroid = Float64Array.from(mass.centroid);
    this.massVolume = mass.volume;

    [this.stiffnessMu, this.stiffnessLambda] = restStiffness(this.cubatureJacobians, this.cubatureVolumes, m);
    [this.nullBasis, this.nullCount] = massNullSpace(this.massBlock, m);

    this.surfaceCount = source.surface.positions.length / 3;
    this.surfaceRest = Float64Array.from(source.surface.positions);
    this.surfaceRows = basisRows(source.surface, handles);
  }

  /** The rest stiffness of a material with Lame parameters mu and lambda, K = mu K_mu + lambda K_lambda, into `out` (n x n). */
  restStiffness(mu: number, lambda: number, out: Float64Array = new Float64Array(this.n * this.n)): Float64Array {
    for (let i = 0; i < out.length; i++) out[i] = mu * this.stiffnessMu[i] + lambda * this.stiffnessLambda[i];
    return out;
  }
}

/** The mass samples' integrals (MassIntegrals), in the samples' own units. */
export function integrateMass(samples: MassSamples, handles: number): MassIntegrals {
  const m = 4 * handles, nm = samples.volumes.length;
  const rows = basisRows(samples, handles);
  const block = new Float64Array(m * m), moment = new Float64Array(m), centroid = new Float64Array(3);
  let volume = 0;
  for (let i = 0; i < nm; i++) {
    const v = samples.volumes[i];
    const row = rows.subarray(i * m, (i + 1) * m);
    for (let a = 0; a < m; a++) {
      const va = v * row[a];
      if (va === 0) continue;
      moment[a] += va;
      const o = a * m;
      for (let b = a; b < m; b++) block[o + b] += va * row[b];
    }
    volume += v;
    for (let k = 0; k < 3; k++) centroid[k] += v * samples.positions[3 * i + k];
  }
  for (let a = 0; a < m; a++) for (let b = 0; b < a; b++) block[a * m + b] = block[b * m + a];
  for (let k = 0; k < 3; k++) centroid[k] /= volume;
  return { block, moment, volume, centroid };
}

/**
 * The integrals of the same samples with every position multiplied by `s` (volumes by s^3): a basis entry
 * w_h [x, y, z, 1]_j grows by s for j < 3, so no sample needs to be revisited.
 */
export function scaleMassIntegrals(integrals: MassIntegrals, s: number): MassIntegrals {
  const m = integrals.moment.length, s3 = s * s * s;
  const factor = (a: number) => (a % 4 === 3 ? 1 : s);
  const block = new Float64Array(m * m), moment = new Float64Array(m);
  for (let a = 0; a < m; a++) {
    moment[a] = s3 * factor(a) * integrals.moment[a];
    for (let b = 0; b < m; b++) block[a * m + b] = s3 * factor(a) * factor(b) * integrals.block[a * m + b];
  }
  return { block, moment, volume: s3 * integrals.volume, centroid: integrals.centroid.map((c) => s * c) };
}

/** The volume-averaged deformation gradient of coordinates q (row-major 3x3 into f): I + q_a . meanJacobian. */
export function meanDeformationGradient(subspace: Subspace, q: ArrayLike<number>, f: Float64Array): void {
  const mean = subspace.meanJacobian, m = subspace.m;
  f.fill(0);
  f[0] = f[4] = f[8] = 1;
  for (let i = 0; i < m; i++) {
    const d0 = mean[3 * i], d1 = mean[3 * i + 1], d2 = mean[3 * i + 2];
    for (let a = 0; a < 3; a++) {
      const qa = q[a * m + i];
      f[3 * a] += qa * d0; f[3 * a + 1] += qa * d1; f[3 * a + 2] += qa * d2;
    }
  }
}

/**
 * The coordinates (3m) of the rest shape moved rigidly: turned by `rotation` (row-major 3x3) about its rest
 * centroid `restCentroid`, which moves by `shift` (body frame). Only the constant channel's affine handle
 * (q_a[0..3]) is non-zero: u(X) = (R - I)(X - Xc) + shift, so T_0 = [R - I | shift - (R - I) Xc].
 */
export function rigidMotionCoordinates(out: Float64Array, m: number, restCentroid: ArrayLike<number>, rotation: ArrayLike<number>, shift: ArrayLike<number>): void {
  out.fill(0);
  for (let a = 0; a < 3; a++) {
    const g0 = rotation[3 * a] - (a === 0 ? 1 : 0), g1 = rotation[3 * a + 1] - (a === 1 ? 1 : 0), g2 = rotation[3 * a + 2] - (a === 2 ? 1 : 0);
    out[a * m] = g0;
    out[a * m + 1] = g1;
    out[a * m + 2] = g2;
    out[a * m + 3] = shift[a] - (g0 * restCentroid[0] + g1 * restCentroid[1] + g2 * restCentroid[2]);
  }
}

/**
 * Relative mass eigenvalue below which a direction moves nothing (exact identities sit at ~1e-17, real modes above
 * 1e-10): the solver removes those directions, and keeps every other; evaluations of the body's modes use the same cut.
 */
export const NULL_EIGENVALUE = 1e-13;

function massNullSpace(massBlock: Float64Array, m: number): [Float64Array, number] {
  const values = new Float64Array(m), vectors = new Float64Array(m * m);
  symmetricEigen(Float64Array.from(massBlock), m, values, vectors);
  let largest = 0;
  for (let i = 0; i < m; i++) largest = Math.max(largest, values[i]);
  const columns: number[] = [];
  for (let i = 0; i < m; i++) if (values[i] < NULL_EIGENVALUE * largest) columns.push(i);
  const basis = new Float64Array(columns.length * m);
  columns.forEach((column, k) => {
    for (let j = 0; j < m; j++) basis[k * m + j] = vectors[j * m + column];
  });
  return [basis, columns.length];
}

/** Removes the components of a state vector (3m: q or a velocity) that move no point. No allocation. */
export function removeNullComponents(subspace: Subspace, vector: Float64Array): void {
  const m = subspace.m, basis = subspace.nullBasis;
  for (let k = 0; k < subspace.nullCount; k++) {
    for (let a = 0; a < 3; a++) {
      let dot = 0;
      for (let j = 0; j < m; j++) dot += basis[k * m + j] * vector[a * m + j];
      for (let j = 0; j < m; j++) vector[a * m + j] -= dot * basis[k * m + j];
    }
  }
}

/**
 * Hessian of the elastic energy at rest, where stable Neo-Hookean linearises to
 * Psi''[dF, dF] = mu (|dF|^2 + tr(dF dF)) + lambda tr(dF)^2. Block (a, b), entry (i, j):
 *   sum_c V_c [ mu delta_ab (D D^T)_ij + mu D_ib D_ja + lambda D_ia D_jb ].
 */
/**
 * dF/dq at each point (N x m x 3; row 4 h + j is handle h's affine column j, column b the spatial direction):
 * F = I + sum over rows of q_a[row] times the block's row, the same three blocks for every component a.
 */
export function jacobianBlocks(points: Omit<CubaturePoints, "volumes">, handles: number): Float64Array {
  const n = points.positions.length / 3, m = 4 * handles, out = new Float64Array(n * m * 3);
  for (let c = 0; c < n; c++) jacobianBlockInto(points, handles, c, out, c * m * 3);
  return out;
}

/** Point c's block of jacobianBlocks (m x 3) written into `out` from `offset` (rounded to single precision in a Float32Array). */
export function jacobianBlockInto(points: Omit<CubaturePoints, "volumes">, handles: number, c: number, out: Float64Array | Float32Array, offset: number): void {
  for (let h = 0; h < handles; h++) {
    const w = points.weights[c * handles + h];
    const g = 3 * (c * handles + h);
    const gx = points.gradients[g], gy = points.gradients[g + 1], gz = points.gradients[g + 2];
    for (let j = 0; j < 4; j++) {
      const xj = j < 3 ? points.positions[3 * c + j] : 1;
      const o = offset + (4 * h + j) * 3;
      out[o] = (j === 0 ? w : 0) + xj * gx;
      out[o + 1] = (j === 1 ? w : 0) + xj * gy;
      out[o + 2] = (j === 2 ? w : 0) + xj * gz;
    }
  }
}

function restStiffness(jac: Float64Array, volumes: Float64Array, m: number): [Float64Array, Float64Array] {
  const n = 3 * m;
  const kMu = new Float64Array(n * n);
  const kLambda = new Float64Array(n * n);
  const nc = volumes.length;
  const di = new Float64Array(3);
  const dj = new Float64Array(3);
  for (let c = 0; c < nc; c++) {
    const v = volumes[c];
    const base = c * m * 3;
    for (let i = 0; i < m; i++) {
      di[0] = jac[base + 3 * i]; di[1] = jac[base + 3 * i + 1]; di[2] = jac[base + 3 * i + 2];
      if (di[0] === 0 && di[1] === 0 && di[2] === 0) continue;
      for (let j = 0; j < m; j++) {
        dj[0] = jac[base + 3 * j]; dj[1] = jac[base + 3 * j + 1]; dj[2] = jac[base + 3 * j + 2];
        const ddt = v * (di[0] * dj[0] + di[1] * dj[1] + di[2] * dj[2]);
        for (let a = 0; a < 3; a++) {
          const rowBase = (a * m + i) * n + j;
          const vdja = v * dj[a], vdia = v * di[a];
          for (let b = 0; b < 3; b++) {
            kMu[rowBase + b * m] += (a === b ? ddt : 0) + di[b] * vdja;
            kLambda[rowBase + b * m] += vdia * dj[b];
          }
        }
      }
    }
  }
  return [kMu, kLambda];
}

function validateSource(source: SubspaceSource): void {
  const h = source.handles;
  if (!Number.isInteger(h) || h < 1) throw new SimParameterError(`handles must be a positive integer, got ${h}`);
  const check = (what: string, arr: Float64Array, expected: number) => {
    if (arr.length !== expected) throw new SimParameterError(`${what}: expected ${expected} numbers, got ${arr.length}`);
    for (let i = 0; i < arr.length; i++) {
      if (!Number.isFinite(arr[i])) throw new SimParameterError(`${what}: entry ${i} is not finite (${arr[i]})`);
    }
  };
  const nc = source.cubature.volumes.length;
  if (nc < 1) throw new SimParameterError("the subspace needs at least one cubature point");
  check("cubature positions", source.cubature.positions, 3 * nc);
  check("cubature volumes", source.cubature.volumes, nc);
  check("cubature weights", source.cubature.weights, nc * h);
  check("cubature weight gradients", source.cubature.gradients, nc * h * 3);
  if ("block" in source.mass) {
    const m = 4 * h;
    check("mass block", source.mass.block, m * m);
    check("mass moment", source.mass.moment, m);
    check("mass centroid", source.mass.centroid, 3);
    if (!(source.mass.volume > 0)) throw new SimParameterError(`mass volume must be positive, got ${source.mass.volume}`);
  } else {
    const nm = source.mass.volumes.length;
    if (nm < 1) throw new SimParameterError("the subspace needs mass samples");
    check("mass positions", source.mass.positions, 3 * nm);
    check("mass volumes", source.mass.volumes, nm);
    check("mass weights", source.mass.weights, nm * h);
  }
  const ns = source.surface.positions.length / 3;
  if (!Number.isInteger(ns) || ns < 1) throw new SimParameterError("the subspace needs surface samples");
  check("surface weights", source.surface.weights, ns * h);
  for (let i = 0; i < nc; i++) {
    if (!(source.cubature.volumes[i] > 0)) throw new SimParameterError(`cubature volume ${i} must be positive`);
  }
}
