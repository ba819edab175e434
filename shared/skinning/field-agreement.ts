// How far two predictions of K fields at the same points are from each other, the two ways the pose-invariance
// measure compares a deformed frame's fields with a reference's (issue 16):
// - temporalL1: mean |difference| of the fields made zero-mean and unit-RMS, after the signed permutation that
//   matches them best (Hungarian assignment on |correlation|): the fields themselves, up to order and sign.
// - subspaceDistance: the sum of squared sines of the principal angles between span{1, A} and span{1, B}, no
//   matching: what the solver sees, since it uses only the span.
// The means are dropped because the constant channel is in every subspace the bake builds.

/** Fields as a point-major table: count rows of k numbers. */
export interface FieldTable {
  values: Float64Array;
  count: number;
  k: number;
}

/** Relative norm below which a centred column adds no direction (a degenerate prediction). */
const RANK_TOLERANCE = 1e-9;

/** Each column minus its mean, divided by its RMS (a constant column becomes zeros). */
export function unitRmsColumns(table: FieldTable): Float64Array {
  const { values, count, k } = table;
  const out = new Float64Array(count * k);
  for (let f = 0; f < k; f++) {
    let mean = 0;
    for (let i = 0; i < count; i++) mean += values[i * k + f];
    mean /= count;
    let ms = 0;
    for (let i = 0; i < count; i++) ms += (values[i * k + f] - mean) ** 2;
    const scale = ms > 0 ? 1 / Math.sqrt(ms / count) : 0;
    for (let i = 0; i < count; i++) out[i * k + f] = (values[i * k + f] - mean) * scale;
  }
  return out;
}

/** Correlation of every column of a with every column of b (both unit-RMS, zero-mean): k_a x k_b, row-major. */
function correlations(a: Float64Array, b: Float64Array, count: number, k: number): Float64Array {
  const c = new Float64Array(k * k);
  for (let i = 0; i < count; i++) {
    const ra = i * k;
    for (let x = 0; x < k; x++) {
      const va = a[ra + x];
      for (let y = 0; y < k; y++) c[x * k + y] += va * b[ra + y];
    }
  }
  for (let e = 0; e < c.length; e++) c[e] /= count;
  return c;
}

/**
 * The assignment of rows to columns with the least total cost (Hungarian algorithm, O(n^3)): out[row] = column.
 */
export function minimumAssignment(cost: ArrayLike<number>, n: number): Int32Array {
  const u = new Float64Array(n + 1), v = new Float64Array(n + 1), way = new Int32Array(n + 1), p = new Int32Array(n + 1);
  const minv = new Float64Array(n + 1), used = new Uint8Array(n + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    minv.fill(Infinity);
    used.fill(0);
    do {
      used[j0] = 1;
      const i0 = p[j0];
      let delta = Infinity, j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const current = cost[(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
        if (current < minv[j]) { minv[j] = current; way[j] = j0; }
        if (minv[j] < delta) { delta = minv[j]; j1 = j; }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) { u[p[j]] += delta; v[j] -= delta; } else minv[j] -= delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 !== 0);
  }
  const out = new Int32Array(n);
  for (let j = 1; j <= n; j++) out[p[j] - 1] = j - 1;
  return out;
}

/** Mean |s_f a_{pi(f)} - b_f| over points and fields, unit-RMS fields, pi and s the signed matching of a to b. */
export function temporalL1(a: FieldTable, b: FieldTable): number {
  checkSameShape(a, b);
  const { count, k } = a;
  const ua = unitRmsColumns(a), ub = unitRmsColumns(b);
  const c = correlations(ub, ua, count, k);
  const cost = c.map((x) => -Math.abs(x));
  const match = minimumAssignment(cost, k);
  let total = 0;
  for (let f = 0; f < k; f++) {
    const g = match[f], sign = c[f * k + g] < 0 ? -1 : 1;
    for (let i = 0; i < count; i++) total += Math.abs(sign * ua[i * k + g] - ub[i * k + f]);
  }
  return total / (count * k);
}

/** An orthonormal basis (columns, point-major, `rank` of them) of the span of the zero-mean columns. */
function centredBasis(table: FieldTable): { basis: Float64Array; rank: number } {
  const { count, k } = table;
  const columns = unitRmsColumns(table);
  const basis = new Float64Array(count * k);
  let rank = 0;
  for (let f = 0; f < k; f++) {
    const column = new Float64Array(count);
    let norm0 = 0;
    for (let i = 0; i < count; i++) { column[i] = columns[i * k + f]; norm0 += column[i] ** 2; }
    if (!(norm0 > 0)) continue;
    // Modified Gram-Schmidt, twice: the network's fields are partly collinear.
    for (let pass = 0; pass < 2; pass++) {
      for (let r = 0; r < rank; r++) {
        let dot = 0;
        for (let i = 0; i < count; i++) dot += basis[i * k + r] * column[i];
        for (let i = 0; i < count; i++) column[i] -= dot * basis[i * k + r];
      }
    }
    let norm = 0;
    for (let i = 0; i < count; i++) norm += column[i] ** 2;
    if (norm <= RANK_TOLERANCE * norm0) continue;
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < count; i++) basis[i * k + rank] = column[i] * scale;
    rank++;
  }
  return { basis, rank };
}

/**
 * Sum of squared sines of the principal angles between span{1, A} and span{1, B} over the same points: 0 for
 * the same span, at most K (the constant channel is shared, so it never counts). min(rank) - ||Qa^T Qb||_F^2.
 */
export function subspaceDistance(a: FieldTable, b: FieldTable): number {
  checkSameShape(a, b);
  const { count, k } = a;
  const qa = centredBasis(a), qb = centredBasis(b);
  let captured = 0;
  for (let x = 0; x < qa.rank; x++) {
    for (let y = 0; y < qb.rank; y++) {
      let dot = 0;
      for (let i = 0; i < count; i++) dot += qa.basis[i * k + x] * qb.basis[i * k + y];
      captured += dot * dot;
    }
  }
  return Math.max(0, Math.min(qa.rank, qb.rank) - captured);
}

function checkSameShape(a: FieldTable, b: FieldTable): void {
  if (a.count !== b.count || a.k !== b.k || a.values.length < a.count * a.k || b.values.length < b.count * b.k) {
    throw new Error(`field tables differ: ${a.count} x ${a.k} against ${b.count} x ${b.k}`);
  }
}
