// One reduced soft body: state, forces and the time step.
//
// Each step minimises the incremental potential (METHOD.md section 5) of a BDF2 step:
//   E(q) = 1/2 |q - x_hat|_M^2 + h~^2 [ sum_c V_c Psi(F_c(q)) - f_g . q + penalties(q) ] + h~/2 |q - q_c|_D^2
// with q_c = (4 q_n - q_{n-1}) / 3, v_c = (4 v_n - v_{n-1}) / 3, h~ = 2h/3, x_hat = q_c + h~ v_c and the new
// velocity (q - q_c) / h~. BDF2 keeps a 3.6 Hz wobble at 60 Hz (implicit Euler would kill it) and stays
// L-stable for violent input. The first step after a reset is implicit Euler (q_c = q_n, h~ = h).
// The minimisation is L-BFGS preconditioned with the rotation-aware rest Hessian (see preconditioner.ts)
// and an Armijo line search; everything runs in preallocated arrays.

import { ContactSet, type ContactSurface } from "./contacts";
import { dot, dotRange, extractRotation, quaternionToMatrix, symmetricEigen } from "./linalg";
import {
  lameParameters, neoHookeanEnergy, neoHookeanEnergyAndStress, neoHookeanHessianProjected, SimParameterError, validateMaterial, type Material,
} from "./material";
import { Preconditioner } from "./preconditioner";
import { basisRows, removeNullComponents, type Subspace, type WeightedPoints } from "./subspace";

export type Integrator = "bdf2" | "implicit-euler";

export interface SolverOptions {
  /** Time step, s. */
  dt: number;
  /** m/s^2. */
  gravity: [number, number, number];
  /** Stiffness-proportional (Rayleigh) damping coefficient beta, s: a mode of angular frequency w gets damping ratio beta w / 2. 0 turns material damping off. */
  damping: number;
  integrator: Integrator;
  /** Most quasi-Newton iterations per step. */
  maxIterations: number;
  /** Stop when an iteration moves the body by less than this RMS displacement, as a fraction of its bounding-box diagonal. */
  tolerance: number;
  /** Contact penalty per surface sample, N/m; 0 picks a default from the body's mass and stiffness. */
  contactStiffness: number;
  /** Damping ratio of the contact penalty (0..1): how much of a bounce each contact absorbs. */
  contactDamping: number;
  /** Frequency (Hz) at which the whole body would oscillate on one grab spring: sets the default grab stiffness. */
  grabFrequency: number;
  /** Coulomb friction coefficient of contacts (0 = frictionless). */
  friction: number;
  /** Quasi-Newton iterations after which an unconverged step switches to the exact Newton matrix (0 = never). */
  exactAfter: number;
}

export const DEFAULT_SOLVER_OPTIONS: Readonly<SolverOptions> = Object.freeze({
  dt: 1 / 60,
  gravity: [0, -9.81, 0] as [number, number, number],
  damping: 0.002,
  integrator: "bdf2" as Integrator,
  maxIterations: 24,
  tolerance: 3e-5,
  contactStiffness: 0,
  contactDamping: 0.5,
  grabFrequency: 6,
  friction: 0.6,
  exactAfter: 16,
});

export interface StepStats {
  iterations: number;
  /** Whether the preconditioner was refactored this step (a contact set or grab change). */
  refactored: boolean;
  contacts: number;
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

const MAX_GRABS = 16;
const MAX_GRAB_POINTS = 12;
const LBFGS_MEMORY = 6;
const MAX_LINE_SEARCH = 12;
const ARMIJO = 1e-4;
/** Below this sliding speed (m/s) friction acts as a stiff viscous force: smooth static friction (IPC's mollifier). */
const FRICTION_SLIP_SPEED = 0.01;
/** Contacts that may join or leave the factored set before the preconditioner is refactored. */
const CONTACT_FLICKER_ABSOLUTE = 2;
const CONTACT_FLICKER_FRACTION = 0.1;

interface PinGroup {
  rows: Float64Array;
  rest: Float64Array;
  targets: Float64Array;
  stiffness: number;
  count: number;
}

export class SoftBody {
  readonly subspace: Subspace;
  readonly n: number;
  readonly m: number;
  /** World position of the body frame's origin (rest points are relative to it). */
  readonly origin: Float64Array;
  readonly options: SolverOptions;
  material: Material;
  /** Reduced coordinates (handle transforms), component-major; see subspace.ts. */
  readonly q: Float64Array;
  /** dq/dt. */
  readonly velocity: Float64Array;
  /** Rest bounding-box diagonal of the surface samples, m. */
  readonly size: number;
  stepCount = 0;

  private mu = 0;
  private lambdaStable = 0;
  private density = 0;
  private readonly stiffness: Float64Array;
  private readonly qPrev: Float64Array;
  /** q at the start of the current step. */
  private readonly qStart: Float64Array;
  /** q - x_hat of the last step: the warm start of the next. */
  private readonly lastCorrection: Float64Array;
  private readonly velocityPrev: Float64Array;
  /** How the next step integrates: BDF2 needs a past step, so a fresh start and the step after an unconverged
   * one take implicit Euler, whose dissipation cannot amplify an error (an implicit-midpoint start would be exact
   * in free fall but measured a 2x energy overshoot on violent starts). */
  private nextScheme: "bdf2" | "euler" = "euler";
  private hTilde = 0;
  private readonly xHat: Float64Array;
  private readonly qCentre: Float64Array;
  private readonly grad: Float64Array;
  private readonly gradTrial: Float64Array;
  private readonly qTrial: Float64Array;
  private readonly direction: Float64Array;
  private readonly scratch: Float64Array;
  private readonly scratch2: Float64Array;
  private readonly lbfgsS: Float64Array;
  private readonly lbfgsY: Float64Array;
  private readonly lbfgsRho: Float64Array;
  private readonly lbfgsAlpha: Float64Array;
  private readonly fScratch = new Float64Array(9);
  private readonly pScratch = new Float64Array(9);
  private readonly normalScratch = new Float64Array(3);
  private readonly pointScratch = new Float64Array(3);
  private readonly quat = new Float64Array([0, 0, 0, 1]);
  readonly rotation = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  private readonly preconditioner: Preconditioner;
  private readonly addContactHessianBound: (matrix: Float64Array) => void;
  private readonly fillExactHessianBound: (matrix: Float64Array) => void;
  /** Exact-Hessian scratch (allocated on first use: most bodies never need it). */
  private exactScratch?: { hessian: Float64Array; rotated: Float64Array; c: Float64Array; work: Float64Array; values: Float64Array; vectors: Float64Array; e: Float64Array };

  private readonly pins: PinGroup[] = [];
  private readonly surfaces: ContactSurface[] = [];
  private readonly contacts: ContactSet;
  private readonly factoredContacts: ContactSet;
  /** Per contact: 1 when the sample was already penetrating at the predicted position (damped, preconditioned). */
  private readonly contactPredicted: Uint8Array;
  private contactStiffness = 0;
  /** Per surface sample: normal contact force at the end of the last step (N). */
  private readonly sampleNormalForce: Float64Array;
  /** Generalised external force for the next step (B^T f of point forces), cleared after it. */
  private readonly externalForce: Float64Array;
  private hasExternalForce = false;
  private contactDampingCoefficient = 0;

  // Grabs live in fixed slots so moving them allocates nothing.
  private readonly grabActive = new Uint8Array(MAX_GRABS);
  private readonly grabCount = new Int32Array(MAX_GRABS);
  private readonly grabSamples = new Int32Array(MAX_GRABS * MAX_GRAB_POINTS);
  private readonly grabOffsets = new Float64Array(MAX_GRABS * MAX_GRAB_POINTS * 3);
  private readonly grabTarget = new Float64Array(MAX_GRABS * 3);
  private readonly grabRotation = new Float64Array(MAX_GRABS * 9);
  private readonly grabPointStiffness = new Float64Array(MAX_GRABS);

  constructor(subspace: Subspace, material: Material, options: Partial<SolverOptions> = {}, origin: ArrayLike<number> = [0, 0, 0]) {
    this.subspace = subspace;
    this.n = subspace.n;
    this.m = subspace.m;
    this.options = { ...DEFAULT_SOLVER_OPTIONS, ...options, gravity: [...(options.gravity ?? DEFAULT_SOLVER_OPTIONS.gravity)] as [number, number, number] };
    validateOptions(this.options);
    if (origin.length !== 3 || !Array.from(origin).every(Number.isFinite)) throw new SimParameterError("origin must be three finite numbers");
    this.origin = Float64Array.from(origin);
    validateMaterial(material);
    this.material = { ...material };
    const n = this.n;
    this.q = new Float64Array(n);
    this.velocity = new Float64Array(n);
    this.qPrev = new Float64Array(n);
    this.qStart = new Float64Array(n);
    this.lastCorrection = new Float64Array(n);
    this.velocityPrev = new Float64Array(n);
    this.xHat = new Float64Array(n);
    this.qCentre = new Float64Array(n);
    this.grad = new Float64Array(n);
    this.gradTrial = new Float64Array(n);
    this.qTrial = new Float64Array(n);
    this.direction = new Float64Array(n);
    this.scratch = new Float64Array(n);
    this.scratch2 = new Float64Array(n);
    this.lbfgsS = new Float64Array(LBFGS_MEMORY * n);
    this.lbfgsY = new Float64Array(LBFGS_MEMORY * n);
    this.lbfgsRho = new Float64Array(LBFGS_MEMORY);
    this.lbfgsAlpha = new Float64Array(LBFGS_MEMORY);
    this.stiffness = new Float64Array(n * n);
    this.preconditioner = new Preconditioner(n, this.m);
    this.addContactHessianBound = (matrix) => this.addContactHessian(matrix);
    this.fillExactHessianBound = (matrix) => this.fillExactHessian(matrix);
    const capacity = subspace.surfaceCount * 2;
    this.contacts = new ContactSet(capacity);
    this.factoredContacts = new ContactSet(capacity);
    this.contactPredicted = new Uint8Array(capacity);
    this.sampleNormalForce = new Float64Array(subspace.surfaceCount);
    this.externalForce = new Float64Array(this.n);
    this.size = restDiagonal(subspace.surfaceRest);
    this.applyMaterial();
  }

  /** kg. */
  get totalMass(): number {
    return this.material.density * this.subspace.massVolume;
  }

  // ----- configuration -------------------------------------------------------------------------------

  setMaterial(material: Material): void {
    validateMaterial(material);
    this.material = { ...material };
    this.applyMaterial();
  }

  /** Changes the time step (s); the next step restarts the BDF2 history. */
  setTimeStep(dt: number): void {
    validateOptions({ ...this.options, dt });
    this.options.dt = dt;
    this.nextScheme = "euler";
    this.rebuildPreconditionerBase();
  }

  setDamping(beta: number): void {
    validateOptions({ ...this.options, damping: beta });
    this.options.damping = beta;
    this.rebuildPreconditionerBase();
  }

  addContactSurface(surface: ContactSurface): void {
    this.surfaces.push(surface);
  }

  /**
   * Holds the given points (rest positions + weights) at their current world positions with a penalty spring
   * of `stiffness` N/m each (default: stiff against the material). Returns the number of pinned points.
   */
  pin(points: WeightedPoints, stiffness?: number): number {
    const rows = basisRows(points, this.subspace.handles);
    const count = points.positions.length / 3;
    if (count === 0) throw new SimParameterError("pin needs at least one point");
    const k = stiffness ?? this.defaultPinStiffness();
    if (!(k > 0) || !Number.isFinite(k)) throw new SimParameterError(`pin stiffness must be positive, got ${k}`);
    const targets = new Float64Array(3 * count);
    for (let i = 0; i < count; i++) this.pointPosition(rows, points.positions, i, targets, 3 * i);
    this.pins.push({ rows, rest: Float64Array.from(points.positions), targets, stiffness: k, count });
    this.rebuildPreconditionerBase();
    return count;
  }

  /**
   * Adds a force (N, world axes) at point i of a set (basis rows, as from basisRows) for the next step only: how
   * a rigid prop pushing on the body reaches the solver.
   */
  applyForceAt(rows: Float64Array, i: number, fx: number, fy: number, fz: number): void {
    if (!Number.isFinite(fx) || !Number.isFinite(fy) || !Number.isFinite(fz)) throw new SimParameterError("force must be finite");
    const m = this.m, r = i * m, f = this.externalForce;
    for (let k = 0; k < m; k++) {
      const b = rows[r + k];
      f[k] += b * fx;
      f[m + k] += b * fy;
      f[2 * m + k] += b * fz;
    }
    this.hasExternalForce = true;
  }

  /**
   * Grabs the surface near a world point. Returns a grab id (>= 0), or -1 when no surface sample lies within
   * the radius. Move it with moveGrab, let go with release.
   */
  grab(x: number, y: number, z: number, options: GrabOptions = {}): number {
    if (![x, y, z].every(Number.isFinite)) throw new SimParameterError("grab point must be finite");
    const slot = this.grabActive.indexOf(0);
    if (slot < 0) throw new SimParameterError(`a body holds at most ${MAX_GRABS} grabs`);
    const radius = options.radius ?? 0.08 * this.size;
    const ns = this.subspace.surfaceCount;
    // The nearest samples within the radius (insertion sort into a fixed-size list).
    const best = this.grabSamples.subarray(slot * MAX_GRAB_POINTS, (slot + 1) * MAX_GRAB_POINTS);
    const bestDistance = new Float64Array(MAX_GRAB_POINTS).fill(Infinity);
    const p = this.normalScratch;
    let found = 0;
    for (let s = 0; s < ns; s++) {
      this.pointPosition(this.subspace.surfaceRows, this.subspace.surfaceRest, s, p, 0);
      const d = Math.hypot(p[0] - x, p[1] - y, p[2] - z);
      if (d > radius || d >= bestDistance[MAX_GRAB_POINTS - 1]) continue;
      let k = Math.min(found, MAX_GRAB_POINTS - 1);
      while (k > 0 && bestDistance[k - 1] > d) {
        bestDistance[k] = bestDistance[k - 1];
        best[k] = best[k - 1];
        k--;
      }
      bestDistance[k] = d;
      best[k] = s;
      found = Math.min(found + 1, MAX_GRAB_POINTS);
    }
    if (found === 0) return -1;
    for (let k = 0; k < found; k++) {
      this.pointPosition(this.subspace.surfaceRows, this.subspace.surfaceRest, best[k], p, 0);
      const o = (slot * MAX_GRAB_POINTS + k) * 3;
      this.grabOffsets[o] = p[0] - x;
      this.grabOffsets[o + 1] = p[1] - y;
      this.grabOffsets[o + 2] = p[2] - z;
    }
    return this.activateGrab(slot, found, x, y, z, options.stiffness);
  }

  /**
   * Recreates a grab exactly as another copy of this body made it (a server's, for a client that predicts): the
   * same surface samples held at the same offsets from the target. Returns the grab id.
   */
  grabExactly(samples: ArrayLike<number>, offsets: ArrayLike<number>, x: number, y: number, z: number, stiffness?: number): number {
    const found = samples.length;
    if (found < 1 || found > MAX_GRAB_POINTS || offsets.length !== 3 * found) throw new SimParameterError(`a grab holds 1 to ${MAX_GRAB_POINTS} samples with 3 offsets each`);
    if (![x, y, z].every(Number.isFinite)) throw new SimParameterError("grab point must be finite");
    for (let k = 0; k < found; k++) {
      if (!Number.isInteger(samples[k]) || samples[k] < 0 || samples[k] >= this.subspace.surfaceCount) throw new SimParameterError(`grab sample ${samples[k]} is not a surface sample`);
      if (!Number.isFinite(offsets[3 * k]) || !Number.isFinite(offsets[3 * k + 1]) || !Number.isFinite(offsets[3 * k + 2])) throw new SimParameterError("grab offsets must be finite");
    }
    const slot = this.grabActive.indexOf(0);
    if (slot < 0) throw new SimParameterError(`a body holds at most ${MAX_GRABS} grabs`);
    for (let k = 0; k < found; k++) {
      this.grabSamples[slot * MAX_GRAB_POINTS + k] = samples[k];
      for (let a = 0; a < 3; a++) this.grabOffsets[(slot * MAX_GRAB_POINTS + k) * 3 + a] = offsets[3 * k + a];
    }
    return this.activateGrab(slot, found, x, y, z, stiffness);
  }

  /** How far (m, mean over its samples) a grab's samples are from where it pulls them: how hard it is pulling. */
  grabStretch(id: number): number {
    if (!this.isGrabbing(id)) throw new SimParameterError(`unknown grab ${id}`);
    const s = this.subspace, p = this.pointScratch, t = 3 * id, r = 9 * id, rot = this.grabRotation;
    let total = 0;
    for (let j = 0; j < this.grabCount[id]; j++) {
      const oo = (id * MAX_GRAB_POINTS + j) * 3;
      const offX = this.grabOffsets[oo], offY = this.grabOffsets[oo + 1], offZ = this.grabOffsets[oo + 2];
      this.positionAt(this.q, s.surfaceRows, s.surfaceRest, this.grabSamples[id * MAX_GRAB_POINTS + j], p, 0);
      total += Math.hypot(
        p[0] - (this.grabTarget[t] + rot[r] * offX + rot[r + 1] * offY + rot[r + 2] * offZ),
        p[1] - (this.grabTarget[t + 1] + rot[r + 3] * offX + rot[r + 4] * offY + rot[r + 5] * offZ),
        p[2] - (this.grabTarget[t + 2] + rot[r + 6] * offX + rot[r + 7] * offY + rot[r + 8] * offZ),
      );
    }
    return total / this.grabCount[id];
  }

  /** The surface samples a grab holds and their offsets from its target (to recreate it elsewhere). */
  grabbedSamples(id: number): { samples: number[]; offsets: number[] } {
    if (!this.isGrabbing(id)) throw new SimParameterError(`unknown grab ${id}`);
    const count = this.grabCount[id], base = id * MAX_GRAB_POINTS;
    return {
      samples: Array.from(this.grabSamples.subarray(base, base + count)),
      offsets: Array.from(this.grabOffsets.subarray(3 * base, 3 * (base + count))),
    };
  }

  private activateGrab(slot: number, found: number, x: number, y: number, z: number, stiffnessOption?: number): number {
    const stiffness = stiffnessOption ?? this.totalMass * (2 * Math.PI * this.options.grabFrequency) ** 2;
    if (!(stiffness > 0) || !Number.isFinite(stiffness)) throw new SimParameterError(`grab stiffness must be positive, got ${stiffness}`);
    this.grabActive[slot] = 1;
    this.grabCount[slot] = found;
    this.grabPointStiffness[slot] = stiffness / found;
    this.grabTarget.set([x, y, z], slot * 3);
    this.grabRotation.set([1, 0, 0, 0, 1, 0, 0, 0, 1], slot * 9);
    this.rebuildPreconditionerBase();
    return slot;
  }

  /** Moves a grab's target (world metres); an optional row-major rotation turns the held patch. */
  moveGrab(id: number, x: number, y: number, z: number, rotation?: ArrayLike<number>): void {
    if (!this.isGrabbing(id)) throw new SimParameterError(`unknown grab ${id}`);
    if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) throw new SimParameterError("grab target must be finite");
    this.grabTarget[3 * id] = x;
    this.grabTarget[3 * id + 1] = y;
    this.grabTarget[3 * id + 2] = z;
    if (rotation) {
      for (let k = 0; k < 9; k++) {
        if (!Number.isFinite(rotation[k])) throw new SimParameterError("grab rotation must be finite");
      }
      for (let k = 0; k < 9; k++) this.grabRotation[9 * id + k] = rotation[k];
    }
  }

  release(id: number): void {
    if (!this.isGrabbing(id)) return;
    this.grabActive[id] = 0;
    this.rebuildPreconditionerBase();
  }

  isGrabbing(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < MAX_GRABS && this.grabActive[id] === 1;
  }

  /** Grabs held now. */
  activeGrabs(): number {
    let count = 0;
    for (let id = 0; id < MAX_GRABS; id++) count += this.grabActive[id];
    return count;
  }

  /** Whether point forces wait for the next step (applyForceAt). */
  hasPendingForce(): boolean {
    return this.hasExternalForce;
  }

  /** Mass-weighted RMS speed of the material, m/s. */
  rmsSpeed(): number {
    return Math.sqrt(this.massNorm2(this.velocity) / this.totalMass);
  }

  /** Stops all motion where the body is (it keeps its shape; the next step starts from rest). */
  stopMotion(): void {
    this.velocity.fill(0);
    this.nextScheme = "euler";
  }

  /** Back to the rest shape at the origin, at rest. */
  reset(): void {
    this.q.fill(0);
    this.velocity.fill(0);
    this.lastCorrection.fill(0);
    this.sampleNormalForce.fill(0);
    this.nextScheme = "euler";
  }

  /** Overwrites the state (e.g. from a server snapshot); the next step restarts the BDF2 history. */
  setState(q: ArrayLike<number>, velocity: ArrayLike<number>): void {
    if (q.length !== this.n || velocity.length !== this.n) throw new SimParameterError(`state must have ${this.n} numbers`);
    for (let i = 0; i < this.n; i++) {
      if (!Number.isFinite(q[i]) || !Number.isFinite(velocity[i])) throw new SimParameterError("state must be finite");
    }
    this.q.set(q);
    this.velocity.set(velocity);
    removeNullComponents(this.subspace, this.q);
    removeNullComponents(this.subspace, this.velocity);
    this.lastCorrection.fill(0);
    // Friction is lagged on the normal forces: re-derive them at the new state, or a resting body would lose its
    // grip for a step each time a client reconciles.
    this.updateNormalForces();
    this.nextScheme = "euler";
  }

  // ----- queries ---------------------------------------------------------------------------------------

  /** World position of point i of a set (basis rows + rest positions) into out[o..o+2]. */
  pointPosition(rows: Float64Array, rest: Float64Array, i: number, out: Float64Array, o: number): void {
    this.positionAt(this.q, rows, rest, i, out, o);
  }

  /** World position of point i of a set for any coordinates q (a snapshot, an interpolated state): origin + rest + b(x) . q_a. */
  positionAt(q: Float64Array, rows: Float64Array, rest: Float64Array, i: number, out: Float64Array, o: number): void {
    const m = this.m, r = i * m;
    let ux = 0, uy = 0, uz = 0;
    for (let k = 0; k < m; k++) {
      const b = rows[r + k];
      ux += b * q[k];
      uy += b * q[m + k];
      uz += b * q[2 * m + k];
    }
    out[o] = this.origin[0] + rest[3 * i] + ux;
    out[o + 1] = this.origin[1] + rest[3 * i + 1] + uy;
    out[o + 2] = this.origin[2] + rest[3 * i + 2] + uz;
  }

  /** World positions of a whole point set (rows from basisRows) into out (3N). */
  positions(rows: Float64Array, rest: Float64Array, out: Float64Array): void {
    const count = rest.length / 3;
    for (let i = 0; i < count; i++) this.pointPosition(rows, rest, i, out, 3 * i);
  }

  /** Mass centroid (world) into out. */
  centroid(out: Float64Array): void {
    const s = this.subspace, m = this.m, volume = s.massVolume;
    for (let a = 0; a < 3; a++) {
      let u = 0;
      for (let k = 0; k < m; k++) u += s.massMoment[k] * this.q[a * m + k];
      out[a] = this.origin[a] + s.restCentroid[a] + u / volume;
    }
  }

  energies(): Energies {
    const m = this.m, s = this.subspace, v = this.velocity;
    let kinetic = 0;
    for (let a = 0; a < 3; a++) {
      for (let i = 0; i < m; i++) {
        let row = 0;
        for (let k = 0; k < m; k++) row += s.massBlock[i * m + k] * v[a * m + k];
        kinetic += v[a * m + i] * row;
      }
    }
    kinetic *= 0.5 * this.density;
    let elastic = 0;
    for (let c = 0; c < s.cubatureCount; c++) {
      this.deformationGradient(this.q, c, this.fScratch);
      elastic += s.cubatureVolumes[c] * neoHookeanEnergy(this.fScratch, this.mu, this.lambdaStable);
    }
    const centre = this.normalScratch;
    this.centroid(centre);
    const g = this.options.gravity;
    const potential = -this.totalMass * (g[0] * centre[0] + g[1] * centre[1] + g[2] * centre[2]);
    return { kinetic, elastic, potential };
  }

  /** Deformation gradient at cubature point c for coordinates q (row-major into f). */
  deformationGradient(q: Float64Array, c: number, f: Float64Array): void {
    const m = this.m, jac = this.subspace.cubatureJacobians, base = c * m * 3;
    let f00 = 1, f01 = 0, f02 = 0, f10 = 0, f11 = 1, f12 = 0, f20 = 0, f21 = 0, f22 = 1;
    for (let i = 0; i < m; i++) {
      const o = base + 3 * i;
      const d0 = jac[o], d1 = jac[o + 1], d2 = jac[o + 2];
      const qx = q[i], qy = q[m + i], qz = q[2 * m + i];
      f00 += qx * d0; f01 += qx * d1; f02 += qx * d2;
      f10 += qy * d0; f11 += qy * d1; f12 += qy * d2;
      f20 += qz * d0; f21 += qz * d1; f22 += qz * d2;
    }
    f[0] = f00; f[1] = f01; f[2] = f02; f[3] = f10; f[4] = f11; f[5] = f12; f[6] = f20; f[7] = f21; f[8] = f22;
  }

  /** Elastic energy and its gradient dE/dq at q (tests check rigid motions give zero of both). */
  elasticEnergyAndGradient(q: Float64Array, gradient: Float64Array): number {
    gradient.fill(0);
    return this.accumulateElastic(q, gradient, 1);
  }

  // ----- the step ----------------------------------------------------------------------------------------

  step(): StepStats {
    const n = this.n, m = this.m, o = this.options, h = o.dt;
    const q = this.q, v = this.velocity;
    const scheme = o.integrator === "implicit-euler" ? "euler" : this.nextScheme;
    if (scheme === "bdf2") {
      this.hTilde = (2 * h) / 3;
      for (let i = 0; i < n; i++) {
        this.qCentre[i] = (4 * q[i] - this.qPrev[i]) / 3;
        this.xHat[i] = this.qCentre[i] + (this.hTilde * (4 * v[i] - this.velocityPrev[i])) / 3;
      }
    } else {
      this.hTilde = h;
      for (let i = 0; i < n; i++) {
        this.qCentre[i] = q[i];
        this.xHat[i] = q[i] + this.hTilde * v[i];
      }
    }
    if (this.hTilde !== this.preconditionerStep) this.rebuildPreconditionerBase();

    // Rotation of the body at the prediction, from its volume-averaged deformation gradient.
    const f = this.fScratch, mean = this.subspace.meanJacobian;
    f.fill(0);
    f[0] = f[4] = f[8] = 1;
    for (let i = 0; i < m; i++) {
      const d0 = mean[3 * i], d1 = mean[3 * i + 1], d2 = mean[3 * i + 2];
      for (let a = 0; a < 3; a++) {
        const qa = this.xHat[a * m + i];
        f[3 * a] += qa * d0; f[3 * a + 1] += qa * d1; f[3 * a + 2] += qa * d2;
      }
    }
    extractRotation(f, this.quat, 8);
    quaternionToMatrix(this.quat, this.rotation);

    this.gatherContacts();
    const refactorsBefore = this.preconditioner.refactorCount;
    if (this.exactLagged && !this.preconditioner.needsFullRefactor(this.rotation)) {
      // A recent hard step's exact matrix stays the better guess while the body keeps its orientation.
      this.preconditioner.reuseFull();
    } else if (this.predictedContactCount() === 0) {
      this.exactLagged = false;
      this.preconditioner.useBase();
    } else if (this.preconditioner.needsFullRefactor(this.rotation) || this.exactLagged || !this.samePredictedContacts()) {
      this.exactLagged = false;
      this.preconditioner.factorWithContacts(this.rotation, this.addContactHessianBound);
      this.rememberFactoredContacts();
    } else {
      this.preconditioner.reuseFull();
    }

    const iterations = this.minimise(o.maxIterations, o.tolerance * this.size);

    if (!allFinite(q)) {
      // Never let a bad step poison the state: keep the last good one, at rest.
      q.set(this.qStart);
      v.fill(0);
      this.nextScheme = "euler";
    } else {
      // Drift along directions that move nothing would grow without bound (and cost snapshot precision). Only
      // the solve adds such components: the history and the velocity below are combinations of projected states.
      removeNullComponents(this.subspace, q);
      this.qPrev.set(this.qStart);
      this.velocityPrev.set(v);
      const inv = 1 / this.hTilde;
      for (let i = 0; i < n; i++) v[i] = (q[i] - this.qCentre[i]) * inv;
      this.updateNormalForces();
      this.nextScheme = this.converged ? "bdf2" : "euler";
    }
    if (this.hasExternalForce) {
      this.externalForce.fill(0);
      this.hasExternalForce = false;
    }
    this.stepCount++;
    return { iterations, refactored: this.preconditioner.refactorCount !== refactorsBefore, contacts: this.contacts.count };
  }

  // ----- internals ---------------------------------------------------------------------------------------

  private preconditionerStep = -1;
  private converged = false;
  private exactQ: Float64Array = new Float64Array(0);
  /** The current full factor is an exact Newton matrix from a recent hard step (reused while it lasts). */
  private exactLagged = false;

  private minimise(maxIterations: number, tolerance: number): number {
    const n = this.n, q = this.q, g = this.grad, gNew = this.gradTrial, d = this.direction, qt = this.qTrial;
    const s = this.lbfgsS, y = this.lbfgsY, rho = this.lbfgsRho, alphas = this.lbfgsAlpha;
    this.qStart.set(q);
    // Warm start: the prediction plus last step's correction (forces change slowly from step to step),
    // unless staying put is already lower (violent input can make that a wildly stretched state).
    for (let i = 0; i < n; i++) {
      qt[i] = this.xHat[i] + this.lastCorrection[i];
      d[i] = qt[i] - q[i];
    }
    let energy = this.evaluate(qt, g);
    // Only a body moving fast (over 5% of its size a step) can predict worse than standing still.
    if (this.massNorm2(d) > 0.0025 * this.size * this.size * this.totalMass || !Number.isFinite(energy)) {
      const still = this.evaluate(q, gNew);
      if (still < energy || !Number.isFinite(energy)) {
        qt.set(q);
        g.set(gNew);
        energy = still;
      }
    }
    q.set(qt);
    this.converged = false;
    let stored = 0, newest = -1;
    let iterations = 0;
    const tolerance2 = tolerance * tolerance;
    for (let iter = 0; iter < maxIterations; iter++) {
      iterations++;
      if (iter === this.options.exactAfter && iter > 0) {
        // Hard step (violent input, thin parts, large strain): Newton's own matrix at the current iterate.
        this.exactQ = q;
        this.preconditioner.factorAssembled(this.rotation, this.fillExactHessianBound);
        this.exactLagged = true;
        stored = 0;
      }
      // Two-loop recursion with H0 = P^-1.
      for (let i = 0; i < n; i++) d[i] = -g[i];
      for (let k = 0; k < stored; k++) {
        const slot = (newest - k + LBFGS_MEMORY) % LBFGS_MEMORY;
        const a = rho[slot] * dotOffset(s, slot * n, d, n);
        alphas[slot] = a;
        axpyOffset(-a, y, slot * n, d, n);
      }
      this.preconditioner.solve(d, this.rotation);
      for (let k = stored - 1; k >= 0; k--) {
        const slot = (newest - k + LBFGS_MEMORY) % LBFGS_MEMORY;
        const b = rho[slot] * dotOffset(y, slot * n, d, n);
        axpyOffset(alphas[slot] - b, s, slot * n, d, n);
      }
      let slope = dot(g, d, n);
      if (!(slope < 0)) {
        // Not a descent direction (stale curvature pairs): restart from the preconditioned gradient.
        stored = 0;
        for (let i = 0; i < n; i++) d[i] = -g[i];
        this.preconditioner.solve(d, this.rotation);
        slope = dot(g, d, n);
        if (!(slope < 0)) break;
      }
      // Converged when the full step would move the body by less than the tolerance (RMS over its mass).
      const stepNorm2 = this.massNorm2(d);
      if (stepNorm2 <= tolerance2 * this.totalMass) {
        this.converged = true;
        break;
      }
      let step = 1, accepted = false, trialEnergy = energy;
      for (let ls = 0; ls < MAX_LINE_SEARCH; ls++) {
        for (let i = 0; i < n; i++) qt[i] = q[i] + step * d[i];
        trialEnergy = this.evaluate(qt, gNew);
        if (trialEnergy <= energy + ARMIJO * step * slope) {
          accepted = true;
          break;
        }
        step *= 0.5;
      }
      if (!accepted) break;
      // Curvature pair.
      const slot = (newest + 1) % LBFGS_MEMORY;
      let sy = 0;
      for (let i = 0; i < n; i++) {
        const si = step * d[i], yi = gNew[i] - g[i];
        s[slot * n + i] = si;
        y[slot * n + i] = yi;
        sy += si * yi;
      }
      if (sy > 1e-300) {
        rho[slot] = 1 / sy;
        newest = slot;
        stored = Math.min(stored + 1, LBFGS_MEMORY);
      }
      q.set(qt);
      g.set(gNew);
      energy = trialEnergy;
      if (stepNorm2 * step * step <= tolerance2 * this.totalMass) {
        this.converged = true;
        break;
      }
    }
    for (let i = 0; i < n; i++) this.lastCorrection[i] = q[i] - this.xHat[i];
    return iterations;
  }

  /** |x|_M^2 = x^T M x. */
  private massNorm2(x: Float64Array): number {
    const m = this.m, mb = this.subspace.massBlock;
    let total = 0;
    for (let a = 0; a < 3; a++) {
      const off = a * m;
      for (let i = 0; i < m; i++) {
        const xi = x[off + i];
        if (xi === 0) continue;
        let row = 0;
        const r = i * m;
        for (let k = 0; k < m; k++) row += mb[r + k] * x[off + k];
        total += xi * row;
      }
    }
    return total * this.density;
  }

  /** Incremental potential at q; writes its gradient. */
  private evaluate(q: Float64Array, g: Float64Array): number {
    const n = this.n, m = this.m, s = this.subspace, o = this.options;
    const h2 = this.hTilde * this.hTilde;
    const rhoMass = this.density;
    // Inertia: 1/2 (q - x_hat)^T M (q - x_hat).
    const dq = this.scratch;
    for (let i = 0; i < n; i++) dq[i] = q[i] - this.xHat[i];
    let energy = 0;
    const mb = s.massBlock;
    for (let a = 0; a < 3; a++) {
      const off = a * m;
      for (let i = 0; i < m; i++) {
        let row = 0;
        const r = i * m;
        for (let k = 0; k < m; k++) row += mb[r + k] * dq[off + k];
        row *= rhoMass;
        g[off + i] = row;
        energy += 0.5 * dq[off + i] * row;
      }
    }
    // Elasticity.
    energy += this.accumulateElastic(q, g, h2);
    // Gravity: -sum_i m_i g . u_i.
    for (let a = 0; a < 3; a++) {
      const ga = o.gravity[a] * rhoMass * h2;
      if (ga === 0) continue;
      const off = a * m;
      for (let i = 0; i < m; i++) {
        energy -= ga * s.massMoment[i] * q[off + i];
        g[off + i] -= ga * s.massMoment[i];
      }
    }
    // External point forces (e.g. from rigid props): -h~^2 f . q.
    if (this.hasExternalForce) {
      const f = this.externalForce;
      for (let i = 0; i < n; i++) {
        energy -= h2 * f[i] * q[i];
        g[i] -= h2 * f[i];
      }
    }
    // Stiffness-proportional damping in the body's rotated frame: h~/2 (q - q_c)^T D (q - q_c).
    if (o.damping > 0) energy += this.accumulateDamping(q, g);
    energy += this.accumulatePins(q, g, h2);
    energy += this.accumulateGrabs(q, g, h2);
    energy += this.accumulateContacts(q, g, h2);
    return energy;
  }

  private accumulateElastic(q: Float64Array, g: Float64Array, scale: number): number {
    const m = this.m, s = this.subspace, jac = s.cubatureJacobians, f = this.fScratch, p = this.pScratch;
    let energy = 0;
    for (let c = 0; c < s.cubatureCount; c++) {
      this.deformationGradient(q, c, f);
      const vol = scale * s.cubatureVolumes[c];
      energy += vol * neoHookeanEnergyAndStress(f, this.mu, this.lambdaStable, p);
      const p00 = vol * p[0], p01 = vol * p[1], p02 = vol * p[2];
      const p10 = vol * p[3], p11 = vol * p[4], p12 = vol * p[5];
      const p20 = vol * p[6], p21 = vol * p[7], p22 = vol * p[8];
      const base = c * m * 3;
      for (let i = 0; i < m; i++) {
        const oo = base + 3 * i;
        const d0 = jac[oo], d1 = jac[oo + 1], d2 = jac[oo + 2];
        g[i] += p00 * d0 + p01 * d1 + p02 * d2;
        g[m + i] += p10 * d0 + p11 * d1 + p12 * d2;
        g[2 * m + i] += p20 * d0 + p21 * d1 + p22 * d2;
      }
    }
    return energy;
  }

  private accumulateDamping(q: Float64Array, g: Float64Array): number {
    const n = this.n, m = this.m, r = this.rotation, k = this.stiffness;
    const coefficient = this.hTilde * this.options.damping;
    const e = this.scratch, y = this.scratch2;
    // e = (R^T (x) I)(q - q_c)
    for (let a = 0; a < 3; a++) {
      const r0 = r[a], r1 = r[3 + a], r2 = r[6 + a];
      for (let i = 0; i < m; i++) {
        e[a * m + i] = r0 * (q[i] - this.qCentre[i]) + r1 * (q[m + i] - this.qCentre[m + i]) + r2 * (q[2 * m + i] - this.qCentre[2 * m + i]);
      }
    }
    let energy = 0;
    for (let i = 0; i < n; i++) {
      // This n^2 product is the hottest loop after elasticity.
      y[i] = coefficient * dotRange(k, i * n, e, 0, n);
      energy += 0.5 * e[i] * y[i];
    }
    // g += (R (x) I) y
    for (let a = 0; a < 3; a++) {
      const r0 = r[3 * a], r1 = r[3 * a + 1], r2 = r[3 * a + 2];
      for (let i = 0; i < m; i++) g[a * m + i] += r0 * y[i] + r1 * y[m + i] + r2 * y[2 * m + i];
    }
    return energy;
  }

  /** Adds k/2 |p - target|^2 for point i of a set (rows + rest). */
  private springTerm(q: Float64Array, g: Float64Array, rows: Float64Array, rest: Float64Array, i: number, tx: number, ty: number, tz: number, k: number): number {
    const m = this.m, r = i * m, p = this.pointScratch;
    this.positionAt(q, rows, rest, i, p, 0);
    const dx = p[0] - tx, dy = p[1] - ty, dz = p[2] - tz;
    const kx = k * dx, ky = k * dy, kz = k * dz;
    for (let j = 0; j < m; j++) {
      const b = rows[r + j];
      g[j] += kx * b;
      g[m + j] += ky * b;
      g[2 * m + j] += kz * b;
    }
    return 0.5 * k * (dx * dx + dy * dy + dz * dz);
  }

  private accumulatePins(q: Float64Array, g: Float64Array, h2: number): number {
    let energy = 0;
    for (const pin of this.pins) {
      const k = h2 * pin.stiffness;
      for (let i = 0; i < pin.count; i++) {
        energy += this.springTerm(q, g, pin.rows, pin.rest, i, pin.targets[3 * i], pin.targets[3 * i + 1], pin.targets[3 * i + 2], k);
      }
    }
    return energy;
  }

  private accumulateGrabs(q: Float64Array, g: Float64Array, h2: number): number {
    let energy = 0;
    const s = this.subspace, rows = s.surfaceRows, rest = s.surfaceRest;
    for (let slot = 0; slot < MAX_GRABS; slot++) {
      if (this.grabActive[slot] === 0) continue;
      const k = h2 * this.grabPointStiffness[slot];
      const t = 3 * slot, r = 9 * slot, rot = this.grabRotation;
      for (let j = 0; j < this.grabCount[slot]; j++) {
        const sample = this.grabSamples[slot * MAX_GRAB_POINTS + j];
        const oo = (slot * MAX_GRAB_POINTS + j) * 3;
        const offX = this.grabOffsets[oo], offY = this.grabOffsets[oo + 1], offZ = this.grabOffsets[oo + 2];
        const tx = this.grabTarget[t] + rot[r] * offX + rot[r + 1] * offY + rot[r + 2] * offZ;
        const ty = this.grabTarget[t + 1] + rot[r + 3] * offX + rot[r + 4] * offY + rot[r + 5] * offZ;
        const tz = this.grabTarget[t + 2] + rot[r + 6] * offX + rot[r + 7] * offY + rot[r + 8] * offZ;
        energy += this.springTerm(q, g, rows, rest, sample, tx, ty, tz, k);
      }
    }
    return energy;
  }

  private accumulateContacts(q: Float64Array, g: Float64Array, h2: number): number {
    const c = this.contacts, m = this.m, rows = this.subspace.surfaceRows, rest = this.subspace.surfaceRest;
    const k = h2 * this.contactStiffness;
    const damping = this.hTilde * this.contactDampingCoefficient;
    const frictionScale = h2 * this.options.friction, slip = FRICTION_SLIP_SPEED * this.hTilde;
    const p = this.pointScratch;
    let energy = 0;
    for (let i = 0; i < c.count; i++) {
      const sample = c.sample[i], r = sample * m;
      this.positionAt(q, rows, rest, sample, p, 0);
      const nx = c.normal[3 * i], ny = c.normal[3 * i + 1], nz = c.normal[3 * i + 2];
      // Motion over the step, from the start-of-step reference.
      const dx = p[0] - c.reference[3 * i];
      const dy = p[1] - c.reference[3 * i + 1];
      const dz = p[2] - c.reference[3 * i + 2];
      const along = nx * dx + ny * dy + nz * dz;
      const gap = along + nx * c.reference[3 * i] + ny * c.reference[3 * i + 1] + nz * c.reference[3 * i + 2] - c.offset[i];
      let force = 0;
      if (gap < 0) {
        energy += 0.5 * k * gap * gap;
        force = k * gap;
      }
      let fx = 0, fy = 0, fz = 0;
      if (this.contactPredicted[i] === 1) {
        if (damping > 0) {
          // Normal damping on samples in contact absorbs bounces.
          energy += 0.5 * damping * along * along;
          force += damping * along;
        }
        // Coulomb friction against the sliding over the step, with last step's normal force (lagged).
        const normalForce = this.sampleNormalForce[sample];
        if (frictionScale > 0 && normalForce > 0) {
          const tx = dx - along * nx, ty = dy - along * ny, tz = dz - along * nz;
          const sliding = Math.sqrt(tx * tx + ty * ty + tz * tz);
          const limit = frictionScale * normalForce;
          let scale: number;
          if (sliding < slip) {
            energy += (0.5 * limit * sliding * sliding) / slip;
            scale = limit / slip;
          } else {
            energy += limit * (sliding - 0.5 * slip);
            scale = limit / sliding;
          }
          fx = scale * tx; fy = scale * ty; fz = scale * tz;
        }
      }
      fx += force * nx; fy += force * ny; fz += force * nz;
      if (fx === 0 && fy === 0 && fz === 0) continue;
      for (let j = 0; j < m; j++) {
        const b = rows[r + j];
        g[j] += fx * b;
        g[m + j] += fy * b;
        g[2 * m + j] += fz * b;
      }
    }
    return energy;
  }

  /** Normal force of each sample at the end of the step (N): next step's friction limit. */
  private updateNormalForces(): void {
    const c = this.contacts, p = this.pointScratch;
    this.sampleNormalForce.fill(0);
    for (let i = 0; i < c.count; i++) {
      const sample = c.sample[i];
      this.positionAt(this.q, this.subspace.surfaceRows, this.subspace.surfaceRest, sample, p, 0);
      const gap = c.normal[3 * i] * p[0] + c.normal[3 * i + 1] * p[1] + c.normal[3 * i + 2] * p[2] - c.offset[i];
      if (gap < 0) this.sampleNormalForce[sample] += -this.contactStiffness * gap;
    }
  }

  /** Finds the samples near an obstacle at the predicted positions and linearises each contact there. */
  private gatherContacts(): void {
    const c = this.contacts;
    c.clear();
    if (this.surfaces.length === 0) return;
    const m = this.m, s = this.subspace, rows = s.surfaceRows, rest = s.surfaceRest;
    const xh = this.xHat, qc = this.qCentre, normal = this.normalScratch;
    const baseMargin = 0.02 * this.size;
    for (let sample = 0; sample < s.surfaceCount; sample++) {
      const r = sample * m;
      let hx = 0, hy = 0, hz = 0, cx = 0, cy = 0, cz = 0;
      for (let j = 0; j < m; j++) {
        const b = rows[r + j];
        hx += b * xh[j]; hy += b * xh[m + j]; hz += b * xh[2 * m + j];
        cx += b * qc[j]; cy += b * qc[m + j]; cz += b * qc[2 * m + j];
      }
      const px = this.origin[0] + rest[3 * sample] + hx;
      const py = this.origin[1] + rest[3 * sample + 1] + hy;
      const pz = this.origin[2] + rest[3 * sample + 2] + hz;
      const margin = baseMargin + 2 * Math.sqrt((hx - cx) ** 2 + (hy - cy) ** 2 + (hz - cz) ** 2);
      for (let k = 0; k < this.surfaces.length; k++) {
        const distance = this.surfaces[k].signedDistance(px, py, pz, margin, normal);
        if (!(distance < margin)) continue;
        const nx = normal[0], ny = normal[1], nz = normal[2];
        const i = c.count;
        if (!c.add(sample, nx, ny, nz, nx * px + ny * py + nz * pz - distance)) return;
        c.reference[3 * i] = this.origin[0] + rest[3 * sample] + cx;
        c.reference[3 * i + 1] = this.origin[1] + rest[3 * sample + 1] + cy;
        c.reference[3 * i + 2] = this.origin[2] + rest[3 * sample + 2] + cz;
        this.contactPredicted[i] = distance < 0 ? 1 : 0;
      }
    }
  }

  private predictedContactCount(): number {
    let count = 0;
    for (let i = 0; i < this.contacts.count; i++) count += this.contactPredicted[i];
    return count;
  }

  /**
   * The preconditioner holds contacts penetrating at the prediction; compare that subset with the factored one.
   * A few samples flickering at the margin (a block resting on a face) do not warrant a refactor: the factor stays
   * a good preconditioner and the quasi-Newton iterations absorb the difference.
   */
  private samePredictedContacts(): boolean {
    const c = this.contacts, f = this.factoredContacts;
    let i = 0, j = 0, predicted = 0, differing = 0;
    // Both lists are in sample order: merge them.
    while (i < c.count || j < f.count) {
      if (i < c.count && this.contactPredicted[i] === 0) { i++; continue; }
      const ci = i < c.count ? c.sample[i] : Infinity, fj = j < f.count ? f.sample[j] : Infinity;
      if (ci === fj) {
        const d = f.normal[3 * j] * c.normal[3 * i] + f.normal[3 * j + 1] * c.normal[3 * i + 1] + f.normal[3 * j + 2] * c.normal[3 * i + 2];
        if (d < 0.985) return false;
        predicted++; i++; j++;
      } else if (ci < fj) {
        differing++; predicted++; i++;
      } else {
        differing++; j++;
      }
    }
    return differing <= Math.max(CONTACT_FLICKER_ABSOLUTE, CONTACT_FLICKER_FRACTION * Math.max(predicted, f.count));
  }

  private rememberFactoredContacts(): void {
    const c = this.contacts, f = this.factoredContacts;
    f.clear();
    for (let i = 0; i < c.count; i++) {
      if (this.contactPredicted[i] === 1) f.add(c.sample[i], c.normal[3 * i], c.normal[3 * i + 1], c.normal[3 * i + 2], c.offset[i]);
    }
  }

  /** Adds the predicted contacts' Hessian (normal penalty + damping, sticking friction) into a dense n x n matrix. */
  private addContactHessian(matrix: Float64Array): void {
    const c = this.contacts, m = this.m, n = this.n, rows = this.subspace.surfaceRows;
    const normalWeight = this.hTilde * this.hTilde * this.contactStiffness + this.hTilde * this.contactDampingCoefficient;
    const frictionWeight = (this.hTilde * this.hTilde * this.options.friction) / (FRICTION_SLIP_SPEED * this.hTilde);
    for (let i = 0; i < c.count; i++) {
      if (this.contactPredicted[i] === 0) continue;
      const r = c.sample[i] * m;
      const tangential = frictionWeight * this.sampleNormalForce[c.sample[i]];
      for (let a = 0; a < 3; a++) {
        const na = c.normal[3 * i + a];
        for (let b = 0; b < 3; b++) {
          const nb = c.normal[3 * i + b];
          const w = normalWeight * na * nb + tangential * ((a === b ? 1 : 0) - na * nb);
          if (w === 0) continue;
          for (let j = 0; j < m; j++) {
            const wj = w * rows[r + j];
            if (wj === 0) continue;
            const rowOff = (a * m + j) * n + b * m;
            for (let k = 0; k < m; k++) matrix[rowOff + k] += wj * rows[r + k];
          }
        }
      }
    }
  }

  /**
   * The exact (PSD-projected) Hessian of the incremental potential at `exactQ`: the rotated P0 with its rest
   * elastic part swapped for the true one, plus the predicted contacts.
   */
  private fillExactHessian(matrix: Float64Array): void {
    const n = this.n, m = this.m, s = this.subspace, h2 = this.hTilde * this.hTilde;
    const x = (this.exactScratch ??= {
      hessian: new Float64Array(n * n), rotated: new Float64Array(n * n), c: new Float64Array(81), work: new Float64Array(81),
      values: new Float64Array(9), vectors: new Float64Array(81), e: new Float64Array(3 * m),
    });
    this.preconditioner.rotateMatrix(this.preconditioner.base, this.rotation, matrix);
    this.addContactHessian(matrix);
    this.preconditioner.rotateMatrix(this.stiffness, this.rotation, x.rotated);
    const hess = x.hessian;
    hess.fill(0);
    const jac = s.cubatureJacobians, f = this.fScratch, c = x.c, e = x.e;
    for (let p = 0; p < s.cubatureCount; p++) {
      this.deformationGradient(this.exactQ, p, f);
      neoHookeanHessianProjected(f, this.mu, this.lambdaStable, c, x.work, x.values, x.vectors, symmetricEigen);
      const v = h2 * s.cubatureVolumes[p], base = p * m * 3;
      for (let a = 0; a < 3; a++) {
        for (let b = a; b < 3; b++) {
          // e = D C_ab (m x 3), then block (a, b) += v e D^T.
          for (let i = 0; i < m; i++) {
            const d0 = jac[base + 3 * i], d1 = jac[base + 3 * i + 1], d2 = jac[base + 3 * i + 2];
            for (let col = 0; col < 3; col++) {
              e[3 * i + col] = v * (d0 * c[(3 * a) * 9 + 3 * b + col] + d1 * c[(3 * a + 1) * 9 + 3 * b + col] + d2 * c[(3 * a + 2) * 9 + 3 * b + col]);
            }
          }
          for (let i = 0; i < m; i++) {
            const e0 = e[3 * i], e1 = e[3 * i + 1], e2 = e[3 * i + 2];
            if (e0 === 0 && e1 === 0 && e2 === 0) continue;
            const row = (a * m + i) * n + b * m;
            for (let j = 0; j < m; j++) hess[row + j] += e0 * jac[base + 3 * j] + e1 * jac[base + 3 * j + 1] + e2 * jac[base + 3 * j + 2];
          }
        }
      }
    }
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < a; b++) {
        for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) hess[(a * m + i) * n + b * m + j] = hess[(b * m + j) * n + a * m + i];
      }
    }
    for (let k = 0; k < n * n; k++) matrix[k] += hess[k] - h2 * x.rotated[k];
  }

  private applyMaterial(): void {
    const lame = lameParameters(this.material);
    this.mu = lame.mu;
    this.lambdaStable = lame.lambdaStable;
    this.density = this.material.density;
    const s = this.subspace;
    for (let i = 0; i < this.stiffness.length; i++) this.stiffness[i] = lame.mu * s.stiffnessMu[i] + lame.lambda * s.stiffnessLambda[i];
    // Contact penalty: a body resting on a handful of samples must not sink, so each sample's spring holds a
    // sixteenth of the whole weight at 30 Hz: resting on 5 samples sinks 16 g / (5 w^2) ~ 1 mm, whatever the
    // size, and the term stays conditioned alike for every body (stiffer only slows the solve).
    const sampleMass = this.totalMass / s.surfaceCount;
    const contactOmega = 2 * Math.PI * 30;
    this.contactStiffness = this.options.contactStiffness > 0 ? this.options.contactStiffness : (this.totalMass * contactOmega * contactOmega) / 16;
    this.contactDampingCoefficient = 2 * this.options.contactDamping * Math.sqrt(this.contactStiffness * sampleMass);
    this.rebuildPreconditionerBase();
  }

  private defaultPinStiffness(): number {
    // Far stiffer than the material over the body's size, so a clamp barely moves.
    return 1e3 * this.material.youngsModulus * this.size / Math.max(1, Math.sqrt(this.subspace.surfaceCount));
  }

  /** P0 = M + (h~^2 + h~ beta) K_rest + h~^2 (pins + grabs), for the current step size. */
  private rebuildPreconditionerBase(): void {
    const h = this.hTilde > 0 ? this.hTilde : this.options.dt;
    this.preconditionerStep = h;
    const n = this.n, m = this.m, p = this.preconditioner.base, s = this.subspace;
    const stiffnessScale = h * h + h * this.options.damping;
    for (let i = 0; i < n * n; i++) p[i] = stiffnessScale * this.stiffness[i];
    for (let a = 0; a < 3; a++) {
      for (let i = 0; i < m; i++) {
        const row = (a * m + i) * n + a * m;
        for (let k = 0; k < m; k++) p[row + k] += this.density * s.massBlock[i * m + k];
      }
    }
    const addIsotropic = (rows: Float64Array, r: number, k: number) => {
      for (let i = 0; i < m; i++) {
        const bi = k * rows[r + i];
        if (bi === 0) continue;
        for (let j = 0; j < m; j++) {
          const v = bi * rows[r + j];
          for (let a = 0; a < 3; a++) p[(a * m + i) * n + a * m + j] += v;
        }
      }
    };
    for (const pin of this.pins) {
      for (let i = 0; i < pin.count; i++) addIsotropic(pin.rows, i * m, h * h * pin.stiffness);
    }
    for (let slot = 0; slot < MAX_GRABS; slot++) {
      if (this.grabActive[slot] === 0) continue;
      for (let j = 0; j < this.grabCount[slot]; j++) {
        addIsotropic(s.surfaceRows, this.grabSamples[slot * MAX_GRAB_POINTS + j] * m, h * h * this.grabPointStiffness[slot]);
      }
    }
    // A small regulariser keeps modes the cubature cannot see (more unknowns than samples) well posed.
    let trace = 0;
    for (let i = 0; i < n; i++) trace += p[i * n + i];
    const regulariser = 1e-10 * (trace / n);
    for (let i = 0; i < n; i++) p[i * n + i] += regulariser;
    this.preconditioner.invalidate();
  }
}

function dotOffset(a: Float64Array, offset: number, b: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[offset + i] * b[i];
  return s;
}

function axpyOffset(alpha: number, x: Float64Array, offset: number, y: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) y[i] += alpha * x[offset + i];
}

function allFinite(x: Float64Array): boolean {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i])) return false;
  return true;
}

function restDiagonal(points: Float64Array): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], points[i + k]);
      max[k] = Math.max(max[k], points[i + k]);
    }
  }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

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
  if (!Number.isFinite(o.friction) || o.friction < 0 || o.friction > 10) throw new SimParameterError(`friction must be in [0, 10], got ${o.friction}`);
  if (!Number.isInteger(o.exactAfter) || o.exactAfter < 0) throw new SimParameterError(`exactAfter must be a non-negative integer, got ${o.exactAfter}`);
}
