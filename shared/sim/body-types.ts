// What a soft body reports and takes besides its settings: a step's figures, its energies, a grab's options, a
// constraint on its state, and the default grab radius.

/** The figures of one step (the object is reused by the next step). */
export interface StepStats {
  iterations: number;
  /** Whether a new preconditioner factor was installed this step. */
  refactored: boolean;
  contacts: number;
  converged: boolean;
  /** Whether the step stopped unconverged at its deadline (a room's solver budget for the tick). */
  cutShort: boolean;
  /** Whether the body was found resting in a fold and put back in its rest shape before this step (fold-release.ts). */
  foldReleased: boolean;
}

export interface Energies {
  /** J */
  kinetic: number;
  /** J */
  elastic: number;
  /** Gravitational potential energy relative to y = 0 (for gravity along -y), J. */
  potential: number;
}

export interface GrabOptions {
  /** Samples within this distance of the grab point are held (m); default 8% of the body's diagonal. */
  radius?: number;
  /** Total stiffness of the grab (N/m); default from `grabFrequency`. */
  stiffness?: number;
}

/**
 * A linear constraint on the state, kept by projection after each step (a rigged body's complementarity): it
 * removes from a state vector (q, or a velocity) what the constraint forbids, in place, allocating nothing.
 */
export interface StateConstraint {
  /** P v: the nearest allowed state vector (in whatever metric the constraint keeps). */
  project(vector: Float64Array): void;
  /** P^T g: a gradient of f(q) into the gradient of f(P q), so a minimiser's steps stay on the constraint. */
  projectGradient(gradient: Float64Array): void;
}

/** Grab radius as a share of a body's size: the solver's default over its rest diagonal; a room's over its placed size (grabRadius). */
export const GRAB_RADIUS_FRACTION = 0.08;
/** How far (m) from a body's surface a grab point may be and still hold it: a hand's slack. */
export const GRAB_SLACK = 0.1;

/**
 * The radius (m) within which a grab at a point holds a body's surface samples, for a body placed at `size` (its
 * largest extent), never less than the slack a grab point may have. Every grab in the room (SoftEntity.grabAt, its
 * characters') and a client's prediction uses it.
 */
export function grabRadius(size: number): number {
  return Math.max(GRAB_SLACK, GRAB_RADIUS_FRACTION * size);
}
