// One reduced soft body: a thin facade over the parts of its time step.
//
// Each step minimises the BDF2 incremental potential (integrator.ts)
//   E(q) = inertia + h~^2 [elastic + gravity and external forces + pins and grabs + contacts] + damping
// (energy/*.ts, one term a file) by L-BFGS (minimiser.ts) preconditioned with the body-frame rest Hessian plus
// springs and contacts (preconditioner.ts), whose new factors are computed a slice a step. A step's cost is
// bounded: at most `maxIterations` iterations and maxIterations + 2 evaluations (plus one or two to pick where
// it starts), and `factorWorkPerStep` multiply-adds of factoring. Everything runs in preallocated Float64Arrays
// and is deterministic.

import { ContactSnapshot, ContactTerm } from "./energy/contact";
import { DampingTerm } from "./energy/damping";
import { ElasticTerm } from "./energy/elastic";
import { ExternalForceTerm } from "./energy/gravity";
import { InertiaTerm } from "./energy/inertia";
import { SpringTerm } from "./energy/springs";
import type { EnergyTerm } from "./energy/term";
import type { ContactSurface } from "./contacts";
import { GrabSet } from "./grabs";
import { BaseMatrix } from "./base-matrix";
import { SolverKernels } from "./kernels/solver-kernels";
import { SurfacePointKernels } from "./kernels/surface-points";
import { Bdf2History } from "./integrator";
import { copyStepStart, type SavedBodyState, type StepStart } from "./saved-state";
import { DEFAULT_SOLVER_OPTIONS, validateOptions, type SolverOptions } from "./solver-options";
import { GRAB_RADIUS_FRACTION, type Energies, type GrabOptions, type StateConstraint, type StepStats } from "./body-types";
import { allFinite, extractRotation, quaternionToMatrix } from "./linalg";
import { lameParameters, SimParameterError, validateMaterial, type Material } from "./material";
import { LbfgsMinimiser } from "./minimiser";
import { IncrementalPotential } from "./incremental-potential";
import { FoldRelease, foldJudgedAbove } from "./fold-release";
import { Preconditioner } from "./preconditioner";
import { StepState } from "./step-state";
import { boxDiagonal, massCentroidAt, pointPositionAt } from "./point-positions";
import { basisRows, meanDeformationGradient, removeNullComponents, type Subspace, type WeightedPoints } from "./subspace";

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
  /** Whether the hot loops run on the WebAssembly SIMD kernels (options.simd, where the platform has them). */
  readonly usesSimd: boolean;
  /**
   * Whether the body releases folds itself (fold-release.ts). A client predicting a server's body turns it off: it
   * cannot count the server's slow steps, so it would release at other steps and flicker; snapshots bring the shape.
   */
  releasesFolds = true;

  private readonly state: StepState;
  private readonly history: Bdf2History;
  private readonly inertia: InertiaTerm;
  private readonly elastic: ElasticTerm;
  private readonly external: ExternalForceTerm;
  private readonly damping: DampingTerm;
  private readonly springs: SpringTerm;
  private readonly contact: ContactTerm;
  private readonly terms: EnergyTerm[];
  private readonly grabs: GrabSet;
  private readonly preconditioner: Preconditioner;
  private readonly minimiser: LbfgsMinimiser;
  private readonly objective: IncrementalPotential;
  private readonly contactSnapshot: ContactSnapshot;
  /** h~ the preconditioner is built for: a BDF2 step's (most steps are). */
  private readonly preconditionerStep: number;
  private readonly baseMatrix: BaseMatrix;

  private readonly qStart: Float64Array;
  /** q - x_hat of the last step: the warm start of the next. */
  private readonly lastCorrection: Float64Array;
  private readonly stepStart: StepStart;
  private lastConverged = true;
  private readonly grad: Float64Array;
  private readonly gradStill: Float64Array;
  private readonly trial: Float64Array;
  private readonly surfacePositions: Float64Array;
  private readonly fScratch = new Float64Array(9);
  private readonly pointScratch = new Float64Array(3);
  private readonly quat = Float64Array.from(IDENTITY_QUATERNION);
  /** The last step's figures (one object, reused). */
  private readonly stats: StepStats = { iterations: 0, refactored: false, contacts: 0, converged: true, cutShort: false, foldReleased: false };
  private readonly foldRelease: FoldRelease;
  private readonly centreScratch = new Float64Array(3);

  constructor(subspace: Subspace, material: Material, options: Partial<SolverOptions> = {}, origin: ArrayLike<number> = [0, 0, 0]) {
    this.subspace = subspace;
    const n = (this.n = subspace.n);
    this.m = subspace.m;
    this.options = { ...DEFAULT_SOLVER_OPTIONS, ...options, gravity: [...(options.gravity ?? DEFAULT_SOLVER_OPTIONS.gravity)] as [number, number, number] };
    validateOptions(this.options);
    if (origin.length !== 3 || !Array.from(origin).every(Number.isFinite)) throw new SimParameterError("origin must be three finite numbers");
    this.origin = Float64Array.from(origin);
    validateMaterial(material);
    this.material = { ...material };
    this.q = new Float64Array(n);
    this.velocity = new Float64Array(n);
    this.qStart = new Float64Array(n);
    this.lastCorrection = new Float64Array(n);
    this.grad = new Float64Array(n);
    this.gradStill = new Float64Array(n);
    this.trial = new Float64Array(n);
    this.surfacePositions = new Float64Array(3 * subspace.surfaceCount);
    this.size = boxDiagonal(subspace.surfaceRest);

    this.preconditionerStep = this.options.integrator === "bdf2" ? Bdf2History.bdf2Step(this.options.dt) : this.options.dt;
    const state = (this.state = new StepState(n, this.options.dt));
    this.history = new Bdf2History(n, this.options.integrator);
    this.grabs = new GrabSet(subspace);
    const kernels = this.options.simd ? SolverKernels.create(subspace) : null;
    this.usesSimd = kernels !== null;
    this.inertia = new InertiaTerm(subspace, state, kernels);
    this.elastic = new ElasticTerm(subspace, state, kernels);
    this.external = new ExternalForceTerm(subspace, state, this.options.gravity);
    this.damping = new DampingTerm(subspace, state, this.elastic, kernels);
    const surfacePoints = kernels && new SurfacePointKernels(kernels, subspace);
    this.springs = new SpringTerm(subspace, state, this.grabs, this.origin, surfacePoints);
    this.contact = new ContactTerm(subspace, state, this.origin, this.size, surfacePoints);
    this.terms = [this.inertia, this.elastic, this.external, this.damping, this.springs, this.contact];
    this.stepStart = { q: this.q, velocity: this.velocity, normalForce: this.contact.normalForce, lastCorrection: this.lastCorrection, quat: this.quat };
    const capacity = this.contact.contacts.capacity;
    this.contactSnapshot = new ContactSnapshot(capacity);
    this.preconditioner = new Preconditioner(n, this.m, surfacePoints?.rows ?? subspace.surfaceRows, capacity, this.options.factorWorkPerStep > 0 ? this.options.factorWorkPerStep : Infinity, kernels);
    this.baseMatrix = new BaseMatrix(n, this.preconditionerStep, [this.inertia, this.elastic, this.damping], this.springs, this.grabs, this.preconditioner);
    this.minimiser = new LbfgsMinimiser(n, kernels);
    this.foldRelease = new FoldRelease(subspace);
    this.objective = new IncrementalPotential(this.terms, this.elastic, this.inertia, this.preconditioner, state.rotation, () => this.totalMass, this.size);
    this.applyMaterial();
  }

  /** kg. */
  get totalMass(): number {
    return this.material.density * this.subspace.massVolume;
  }

  /** The body's rotation at the last step's prediction (row-major 3x3). */
  get rotation(): Float64Array {
    return this.state.rotation;
  }

  // ----- configuration -------------------------------------------------------------------------------

  setMaterial(material: Material): void {
    validateMaterial(material);
    this.material = { ...material };
    this.applyMaterial();
  }

  setDamping(beta: number): void {
    validateOptions({ ...this.options, damping: beta });
    this.options.damping = beta;
    this.damping.beta = beta;
    this.baseMatrix.materialChanged();
  }

  addContactSurface(surface: ContactSurface): void {
    this.contact.surfaces.push(surface);
  }

  /**
   * Holds the given points (rest positions + weights) at their current world positions with a penalty spring
   * of `stiffness` N/m each (default: stiff against the material). Returns the number of pinned points.
   */
  pin(points: WeightedPoints, stiffness?: number): number {
    const rows = basisRows(points, this.subspace.handles);
    const count = points.positions.length / 3;
    if (count === 0) throw new SimParameterError("pin needs at least one point");
    // By default far stiffer than the material over the body's size, so a clamp barely moves.
    const k = stiffness ?? (1e3 * this.material.youngsModulus * this.size) / Math.max(1, Math.sqrt(this.subspace.surfaceCount));
    if (!(k > 0) || !Number.isFinite(k)) throw new SimParameterError(`pin stiffness must be positive, got ${k}`);
    this.springs.pin(rows, points.positions, this.q, k);
    this.baseMatrix.springsChanged();
    return count;
  }

  /**
   * Adds a force (N, world axes) at point i of a set (basis rows, as from basisRows) for the next step only: how
   * a rigid prop pushing on the body reaches the solver.
   */
  applyForceAt(rows: Float64Array, i: number, fx: number, fy: number, fz: number): void {
    if (!Number.isFinite(fx) || !Number.isFinite(fy) || !Number.isFinite(fz)) throw new SimParameterError("force must be finite");
    this.external.addPointForce(rows, i, fx, fy, fz);
  }

  /**
   * Adds a generalised force (n numbers, B^T f of a force field: the rig's inertia on a character's flesh) for the
   * next step only.
   */
  addGeneralisedForce(force: ArrayLike<number>): void {
    this.external.addGeneralisedForce(force);
  }

  /**
   * Where the surface samples are with q = 0, for bodies whose q is a displacement on top of a prescribed motion (a
   * character's rig pose, in the body's frame): contacts and grabs then act on the samples where they are. The
   * elastic energy still measures q from the rest shape. The subspace must be this body's own: it holds them.
   */
  setSurfacePose(positions: ArrayLike<number>): void {
    if (positions.length !== this.subspace.surfaceRest.length) throw new SimParameterError(`surface pose must have ${this.subspace.surfaceRest.length} numbers`);
    this.subspace.surfaceRest.set(positions);
  }

  /** Keeps the state on a constraint from the next step on (null: none). */
  setConstraint(constraint: StateConstraint | null): void {
    this.objective.constraint = constraint;
  }

  // ----- grabs ---------------------------------------------------------------------------------------

  /**
   * Grabs the surface near a world point. Returns a grab id (>= 0), or -1 when no surface sample lies within
   * the radius. Move it with moveGrab, let go with release.
   */
  grab(x: number, y: number, z: number, options: GrabOptions = {}): number {
    if (![x, y, z].every(Number.isFinite)) throw new SimParameterError("grab point must be finite");
    const s = this.subspace;
    this.positions(s.surfaceRows, s.surfaceRest, this.surfacePositions);
    return this.grabs.grabNearest(this.surfacePositions, x, y, z, options.radius ?? GRAB_RADIUS_FRACTION * this.size, options.stiffness ?? this.defaultGrabStiffness());
  }

  /**
   * Recreates a grab exactly as another copy of this body made it (a server's, for a client that predicts): the
   * same surface samples held at the same offsets from the target. Returns the grab id.
   */
  grabExactly(samples: ArrayLike<number>, offsets: ArrayLike<number>, x: number, y: number, z: number, stiffness?: number): number {
    if (![x, y, z].every(Number.isFinite)) throw new SimParameterError("grab point must be finite");
    return this.grabs.grabExactly(samples, offsets, x, y, z, stiffness ?? this.defaultGrabStiffness());
  }

  /** How far (m, mean over its samples) a grab's samples are from where it pulls them: how hard it is pulling. */
  grabStretch(id: number): number {
    return this.grabs.stretch(id, this.q, this.origin, this.pointScratch, this.fScratch);
  }

  /** The surface samples a grab holds and their offsets from its target (to recreate it elsewhere). */
  grabbedSamples(id: number): { samples: number[]; offsets: number[] } {
    return this.grabs.grabbedSamples(id);
  }

  /** Moves a grab's target (world metres); an optional row-major rotation turns the held patch. */
  moveGrab(id: number, x: number, y: number, z: number, rotation?: ArrayLike<number>): void {
    this.grabs.move(id, x, y, z, rotation);
  }

  release(id: number): void {
    this.grabs.release(id);
  }

  isGrabbing(id: number): boolean {
    return this.grabs.has(id);
  }

  /** Grabs held now. */
  activeGrabs(): number {
    return this.grabs.held();
  }

  /** Whether point forces wait for the next step (applyForceAt). */
  hasPendingForce(): boolean {
    return this.external.hasPointForces;
  }

  // ----- state ---------------------------------------------------------------------------------------

  /** Mass-weighted RMS speed of the material, m/s. */
  rmsSpeed(): number {
    return Math.sqrt(this.inertia.massNorm2(this.velocity) / this.totalMass);
  }

  /** Everything the next step starts from, into `into` (saved-state.ts); restoreState puts it back whole. */
  saveState(into: SavedBodyState): void {
    copyStepStart(this.stepStart, into);
    into.lastConverged = this.lastConverged;
    this.history.copyTo(into.history);
  }

  restoreState(from: SavedBodyState): void {
    copyStepStart(from, this.stepStart);
    this.lastConverged = from.lastConverged;
    this.history.copyFrom(from.history);
    this.foldRelease.restart();
  }

  /** Stops all motion where the body is (it keeps its shape; the next step starts from rest). */
  stopMotion(): void {
    this.velocity.fill(0);
    this.history.restart();
  }

  /** Back to the rest shape at the origin, at rest. */
  reset(): void {
    this.q.fill(0);
    this.velocity.fill(0);
    this.contact.normalForce.fill(0);
    this.quat.set(IDENTITY_QUATERNION);
    this.forgetSolverHistory();
  }

  /** What the solver learnt from past steps (warm start, BDF2 history) no longer applies. */
  private forgetSolverHistory(): void {
    this.lastCorrection.fill(0);
    this.lastConverged = true;
    this.foldRelease.restart();
    this.history.restart();
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
    // Friction is lagged on the normal forces: re-derive them at the new state, or a resting body would lose its
    // grip for a step each time a client reconciles.
    this.contact.updateNormalForces(this.q);
    this.forgetSolverHistory();
  }

  // ----- queries ---------------------------------------------------------------------------------------

  /** World position of point i of a set (basis rows + rest positions) into out[o..o+2]. */
  pointPosition(rows: Float64Array, rest: Float64Array, i: number, out: Float64Array, o: number): void {
    this.positionAt(this.q, rows, rest, i, out, o);
  }

  /** World position of point i of a set for any coordinates q (a snapshot, an interpolated state): origin + rest + b(x) . q_a. */
  positionAt(q: Float64Array, rows: Float64Array, rest: Float64Array, i: number, out: Float64Array, o: number): void {
    pointPositionAt(q, this.m, this.origin, rows, rest, i, out, o);
  }

  /** World positions of a whole point set (rows from basisRows) into out (3N). */
  positions(rows: Float64Array, rest: Float64Array, out: Float64Array): void {
    const count = rest.length / 3;
    for (let i = 0; i < count; i++) this.pointPosition(rows, rest, i, out, 3 * i);
  }

  /** Mass centroid (world) into out. */
  centroid(out: Float64Array): void {
    massCentroidAt(this.subspace, this.origin, this.q, out);
  }

  energies(): Energies {
    const kinetic = 0.5 * this.inertia.massNorm2(this.velocity);
    const elastic = this.elastic.energy(this.q);
    const centre = this.pointScratch;
    this.centroid(centre);
    const g = this.options.gravity;
    const potential = -this.totalMass * (g[0] * centre[0] + g[1] * centre[1] + g[2] * centre[2]);
    return { kinetic, elastic, potential };
  }

  /** Elastic energy and its gradient dE/dq at q (tests check rigid motions give zero of both). */
  elasticEnergyAndGradient(q: Float64Array, gradient: Float64Array): number {
    gradient.fill(0);
    return this.elastic.accumulateScaled(q, gradient, 1);
  }

  // ----- the step ----------------------------------------------------------------------------------------

  /** One time step; past `deadline` (performance.now, ms) the solve stops after its first iteration, unconverged. */
  step(deadline = Infinity): StepStats {
    const q = this.q, v = this.velocity, state = this.state, o = this.options;
    const foldReleased = this.releaseFold();
    this.history.predict(q, v, o.dt, state);
    this.updateRotation();
    this.baseMatrix.update();
    this.contact.gather();
    this.contact.snapshot(this.contactSnapshot, this.preconditionerStep);
    const installedBefore = this.preconditioner.installed;
    this.preconditioner.prepare(this.contactSnapshot);

    const result = this.solve(deadline);

    if (!allFinite(q)) {
      // Never let a bad step poison the state: keep the last good one, at rest.
      q.set(this.qStart);
      v.fill(0);
      this.forgetSolverHistory();
    } else {
      // Drift along directions that move nothing would grow without bound (and cost snapshot precision). Only
      // the solve adds such components: the history and the velocity are combinations of projected states.
      removeNullComponents(this.subspace, q);
      // The minimiser's steps kept it there; this takes out their rounding.
      this.objective.constraint?.project(q);
      this.history.accept(q, v, this.qStart, state);
      this.objective.constraint?.project(v);
      this.contact.updateNormalForces(q);
      // The released fold's energy leaves with it: the step that settles the rest shape on its support ends still.
      if (foldReleased) this.stopMotion();
    }
    this.external.clearPointForces();
    const stats = this.stats;
    stats.iterations = result.iterations;
    stats.refactored = this.preconditioner.installed !== installedBefore;
    stats.contacts = this.contact.contacts.count;
    stats.converged = result.converged;
    stats.cutShort = result.cutShort;
    stats.foldReleased = foldReleased;
    return stats;
  }

  // ----- internals ---------------------------------------------------------------------------------------

  /** Rotation of the body at the prediction, from its volume-averaged deformation gradient. */
  private updateRotation(): void {
    const f = this.fScratch;
    meanDeformationGradient(this.subspace, this.state.xHat, f);
    extractRotation(f, this.quat, 8);
    quaternionToMatrix(this.quat, this.state.rotation);
  }

  private solve(deadline: number) {
    const q = this.q, n = this.n, xh = this.state.xHat, qt = this.trial, g = this.grad, o = this.options;
    this.qStart.set(q);
    // Warm start: the prediction plus last step's correction (forces change slowly from step to step), unless
    // staying put is already lower (violent input can make that a wildly stretched state).
    for (let i = 0; i < n; i++) qt[i] = xh[i] + this.lastCorrection[i];
    this.objective.constraint?.project(qt);
    this.objective.inversionFloor = -Infinity;
    let energy = this.objective.evaluate(qt, g);
    let startJ = this.elastic.minJ;
    let moved = 0;
    for (let i = 0; i < n; i++) {
      const d = qt[i] - q[i];
      this.gradStill[i] = d;
      moved += d * d;
    }
    // Only a body moving fast (over 5% of its size a step), or one whose last step ran out of budget (its
    // correction is no solution: repeating it ratcheted a stretched body up to 1e6 J), can predict worse than
    // standing still. Starting no higher than standing still keeps every step from adding energy.
    if (!this.lastConverged || (moved > 0 && this.inertia.massNorm2(this.gradStill) > 0.0025 * this.size * this.size * this.totalMass) || !Number.isFinite(energy)) {
      const still = this.objective.evaluate(q, this.gradStill);
      if (still < energy || !Number.isFinite(energy)) {
        qt.set(q);
        g.set(this.gradStill);
        energy = still;
        startJ = this.elastic.minJ;
      }
    }
    q.set(qt);
    this.objective.inversionFloor = startJ > 0 ? Math.min(0.2, 0.5 * startJ) : -Infinity;
    const result = this.minimiser.minimise(q, g, energy, this.objective, o.tolerance * this.size, o.maxIterations, o.maxIterations + 2, deadline);
    for (let i = 0; i < n; i++) this.lastCorrection[i] = q[i] - xh[i];
    this.lastConverged = result.converged;
    return result;
  }

  /**
   * Puts a body found resting in a fold (a local minimum of the reduced elastic energy away from the rest shape,
   * fold-release.ts) back in its rest shape where it lies. Only a body left to itself is judged: no hand, pin,
   * push or constraint (a character's flesh is a displacement on its rig's pose). True when it did.
   */
  private releaseFold(): boolean {
    const leftAlone = this.releasesFolds && this.objective.constraint === null && this.grabs.held() === 0 && this.springs.pins.length === 0 && !this.external.hasPointForces;
    if (!this.foldRelease.due(leftAlone, leftAlone ? this.rmsSpeed() : Infinity)) return false;
    const gradient = this.gradStill, q = this.q;
    const energy = this.elasticEnergyAndGradient(q, gradient);
    if (!(energy > foldJudgedAbove(this.totalMass, this.size))) return false;
    const centre = this.centreScratch;
    this.centroid(centre);
    for (let a = 0; a < 3; a++) centre[a] -= this.origin[a];
    if (!this.foldRelease.folded(q, energy, gradient, centre, this.quat)) return false;
    q.set(this.foldRelease.placement);
    this.velocity.fill(0);
    this.contact.updateNormalForces(q);
    this.forgetSolverHistory();
    return true;
  }

  private applyMaterial(): void {
    const lame = lameParameters(this.material);
    this.elastic.setLame(lame.mu, lame.lambda, lame.lambdaStable);
    this.inertia.density = this.material.density;
    this.external.density = this.material.density;
    this.damping.beta = this.options.damping;
    this.contact.setPenalty(this.totalMass, this.subspace.surfaceCount, { stiffness: this.options.contactStiffness, dampingRatio: this.options.contactDamping, friction: this.options.friction });
    this.baseMatrix.materialChanged();
  }

  /** N/m: the default total stiffness of one grab. */
  defaultGrabStiffness(): number {
    const held = this.totalMass * (2 * Math.PI * this.options.grabFrequency) ** 2;
    return Math.max(held, this.options.grabModulusScale * this.material.youngsModulus * this.size);
  }
}

const IDENTITY_QUATERNION = [0, 0, 0, 1];
