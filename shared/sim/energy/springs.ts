// Penalty springs k/2 |p - target|^2: pins (held points of any set) and grabs (surface samples held by a hand).
// Isotropic, so their Hessian is the same in the world and the body frame.

import type { GrabSet } from "../grabs";
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

  constructor(private readonly subspace: Subspace, private readonly state: StepState, private readonly grabs: GrabSet, private readonly origin: Float64Array) {
    this.block = new Float64Array(subspace.m * subspace.m);
  }

  /** Holds points (rest positions, basis rows) where they are for coordinates q, k N/m each. */
  pin(rows: Float64Array, rest: Float64Array, q: Float64Array, stiffness: number): void {
    const count = rest.length / 3, targets = new Float64Array(3 * count);
    for (let i = 0; i < count; i++) pointPositionAt(q, this.subspace.m, this.origin, rows, rest, i, targets, 3 * i);
    this.pins.push({ rows, rest: Float64Array.from(rest), targets, stiffness, count });
  }

  accumulate(q: Float64Array, g: Float64Array): number {
    const h2 = this.state.hTilde * this.state.hTilde, m = this.subspace.m, s = this.subspace, o = this.origin;
    let energy = 0;
    for (const pin of this.pins) {
      const k = h2 * pin.stiffness;
      for (let i = 0; i < pin.count; i++) {
        energy += pointSpring(q, g, m, o, pin.rows, pin.rest, i, pin.targets[3 * i], pin.targets[3 * i + 1], pin.targets[3 * i + 2], k, this.point);
      }
    }
    const grabs = this.grabs, a = this.anchor;
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
