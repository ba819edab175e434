// The headless scenarios of `npm run sim`: drop, cantilever, pull and throw, measured on the render mesh's vertices.

import { FloorContact, PlaneContact, type SoftBody, type SolverOptions } from "../../shared/sim";
import { createSoftBody, loadBody, type BodySetup, type LoadedBody } from "./body-from-mesh";

export type ScenarioName = "drop" | "cantilever" | "pull" | "throw";
export const SCENARIOS: readonly ScenarioName[] = ["drop", "cantilever", "pull", "throw"];

export interface ScenarioOptions extends BodySetup {
  scenario: ScenarioName;
  youngsModulus: number;
  poissonRatio: number;
  density: number;
  /** Stiffness-proportional damping beta, s. */
  damping: number;
  dt: number;
  steps: number;
  /** throw: release speed, m/s. */
  speed?: number;
  /** Called now and then with the fraction done (for progress on stderr). */
  onProgress?: (fraction: number) => void;
}

export interface Frame {
  t: number;
  centroid: [number, number, number];
  minY: number;
  tip?: [number, number, number];
  energy: { kinetic: number; elastic: number; potential: number };
}

export interface ScenarioResult {
  scenario: ScenarioName;
  mesh: string;
  weights: string;
  /** Total handles, constant channel included (K + 1). */
  handles: number;
  learnedHandles: number;
  cubature: number;
  dt: number;
  steps: number;
  bakeMs: number;
  stepMs: { median: number; p99: number };
  frames: Frame[];
  final: { centroid: [number, number, number]; minY: number; tipDeflection?: number };
}

/** The pull: up 0.2 m over 1 s, held 1 s, then released. */
const PULL_HEIGHT = 0.2;
const PULL_RISE_S = 1;
const PULL_HOLD_S = 1;
const DROP_HEIGHT = 0.5;
/** The throw: released with its lowest point this high (m), this far (m) from a wall ahead of it, spinning. */
const THROW_HEIGHT = 0.3;
const THROW_WALL_GAP = 0.2;
/** Angular velocity at release, rad/s (two turns a second about a tilted axis). */
const THROW_SPIN: readonly [number, number, number] = [0, 0.6 * 4 * Math.PI, 0.8 * 4 * Math.PI];
export const DEFAULT_THROW_SPEED = 6;

export interface PreparedScenario {
  body: SoftBody;
  /** Applies the scenario's input for the step ending at time t (s): moves, grabs, releases. */
  beforeStep(t: number): void;
  /** Cantilever: the tip vertices (render indices). */
  tipIndices: number[];
}

/** Builds the body and the world of a scenario; `solver` overrides solver options (the benchmarks' converged runs). */
export function prepareScenario(loaded: LoadedBody, options: Omit<ScenarioOptions, keyof BodySetup | "steps" | "onProgress">, solver: Partial<SolverOptions> = {}): PreparedScenario {
  const material = { youngsModulus: options.youngsModulus, poissonRatio: options.poissonRatio, density: options.density };
  const rest = loaded.renderRest;
  const count = rest.length / 3;
  let minX = Infinity, maxX = -Infinity, minY = Infinity;
  for (let i = 0; i < count; i++) {
    minX = Math.min(minX, rest[3 * i]);
    maxX = Math.max(maxX, rest[3 * i]);
    minY = Math.min(minY, rest[3 * i + 1]);
  }
  const band = 0.01 * (maxX - minX);
  const lift = options.scenario === "drop" ? DROP_HEIGHT : options.scenario === "pull" ? 0 : options.scenario === "throw" ? THROW_HEIGHT : 1;
  const origin = [0, lift - minY, 0];
  const body = createSoftBody(loaded, material, { dt: options.dt, damping: options.damping, ...solver }, origin);

  let tipIndices: number[] = [];
  let grab = -1;
  let grabStart: [number, number, number] = [0, 0, 0];
  if (options.scenario !== "cantilever") body.addContactSurface(new FloorContact(0));
  if (options.scenario === "throw") {
    // A wall ahead (solid beyond x = wall), and the body released along +x with spin.
    body.addContactSurface(new PlaneContact([-1, 0, 0], -(origin[0] + maxX + THROW_WALL_GAP)));
    throwBody(body, [options.speed ?? DEFAULT_THROW_SPEED, 0, 0], THROW_SPIN);
  }
  if (options.scenario === "cantilever") {
    const clamped = indicesWhere(rest, (x) => x <= minX + band);
    tipIndices = indicesWhere(rest, (x) => x >= maxX - band);
    body.pin(selectPoints(loaded, clamped));
  }
  if (options.scenario === "pull") {
    let top = 0;
    for (let i = 1; i < count; i++) if (rest[3 * i + 1] > rest[3 * top + 1]) top = i;
    grabStart = [origin[0] + rest[3 * top], origin[1] + rest[3 * top + 1], origin[2] + rest[3 * top + 2]];
  }
  const beforeStep = (t: number): void => {
    if (options.scenario !== "pull") return;
    if (t <= PULL_RISE_S + PULL_HOLD_S && grab < 0) grab = body.grab(...grabStart);
    if (grab >= 0) {
      const rise = PULL_HEIGHT * Math.min(1, t / PULL_RISE_S);
      body.moveGrab(grab, grabStart[0], grabStart[1] + rise, grabStart[2]);
      if (t > PULL_RISE_S + PULL_HOLD_S) {
        body.release(grab);
        grab = -1;
      }
    }
  };
  return { body, beforeStep, tipIndices };
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const loaded = await loadBody(options);
  const rest = loaded.renderRest;
  const { body, beforeStep, tipIndices } = prepareScenario(loaded, options);
  const positions = new Float64Array(rest.length);
  body.positions(loaded.renderRows, rest, positions);
  const tipRest = tipIndices.length ? meanOf(positions, tipIndices) : undefined;

  const frames: Frame[] = [];
  const stepTimes = new Float64Array(options.steps);
  for (let step = 0; step < options.steps; step++) {
    const t = (step + 1) * options.dt;
    beforeStep(t);
    const start = performance.now();
    body.step();
    stepTimes[step] = performance.now() - start;
    frames.push(measureFrame(body, loaded, positions, t, tipIndices, tipRest));
    if (options.onProgress && step % 20 === 0) options.onProgress(step / options.steps);
  }
  const last = frames[frames.length - 1];
  const sorted = Array.from(stepTimes).sort((a, b) => a - b);
  return {
    scenario: options.scenario,
    mesh: options.mesh,
    weights: loaded.baked.provider,
    handles: loaded.baked.learnedHandles + 1,
    learnedHandles: loaded.baked.learnedHandles,
    cubature: loaded.subspace.cubatureCount,
    dt: options.dt,
    steps: options.steps,
    bakeMs: round(loaded.bakeMs, 3),
    stepMs: { median: round(quantile(sorted, 0.5), 4), p99: round(quantile(sorted, 0.99), 4) },
    frames,
    final: {
      centroid: last.centroid,
      minY: last.minY,
      ...(last.tip ? { tipDeflection: Math.hypot(...last.tip) } : {}),
    },
  };
}

/**
 * Gives the body a rigid motion: linear velocity v (m/s) of its centroid and angular velocity w (rad/s). The
 * constant channel (weight 1) carries an affine transform [A | b], so the velocity field w x (x - c) + v is
 * A' = [w]x, b' = v - w x c in its coordinates, exactly.
 */
export function throwBody(body: SoftBody, v: ArrayLike<number>, w: ArrayLike<number>): void {
  const m = body.m, c = body.subspace.restCentroid;
  const velocity = new Float64Array(body.n);
  const cross = [w[1] * c[2] - w[2] * c[1], w[2] * c[0] - w[0] * c[2], w[0] * c[1] - w[1] * c[0]];
  const skew = [[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]];
  for (let a = 0; a < 3; a++) {
    for (let j = 0; j < 3; j++) velocity[a * m + j] = skew[a][j];
    velocity[a * m + 3] = v[a] - cross[a];
  }
  body.setState(body.q, velocity);
}

function measureFrame(body: SoftBody, loaded: LoadedBody, positions: Float64Array, t: number, tip: number[], tipRest?: [number, number, number]): Frame {
  body.positions(loaded.renderRows, loaded.renderRest, positions);
  const count = positions.length / 3;
  const centroid: [number, number, number] = [0, 0, 0];
  let minY = Infinity;
  for (let i = 0; i < count; i++) {
    centroid[0] += positions[3 * i];
    centroid[1] += positions[3 * i + 1];
    centroid[2] += positions[3 * i + 2];
    minY = Math.min(minY, positions[3 * i + 1]);
  }
  for (let a = 0; a < 3; a++) centroid[a] /= count;
  const frame: Frame = { t: round(t, 9), centroid, minY, energy: body.energies() };
  if (tipRest) {
    const now = meanOf(positions, tip);
    frame.tip = [now[0] - tipRest[0], now[1] - tipRest[1], now[2] - tipRest[2]];
  }
  return frame;
}

function selectPoints(loaded: LoadedBody, indices: number[]) {
  const handles = loaded.baked.learnedHandles + 1;
  const positions = new Float64Array(3 * indices.length);
  const weights = new Float64Array(handles * indices.length);
  indices.forEach((v, k) => {
    positions.set(loaded.renderRest.subarray(3 * v, 3 * v + 3), 3 * k);
    weights.set(loaded.baked.renderWeights.subarray(handles * v, handles * (v + 1)), handles * k);
  });
  return { positions, weights };
}

function indicesWhere(points: Float64Array, predicate: (x: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < points.length / 3; i++) if (predicate(points[3 * i])) out.push(i);
  return out;
}

function meanOf(positions: Float64Array, indices: number[]): [number, number, number] {
  const m: [number, number, number] = [0, 0, 0];
  for (const i of indices) for (let a = 0; a < 3; a++) m[a] += positions[3 * i + a];
  return [m[0] / indices.length, m[1] / indices.length, m[2] / indices.length];
}

export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
