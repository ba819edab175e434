// What a step minimises (the minimiser's Objective): the BDF2 incremental potential, the sum of the energy terms,
// preconditioned by the body-frame Hessian approximation, with two guards a step sets: the floor on the volume
// ratio a trial may squeeze material to, and the constraint every direction stays on.

import type { StateConstraint } from "./body-types";
import type { ElasticTerm } from "./energy/elastic";
import type { InertiaTerm } from "./energy/inertia";
import type { EnergyTerm } from "./energy/term";
import type { Objective } from "./minimiser";
import type { Preconditioner } from "./preconditioner";

export class IncrementalPotential implements Objective {
  /**
   * While no material is folded, a trial may not squeeze any under this volume ratio (the step sets it from its
   * start: half the smallest there, at most 0.2): a step cut short by its budget must not leave folded material
   * behind, which stable Neo-Hookean can hold on to. -Infinity: no floor.
   */
  inversionFloor = -Infinity;
  /** The constraint the state keeps (null: none). */
  constraint: StateConstraint | null = null;
  /** No iteration moves the body by more than half its size (RMS): farther is never a good quasi-Newton guess. */
  readonly maxStep: number;

  constructor(
    private readonly terms: readonly EnergyTerm[], private readonly elastic: ElasticTerm, private readonly inertia: InertiaTerm,
    private readonly preconditioner: Preconditioner, private readonly rotation: Float64Array, private readonly totalMass: () => number, size: number,
  ) {
    this.maxStep = 0.5 * size;
  }

  evaluate(q: Float64Array, g: Float64Array): number {
    g.fill(0);
    let energy = 0;
    for (let t = 0; t < this.terms.length; t++) energy += this.terms[t].accumulate(q, g);
    return this.elastic.minJ < this.inversionFloor ? Infinity : energy;
  }

  /**
   * With a constraint the preconditioner is P H^-1 P^T: every direction the minimiser takes from an allowed state
   * stays allowed, so a step is the constrained minimum of the incremental potential (projecting an unconstrained
   * minimum afterwards stalls short of it wherever inertia does not dominate the stiffness).
   */
  precondition(d: Float64Array): void {
    this.constraint?.projectGradient(d);
    this.preconditioner.solve(d, this.rotation);
    this.constraint?.project(d);
  }

  stepNorm2(d: Float64Array): number {
    return this.inertia.massNorm2(d) / this.totalMass();
  }
}
