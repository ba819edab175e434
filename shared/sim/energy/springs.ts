// Penalty springs k/2 |p - target|^2: pins (held points of any set) and grabs (surface samples held by a hand).
// Isotropic, so their Hessian is the same in the world and the body frame.

import type { GrabSet } from "../grabs";
import type { SurfacePointKernels } from "../kernels/surface-points";
import type { Subspace } from "../subspace";
import type { StepState } from "../step-state";
import { pointPositionAt } from "../point-positions";
import { addIsotropicBlock, addOuterUpper, pointSpring, type EnergyTerm, type HessianTerm } from "./term";

export interface PinGroup {
  rows: Float64Array;
  rest: Float64Array;
  targets: Float64Array;
  stiffness: number;
  count: number;
}

export class SpringTerm implements EnergyTerm, HessianTerm {
  readonly pins: PinGroup[] = [];
  private readonly anchor = new Float64Array(3);
  private readonly point = new Float64Array(3);
  /** The springs' m x m Hessian block (upper triangle), rebuilt by addHessian. */
  private readonly block: Float64Array;

  /** With `points` (the body's surface samples on its kernels), the grabs' springs run there. */
  constructor(private readonly subspace: Subspace, private readonly state: StepState, private readonly grabs: GrabSet, private readonly origin: Float64Array, private readonly points: SurfacePointKernels | null = null) {
    this.block = new Float64Array(subspace.m * subspace.m);
  }

  /** Holds points (rest positions, basis rows) where they are for coordinates q, k N/m each. */
  pin(rows: Float64Array, rest: Float64Array, q: Float64Array, stiffness: number): void {
    const count = rest.length / 3, targets = new Float64Array(3 * count);
    for (let i = 0; i < count; i++) pointPositionAt(q, this.subspace.m, this.origin, rows, rest, i, targets, 3 * i);
    this.pins.push({ rows, rest: Float64Array.from(rest), targets, stiffness, count });
  }

  accumulate(q: Float64Array, g: Float64Array): number {
    const h2 = this.state.hTilde * this.state.hTilde, m = this.subspace.m, o = this.origin;
    let energy = 0;
    for (const pin of this.pins) {
      const k = h2 * pin.stiffness;
      for (let i = 0; i < pin.count; i++) {
        energy += pointSpring(q, g, m, o, pin.rows, pin.rest, i, pin.targets[3 * i], pin.targets[3 * i + 1], pin.targets[3 * i + 2], k, this.point);
      }
    }
    return energy + (this.points ? this.grabsOnKernels(q, g, h2, this.points) : this.grabsInJs(q, g, h2));
  }

  private grabsInJs(q: Float64Array, g: Float64Array, h2: number): number {
    const m = this.subspace.m, s = this.subspace, o = this.origin, grabs = this.grabs, a = this.anchor;
    let energy = 0;
    for (let id = 0; id < grabs.active.length; id++) {
      if (grabs.active[id] === 0) continue;
      const k = h2 * grabs.pointStiffness[id];
      for (let j = 0; j < grabs.count[id]; j++) {
        grabs.anchor(id, j, a);
        energy += pointSpring(q, g, m, o, s.surfaceRows, s.surfaceRest, grabs.sample(id, j), a[0], a[1], a[2], k, this.point);
      }
    }
    return energy;
  }

  /** The same springs, with the held samples' positions and the generalised force on the kernels. */
  private grabsOnKernels(q: Float64Array, g: Float64Array, h2: number, points: SurfacePointKernels): number {
    const rest = this.subspace.surfaceRest, o = this.origin, grabs = this.grabs, a = this.anchor;
    let count = 0;
    for (let id = 0; id < grabs.active.length; id++) {
      if (grabs.active[id] === 0) continue;
      for (let j = 0; j < grabs.count[id]; j++) points.indices[count++] = grabs.sample(id, j);
    }
    if (count === 0) return 0;
    points.displace(q, count);
    let energy = 0, i = 0;
    for (let id = 0; id < grabs.active.length; id++) {
      if (grabs.active[id] === 0) continue;
      const k = h2 * grabs.pointStiffness[id];
      for (let j = 0; j < grabs.count[id]; j++, i++) {
        grabs.anchor(id, j, a);
        const sample = grabs.sample(id, j);
        const dx = o[0] + rest[3 * sample] + points.at[3 * i] - a[0];
        const dy = o[1] + rest[3 * sample + 1] + points.at[3 * i + 1] - a[1];
        const dz = o[2] + rest[3 * sample + 2] + points.at[3 * i + 2] - a[2];
        points.forces[3 * i] = k * dx; points.forces[3 * i + 1] = k * dy; points.forces[3 * i + 2] = k * dz;
        energy += 0.5 * k * (dx * dx + dy * dy + dz * dz);
      }
    }
    points.addForces(count, g);
    return energy;
  }

  /**
   * Every spring is isotropic, so the Hessian is I3 (x) sum k b b^T: the m x m sum is formed once and added to the
   * three diagonal blocks (a hand holds up to 12 samples, and a crowd several hands, each rebuild).
   */
  addHessian(matrix: Float64Array, h: number): void {
    const m = this.subspace.m, h2 = h * h, grabs = this.grabs, block = this.block;
    block.fill(0);
    for (const pin of this.pins) {
      for (let i = 0; i < pin.count; i++) addOuterUpper(block, m, pin.rows, i * m, h2 * pin.stiffness);
    }
    for (let id = 0; id < grabs.active.length; id++) {
      if (grabs.active[id] === 0) continue;
      for (let j = 0; j < grabs.count[id]; j++) addOuterUpper(block, m, this.subspace.surfaceRows, grabs.sample(id, j) * m, h2 * grabs.pointStiffness[id]);
    }
    addIsotropicBlock(matrix, this.subspace.n, m, block);
  }
}
