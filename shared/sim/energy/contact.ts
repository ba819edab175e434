// Penalty contacts with damping and lagged Coulomb friction. Each step the surface samples near an obstacle get
// a half-space n . p >= offset linearised at the predicted position (contacts.ts), so the iterations query
// nothing. Per contact: k/2 gap^2 while penetrating; for samples already penetrating at the prediction, normal
// damping c/2 along^2 (absorbs bounces) and friction against the sliding over the step, bounded by mu times last
// step's normal force, smoothed below a slip speed (IPC's mollifier: smooth static friction).

import { ContactSet, type ContactSurface } from "../contacts";
import type { SurfacePointKernels } from "../kernels/surface-points";
import type { Subspace } from "../subspace";
import type { StepState } from "../step-state";
import { pointAt, type EnergyTerm } from "./term";
import { length3 } from "../../linalg/vector-length";

/** Below this sliding speed (m/s) friction acts as a stiff viscous force: smooth static friction. */
export const FRICTION_SLIP_SPEED = 0.01;

/** The contacts a preconditioner factors: samples, body-frame normals and the weights of their Hessian. */
export class ContactSnapshot {
  count = 0;
  readonly sample: Int32Array;
  readonly normal: Float64Array;
  /** Hessian weight along the normal and across it (sticking friction). */
  readonly normalWeight: Float64Array;
  readonly tangentWeight: Float64Array;

  constructor(capacity: number) {
    this.sample = new Int32Array(capacity);
    this.normal = new Float64Array(3 * capacity);
    this.normalWeight = new Float64Array(capacity);
    this.tangentWeight = new Float64Array(capacity);
  }

  copyFrom(other: ContactSnapshot): void {
    const count = (this.count = other.count);
    for (let i = 0; i < count; i++) {
      this.sample[i] = other.sample[i];
      this.normalWeight[i] = other.normalWeight[i];
      this.tangentWeight[i] = other.tangentWeight[i];
    }
    for (let i = 0; i < 3 * count; i++) this.normal[i] = other.normal[i];
  }

  /** Whether most of the other snapshot's samples are in this one too (a factor of this one still helps). */
  overlaps(other: ContactSnapshot): boolean {
    let i = 0, j = 0, shared = 0;
    while (i < this.count && j < other.count) {
      const a = this.sample[i], b = other.sample[j];
      if (a === b) {
        if (this.normal[3 * i] * other.normal[3 * j] + this.normal[3 * i + 1] * other.normal[3 * j + 1] + this.normal[3 * i + 2] * other.normal[3 * j + 2] > 0.9) shared++;
        i++; j++;
      } else if (a < b) i++;
      else j++;
    }
    return shared >= 0.5 * other.count;
  }

  /**
   * Whether two snapshots factor nearly the same matrix: a few samples flickering at the margin (a block resting
   * on a face) do not warrant a new factor, a turned normal (over ~10 degrees) or a new contact patch does.
   */
  similarTo(other: ContactSnapshot): boolean {
    let i = 0, j = 0, differing = 0;
    // Both lists are in sample order: merge them.
    while (i < this.count || j < other.count) {
      const a = i < this.count ? this.sample[i] : Infinity, b = j < other.count ? other.sample[j] : Infinity;
      if (a === b) {
        const d = this.normal[3 * i] * other.normal[3 * j] + this.normal[3 * i + 1] * other.normal[3 * j + 1] + this.normal[3 * i + 2] * other.normal[3 * j + 2];
        if (d < 0.985) return false;
        i++; j++;
      } else if (a < b) {
        differing++; i++;
      } else {
        differing++; j++;
      }
    }
    if (differing > Math.max(2, 0.1 * Math.max(this.count, other.count))) return false;
    // Sticking and sliding friction differ by orders of magnitude across the normal: compare the totals (single
    // samples' normal forces flicker at the rim of a patch).
    return withinFactor(sum(this.tangentWeight, this.count), sum(other.tangentWeight, other.count), 2) && withinFactor(sum(this.normalWeight, this.count), sum(other.normalWeight, other.count), 2);
  }
}

function sum(values: Float64Array, count: number): number {
  let total = 0;
  for (let i = 0; i < count; i++) total += values[i];
  return total;
}

function withinFactor(a: number, b: number, factor: number): boolean {
  return a <= factor * b + 1e-300 && b <= factor * a + 1e-300;
}

export class ContactTerm implements EnergyTerm {
  readonly surfaces: ContactSurface[] = [];
  readonly contacts: ContactSet;
  /** Per contact: 1 when the sample was already penetrating at the predicted position (damped, factored). */
  readonly predicted: Uint8Array;
  /** Penalty per surface sample, N/m. */
  stiffness = 0;
  /** Normal damping per sample, N s/m. */
  dampingCoefficient = 0;
  friction = 0;

  /**
   * The penalty for a body of `totalMass` on `surfaceCount` samples: a body resting on a handful of samples must not
   * sink, so each sample's spring holds a sixteenth of the whole weight at 30 Hz: resting on 5 samples sinks
   * 16 g / (5 w^2) ~ 1 mm, whatever the size, and the term stays conditioned alike for every body (stiffer only
   * slows the solve). A positive `stiffness` overrides it; `dampingRatio` is per sample's mass.
   */
  setPenalty(totalMass: number, surfaceCount: number, settings: { stiffness: number; dampingRatio: number; friction: number }): void {
    const sampleMass = totalMass / surfaceCount, omega = 2 * Math.PI * 30;
    this.stiffness = settings.stiffness > 0 ? settings.stiffness : (totalMass * omega * omega) / 16;
    this.dampingCoefficient = 2 * settings.dampingRatio * Math.sqrt(this.stiffness * sampleMass);
    this.friction = settings.friction;
  }
  /** Per surface sample: normal contact force at the end of the last step (N). */
  readonly normalForce: Float64Array;
  /** Per contact: tangential motion of its sample from the step's start to the prediction, m. */
  private readonly predictedSlide: Float64Array;
  /** Per contact: signed distance at the prediction, m. */
  private readonly predictedGap: Float64Array;
  private readonly p = new Float64Array(3);
  /** With kernels: the two states and every surface sample's displacement at each, in their memory (`points` holds the rows). */
  private readonly simd: { points: SurfacePointKernels; predicted: Float64Array; centre: Float64Array } | null;
  /** Every surface sample's displacement at the prediction and at the step's centre (in the kernels' memory with kernels). */
  private readonly atPredicted: Float64Array;
  private readonly atCentre: Float64Array;
  /** Every surface sample's predicted world position, and how far from it obstacles are looked for. */
  private readonly samplePoints: Float64Array;
  private readonly sampleMargins: Float64Array;
  /** Each surface's answers for the samples (one entry a surface, made when the surface is first queried). */
  private readonly answers: { distances: Float64Array; normals: Float64Array }[] = [];

  /** With `points` (the body's surface samples on its kernels), gathering and the forces run there. */
  constructor(private readonly subspace: Subspace, private readonly state: StepState, private readonly origin: Float64Array, private readonly size: number, points: SurfacePointKernels | null = null) {
    const capacity = subspace.surfaceCount * 2;
    this.simd = points && { points, predicted: points.kernels.alloc(subspace.n), centre: points.kernels.alloc(subspace.n) };
    const samples = subspace.surfaceCount;
    this.atPredicted = points ? points.kernels.alloc(3 * samples) : new Float64Array(3 * samples);
    this.atCentre = points ? points.kernels.alloc(3 * samples) : new Float64Array(3 * samples);
    this.samplePoints = new Float64Array(3 * samples);
    this.sampleMargins = new Float64Array(samples);
    this.contacts = new ContactSet(capacity);
    this.predicted = new Uint8Array(capacity);
    this.predictedSlide = new Float64Array(capacity);
    this.predictedGap = new Float64Array(capacity);
    this.normalForce = new Float64Array(subspace.surfaceCount);
  }

  /** Finds the samples near an obstacle at the predicted positions and linearises each contact there. */
  gather(): void {
    const c = this.contacts;
    c.clear();
    const surfaces = this.surfaces;
    if (surfaces.length === 0) return;
    const count = this.subspace.surfaceCount, points = this.samplePoints, margins = this.sampleMargins;
    this.predictSamples();
    while (this.answers.length < surfaces.length) this.answers.push({ distances: new Float64Array(count), normals: new Float64Array(3 * count) });
    for (let k = 0; k < surfaces.length; k++) surfaces[k].signedDistances(count, points, margins, this.answers[k].distances, this.answers[k].normals);
    const rest = this.subspace.surfaceRest, o = this.origin, atPredicted = this.atPredicted, centre = this.atCentre;
    for (let sample = 0; sample < count; sample++) {
      const at = 3 * sample, px = points[at], py = points[at + 1], pz = points[at + 2], margin = margins[sample];
      for (let k = 0; k < surfaces.length; k++) {
        const answer = this.answers[k], distance = answer.distances[sample];
        if (!(distance < margin)) continue;
        const nx = answer.normals[at], ny = answer.normals[at + 1], nz = answer.normals[at + 2];
        const i = c.count;
        if (!c.add(sample, nx, ny, nz, nx * px + ny * py + nz * pz - distance)) return;
        const cx = centre[at], cy = centre[at + 1], cz = centre[at + 2];
        c.reference[3 * i] = o[0] + rest[at] + cx;
        c.reference[3 * i + 1] = o[1] + rest[at + 1] + cy;
        c.reference[3 * i + 2] = o[2] + rest[at + 2] + cz;
        this.predicted[i] = distance < 0 ? 1 : 0;
        this.predictedGap[i] = distance;
        const mx = atPredicted[at] - cx, my = atPredicted[at + 1] - cy, mz = atPredicted[at + 2] - cz, along = mx * nx + my * ny + mz * nz;
        this.predictedSlide[i] = length3(mx - along * nx, my - along * ny, mz - along * nz);
      }
    }
  }

  /**
   * Every surface sample's displacement at the prediction and at the step's centre, its predicted world position,
   * and how far from it an obstacle is looked for: far enough to catch what the sample meets during the step, capped
   * at the body's size (a whipped body moves metres a frame, and would query and carry every obstacle in the room).
   */
  private predictSamples(): void {
    const s = this.subspace, m = s.m, count = s.surfaceCount, rows = s.surfaceRows, rest = s.surfaceRest, o = this.origin;
    const xh = this.state.xHat, qc = this.state.qCentre, atPredicted = this.atPredicted, centre = this.atCentre, simd = this.simd;
    if (simd) {
      simd.predicted.set(xh);
      simd.centre.set(qc);
      simd.points.kernels.displacements(count, m, simd.points.rows, simd.predicted, atPredicted);
      simd.points.kernels.displacements(count, m, simd.points.rows, simd.centre, centre);
    } else {
      for (let sample = 0; sample < count; sample++) {
        const r = sample * m;
        let hx = 0, hy = 0, hz = 0, cx = 0, cy = 0, cz = 0;
        for (let j = 0; j < m; j++) {
          const b = rows[r + j];
          hx += b * xh[j]; hy += b * xh[m + j]; hz += b * xh[2 * m + j];
          cx += b * qc[j]; cy += b * qc[m + j]; cz += b * qc[2 * m + j];
        }
        atPredicted[3 * sample] = hx; atPredicted[3 * sample + 1] = hy; atPredicted[3 * sample + 2] = hz;
        centre[3 * sample] = cx; centre[3 * sample + 1] = cy; centre[3 * sample + 2] = cz;
      }
    }
    const baseMargin = 0.02 * this.size, maxReach = this.size, points = this.samplePoints, margins = this.sampleMargins;
    for (let sample = 0; sample < count; sample++) {
      const at = 3 * sample, hx = atPredicted[at], hy = atPredicted[at + 1], hz = atPredicted[at + 2];
      points[at] = o[0] + rest[at] + hx;
      points[at + 1] = o[1] + rest[at + 1] + hy;
      points[at + 2] = o[2] + rest[at + 2] + hz;
      margins[sample] = baseMargin + Math.min(maxReach, 2 * Math.sqrt((hx - centre[at]) ** 2 + (hy - centre[at + 1]) ** 2 + (hz - centre[at + 2]) ** 2));
    }
  }

  /**
   * The contacts as the preconditioner wants them for a step of size h: normals turned into the body's frame
   * (R^T n), with the weights of their Hessian. Samples within a hair (1% of the body's size) of touching are
   * included with the bare penalty: resting samples flicker across the surface, and a stable set is factored less
   * often. Friction is weighted for the sliding the prediction shows (sticking friction is far stiffer).
   */
  snapshot(out: ContactSnapshot, h: number): void {
    const c = this.contacts, r = this.state.rotation;
    const penalty = h * h * this.stiffness, damping = h * this.dampingCoefficient;
    const slip = FRICTION_SLIP_SPEED * h, near = 0.01 * this.size;
    out.count = 0;
    for (let i = 0; i < c.count; i++) {
      if (this.predicted[i] === 0 && this.predictedGap[i] > near) continue;
      const k = out.count++;
      const nx = c.normal[3 * i], ny = c.normal[3 * i + 1], nz = c.normal[3 * i + 2];
      out.sample[k] = c.sample[i];
      out.normal[3 * k] = r[0] * nx + r[3] * ny + r[6] * nz;
      out.normal[3 * k + 1] = r[1] * nx + r[4] * ny + r[7] * nz;
      out.normal[3 * k + 2] = r[2] * nx + r[5] * ny + r[8] * nz;
      const touching = this.predicted[i] === 1;
      out.normalWeight[k] = penalty + (touching ? damping : 0);
      out.tangentWeight[k] = touching ? (h * h * this.friction * this.normalForce[c.sample[i]]) / Math.max(slip, this.predictedSlide[i]) : 0;
    }
  }

  accumulate(q: Float64Array, g: Float64Array): number {
    const c = this.contacts, m = this.subspace.m, rows = this.subspace.surfaceRows, p = this.p;
    const h = this.state.hTilde, h2 = h * h;
    const k = h2 * this.stiffness, damping = h * this.dampingCoefficient;
    const frictionScale = h2 * this.friction, slip = FRICTION_SLIP_SPEED * h;
    let energy = 0;
    const points = this.displaceContacts(q);
    for (let i = 0; i < c.count; i++) {
      const sample = c.sample[i], r = sample * m;
      this.contactPoint(i, q, p);
      const nx = c.normal[3 * i], ny = c.normal[3 * i + 1], nz = c.normal[3 * i + 2];
      const rx = c.reference[3 * i], ry = c.reference[3 * i + 1], rz = c.reference[3 * i + 2];
      // Motion over the step, from the start-of-step reference.
      const dx = p[0] - rx, dy = p[1] - ry, dz = p[2] - rz;
      const along = nx * dx + ny * dy + nz * dz;
      const gap = along + nx * rx + ny * ry + nz * rz - c.offset[i];
      let force = 0;
      if (gap < 0) {
        energy += 0.5 * k * gap * gap;
        force = k * gap;
      }
      let fx = 0, fy = 0, fz = 0;
      if (this.predicted[i] === 1) {
        if (damping > 0) {
          energy += 0.5 * damping * along * along;
          force += damping * along;
        }
        // Coulomb friction against the sliding over the step, with last step's normal force (lagged).
        const normalForce = this.normalForce[sample];
        if (frictionScale > 0 && normalForce > 0) {
          const tx = dx - along * nx, ty = dy - along * ny, tz = dz - along * nz;
          const sliding = Math.sqrt(tx * tx + ty * ty + tz * tz);
          const limit = frictionScale * normalForce;
          let scale: number;
          if (sliding < slip) {
            energy += (0.5 * limit * sliding * sliding) / slip;
            scale = limit / slip;
          } else {
            energy += limit * (sliding - 0.5 * slip);
            scale = limit / sliding;
          }
          fx = scale * tx; fy = scale * ty; fz = scale * tz;
        }
      }
      fx += force * nx; fy += force * ny; fz += force * nz;
      if (points) {
        points.forces[3 * i] = fx; points.forces[3 * i + 1] = fy; points.forces[3 * i + 2] = fz;
        continue;
      }
      if (fx === 0 && fy === 0 && fz === 0) continue;
      for (let j = 0; j < m; j++) {
        const b = rows[r + j];
        g[j] += fx * b;
        g[m + j] += fy * b;
        g[2 * m + j] += fz * b;
      }
    }
    if (points && c.count > 0) points.addForces(c.count, g);
    return energy;
  }

  /** Normal force of each sample at q, the end of the step (N): next step's friction limit. */
  updateNormalForces(q: Float64Array): void {
    const c = this.contacts, p = this.p;
    this.normalForce.fill(0);
    this.displaceContacts(q);
    for (let i = 0; i < c.count; i++) {
      const sample = c.sample[i];
      this.contactPoint(i, q, p);
      const gap = c.normal[3 * i] * p[0] + c.normal[3 * i + 1] * p[1] + c.normal[3 * i + 2] * p[2] - c.offset[i];
      if (gap < 0) this.normalForce[sample] += -this.stiffness * gap;
    }
  }

  /** With kernels, displaces every contact's sample at q into `points.at` (for contactPoint); returns the kernels' points. */
  private displaceContacts(q: Float64Array): SurfacePointKernels | undefined {
    const points = this.simd?.points, c = this.contacts;
    if (points && c.count > 0) {
      for (let i = 0; i < c.count; i++) points.indices[i] = c.sample[i];
      points.displace(q, c.count);
    }
    return points;
  }

  /** Contact i's sample's world position at q into p (after displaceContacts(q)). */
  private contactPoint(i: number, q: Float64Array, p: Float64Array): void {
    const sample = this.contacts.sample[i], rest = this.subspace.surfaceRest, o = this.origin, points = this.simd?.points;
    if (points) {
      p[0] = o[0] + rest[3 * sample] + points.at[3 * i];
      p[1] = o[1] + rest[3 * sample + 1] + points.at[3 * i + 1];
      p[2] = o[2] + rest[3 * sample + 2] + points.at[3 * i + 2];
    } else {
      pointAt(q, this.subspace.m, o, this.subspace.surfaceRows, rest, sample, p);
    }
  }
}
