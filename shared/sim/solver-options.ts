// A soft body's solver settings: time step, gravity, damping, the step's cost bounds and tolerance, contacts,
// grabs; their defaults and their validation (a bad value is a SimParameterError, never a NaN later).

import type { Integrator } from "./integrator";
import { SimParameterError } from "./material";

export interface SolverOptions {
  /** Time step, s. */
  dt: number;
  /** m/s^2. */
  gravity: [number, number, number];
  /** Stiffness-proportional (Rayleigh) damping coefficient beta, s: a mode of angular frequency w gets damping ratio beta w / 2. 0 turns material damping off. */
  damping: number;
  integrator: Integrator;
  /** Most quasi-Newton iterations per step (the step's cost bound; evaluations are capped at this + 2). */
  maxIterations: number;
  /**
   * Stop when an iteration moves the body by less than this RMS displacement, as a fraction of its bounding-box
   * diagonal. Looser than 1e-5 leaves enough force unsolved each step to keep a body resting on friction swaying
   * for ever (the jelly spot with fitted cubature: 5-27 mm/s after 12 s at 3e-5, asleep after 4 s at 1e-5).
   */
  tolerance: number;
  /** Contact penalty per surface sample, N/m; 0 picks a default from the body's mass and stiffness. */
  contactStiffness: number;
  /** Damping ratio of the contact penalty (0..1): how much of a bounce each contact absorbs. */
  contactDamping: number;
  /** Frequency (Hz) at which the whole body would oscillate on one grab spring: the default grab stiffness holds the body's mass at least this firmly. */
  grabFrequency: number;
  /**
   * The default grab spring is also at least this times Young's modulus times the body's diagonal (N/m): a
   * hand must be stiffer than the material it holds, or pulling two hands apart stretches the springs instead of
   * the body (mass alone gave 1.5 cm of stretch for 20 cm of hands on the jelly spot; 0.1 gave 5.9 cm on the
   * eigen fields with fitted cubature, 0.12 over 6).
   */
  grabModulusScale: number;
  /** Coulomb friction coefficient of contacts (0 = frictionless). */
  friction: number;
  /** Multiply-adds a step may spend assembling and factoring a new preconditioner (0: a factor at once, unbounded; contact factors get 2.5 times as much: preconditioner.ts). */
  factorWorkPerStep: number;
  /** Run the elastic pass on the WebAssembly SIMD kernel where the platform has it (false: the JS loop, same sums). */
  simd: boolean;
}

export const DEFAULT_SOLVER_OPTIONS: Readonly<SolverOptions> = Object.freeze({
  dt: 1 / 60,
  gravity: [0, -9.81, 0] as [number, number, number],
  damping: 0.002,
  integrator: "bdf2" as Integrator,
  maxIterations: 12,
  tolerance: 1e-5,
  contactStiffness: 0,
  contactDamping: 0.5,
  grabFrequency: 6,
  grabModulusScale: 0.12,
  friction: 0.6,
  factorWorkPerStep: 400_000,
  simd: true,
});

export function validateOptions(o: SolverOptions): void {
  if (!Number.isFinite(o.dt) || o.dt <= 0 || o.dt > 0.1) throw new SimParameterError(`time step dt must be in (0, 0.1] s, got ${o.dt}`);
  if (o.gravity.length !== 3 || !o.gravity.every(Number.isFinite)) throw new SimParameterError("gravity must be three finite numbers");
  if (!Number.isFinite(o.damping) || o.damping < 0 || o.damping > 1) throw new SimParameterError(`damping must be in [0, 1] s, got ${o.damping}`);
  if (o.integrator !== "bdf2" && o.integrator !== "implicit-euler") throw new SimParameterError(`unknown integrator ${String(o.integrator)}`);
  if (!Number.isInteger(o.maxIterations) || o.maxIterations < 1 || o.maxIterations > 10_000) throw new SimParameterError(`maxIterations must be an integer in [1, 10000], got ${o.maxIterations}`);
  if (!Number.isFinite(o.tolerance) || o.tolerance < 0) throw new SimParameterError(`tolerance must be >= 0, got ${o.tolerance}`);
  if (!Number.isFinite(o.contactStiffness) || o.contactStiffness < 0) throw new SimParameterError(`contactStiffness must be >= 0, got ${o.contactStiffness}`);
  if (!Number.isFinite(o.contactDamping) || o.contactDamping < 0 || o.contactDamping > 1) throw new SimParameterError(`contactDamping must be in [0, 1], got ${o.contactDamping}`);
  if (!Number.isFinite(o.grabFrequency) || o.grabFrequency <= 0) throw new SimParameterError(`grabFrequency must be positive, got ${o.grabFrequency}`);
  if (!Number.isFinite(o.grabModulusScale) || o.grabModulusScale < 0) throw new SimParameterError(`grabModulusScale must be >= 0, got ${o.grabModulusScale}`);
  if (!Number.isFinite(o.friction) || o.friction < 0 || o.friction > 10) throw new SimParameterError(`friction must be in [0, 10], got ${o.friction}`);
  if (typeof o.simd !== "boolean") throw new SimParameterError(`simd must be true or false, got ${String(o.simd)}`);
  if (!Number.isFinite(o.factorWorkPerStep) || o.factorWorkPerStep < 0) throw new SimParameterError(`factorWorkPerStep must be >= 0, got ${o.factorWorkPerStep}`);
}
