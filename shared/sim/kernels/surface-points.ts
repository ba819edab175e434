// The surface samples' basis rows in a body's kernel memory, and scratch for one list of samples at a time: their
// displacements at a state, and the generalised force of point forces on them. The contact and spring terms share
// it: they run one after the other, and each fills the list afresh.

import { MAX_GRAB_POINTS, MAX_GRABS } from "../grabs";
import type { Subspace } from "../subspace";
import type { SolverKernels } from "./solver-kernels";

/** Samples one list may hold: two contacts per surface sample, or every sample every grab may hold. */
export function surfacePointCapacity(surfaceCount: number): number {
  return Math.max(2 * surfaceCount, MAX_GRABS * MAX_GRAB_POINTS);
}

export class SurfacePointKernels {
  readonly rows: Float64Array;
  /** The listed samples (point numbers, as f64), their displacements (3 each) and the forces on them (3 each). */
  readonly indices: Float64Array;
  readonly at: Float64Array;
  readonly forces: Float64Array;
  private readonly q: Float64Array;
  private readonly gradient: Float64Array;
  private readonly m: number;

  constructor(readonly kernels: SolverKernels, subspace: Subspace) {
    const capacity = surfacePointCapacity(subspace.surfaceCount);
    this.m = subspace.m;
    this.rows = kernels.alloc(subspace.surfaceRows.length);
    this.rows.set(subspace.surfaceRows);
    this.indices = kernels.alloc(capacity);
    this.at = kernels.alloc(3 * capacity);
    this.forces = kernels.alloc(3 * capacity);
    this.q = kernels.alloc(subspace.n);
    this.gradient = kernels.alloc(subspace.n);
  }

  /** at <- the displacements at q of the first `count` listed samples. */
  displace(q: Float64Array, count: number): void {
    this.q.set(q);
    this.kernels.displacementsOf(count, this.indices, this.m, this.rows, this.q, this.at);
  }

  /** g += the generalised force of `forces` on the first `count` listed samples. */
  addForces(count: number, g: Float64Array): void {
    const gradient = this.gradient;
    this.kernels.scatterForces(count, this.indices, this.m, this.rows, this.forces, gradient);
    for (let k = 0; k < gradient.length; k++) g[k] += gradient[k];
  }
}
