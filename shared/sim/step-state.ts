// What every part of one step shares: the integrator's prediction and the body's rotation at it. The
// integrator writes it at the start of a step; energy terms, the preconditioner and the minimiser read it.

export class StepState {
  /** Effective time step of the incremental potential, s (BDF2: 2h/3; implicit Euler: h). */
  hTilde: number;
  /** Predicted coordinates x_hat: where the body would go with no forces. */
  readonly xHat: Float64Array;
  /** BDF2 centre q_c = (4 q_n - q_{n-1}) / 3 (implicit Euler: q_n); the new velocity is (q - q_c) / h~. */
  readonly qCentre: Float64Array;
  /** The body's rotation at the prediction (row-major 3x3), from its volume-averaged deformation gradient. */
  readonly rotation = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);

  constructor(n: number, dt: number) {
    this.hTilde = dt;
    this.xHat = new Float64Array(n);
    this.qCentre = new Float64Array(n);
  }
}
