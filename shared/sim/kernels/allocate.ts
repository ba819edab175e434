// Where a solver array lives: in a body's kernel memory when it has kernels (only those arrays can be passed to
// them), else on the JS heap. Apart from solver-kernels.ts, so that the modules whose sizes it reserves can use it.

import type { SolverKernels } from "./solver-kernels";

/** An array in the kernels' memory when there are kernels, else on the JS heap. */
export function allocate(kernels: SolverKernels | null, length: number): Float64Array {
  return kernels ? kernels.alloc(length) : new Float64Array(length);
}
