// P0, what the preconditioner factors before any contact: M + (h~^2 + h~ beta) K_rest + h~^2 (pins + grabs) for a
// BDF2 step, in the body's frame. Its material part is kept until the material or the damping changes, so a grab
// that starts or ends (every few steps in a crowded room) costs a copy and the springs' m x m sum.

import type { HessianTerm } from "./energy/term";
import type { GrabSet } from "./grabs";
import type { Preconditioner } from "./preconditioner";

export class BaseMatrix {
  /** M + (h~^2 + h~ beta) K_rest: P0 without its springs. */
  private readonly materialPart: Float64Array;
  private version = 0;
  private builtGrabVersion = -1;

  /** `materialTerms`: inertia, elasticity, damping; `springs`: pins and grabs; `h`: the BDF2 step's h~. */
  constructor(
    private readonly n: number, private readonly h: number, private readonly materialTerms: readonly HessianTerm[],
    private readonly springs: HessianTerm, private readonly grabs: GrabSet, private readonly preconditioner: Preconditioner,
  ) {
    this.materialPart = new Float64Array(n * n);
  }

  /** After the material or the damping changed: both parts again. */
  materialChanged(): void {
    const p = this.materialPart;
    p.fill(0);
    for (const term of this.materialTerms) term.addHessian(p, this.h);
    this.springsChanged();
  }

  /** Before a step: again if a grab came or went since the last build. */
  update(): void {
    if (this.grabs.version !== this.builtGrabVersion) this.springsChanged();
  }

  /** After pins or grabs changed: P0 = material part + h~^2 (pins + grabs), handed to the preconditioner. */
  springsChanged(): void {
    const n = this.n, p = this.preconditioner.base;
    p.set(this.materialPart);
    this.springs.addHessian(p, this.h);
    // A small regulariser keeps modes the cubature cannot see (more unknowns than samples) well posed.
    let trace = 0;
    for (let i = 0; i < n; i++) trace += p[i * n + i];
    const regulariser = 1e-10 * (trace / n);
    for (let i = 0; i < n; i++) p[i * n + i] += regulariser;
    this.builtGrabVersion = this.grabs.version;
    this.preconditioner.setBase(++this.version);
  }
}
