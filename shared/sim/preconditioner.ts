// The matrix the quasi-Newton iterations are preconditioned with, in the body's own frame: P0 = M + (h^2 + h
// beta) K_rest + h^2 (pins + grabs), plus the contacts' Hessian while there are any. A rigid rotation R of the
// whole body turns a body-frame matrix into (R (x) I) P (R^T (x) I) exactly, so a factor stays valid however the
// body turns; solves rotate the right-hand side instead. Contacts push along world normals: they are factored
// with their normals turned into the body frame, and re-factored when those change.
//
// Bounded cost: a new factor (a grab starts, contacts change) is never computed inside one step. A factor job
// assembles and factors the new matrix a slice at a time (`workPerStep` multiply-adds a step) while the solves
// keep using the best factor at hand; the quasi-Newton iterations absorb the difference meanwhile. Contacts are
// too stiff for that on impact (a body would sink for the few steps the job takes), so while the factor in use
// holds no contacts, their Hessian C enters as a low-rank Woodbury correction: its Nystrom approximation on the
// body's affine motions A (the constant channel's 12 coordinates), C A (A^T C A)^+ A^T C, exact for the
// motions that contacts resist most (pushing in, tipping, squashing) and costing 12 solves to set up.

import { AffineContactCorrection } from "./affine-correction";
import { allocate } from "./kernels/allocate";
import type { SolverKernels } from "./kernels/solver-kernels";
import { choleskyColumns, choleskySolve } from "./linalg";
import { ContactSnapshot } from "./energy/contact";
import { ContactHessianAssembler } from "./contact-hessian";

type Kind = "base" | "contact";

/**
 * A contact factor gets this many times a step's factoring work: until it is ready, the contacts' low-rank
 * stand-in costs more iterations than the factoring (spot thrown at 1 m/s, 17 handles: 8.3 evaluations a step
 * instead of 11.4). A new base factor (a grab came or went) is not hurried: in a crowded room hands come and go
 * every few steps, and the work would mostly be thrown away.
 */
const CONTACT_WORK_SCALE = 2.5;

interface Factor {
  matrix: Float64Array;
  /** Version of P0 it was built from (-1: none yet). */
  version: number;
  contacts: ContactSnapshot;
}

/** A factorisation in progress: P0 (+ contacts) assembled and factored a slice at a time. */
interface Job {
  kind: Kind;
  matrix: Float64Array;
  version: number;
  contacts: ContactSnapshot;
  /** Contacts added so far, whether their sums are in the matrix, then Cholesky columns done. */
  contactsDone: number;
  contactsFinished: boolean;
  columnsDone: number;
  running: boolean;
}

export class Preconditioner {
  /** Assembled P0 for the current version (kept to start jobs from). */
  readonly base: Float64Array;
  private baseVersion = -1;
  private readonly factors: Record<Kind, Factor>;
  private readonly job: Job;
  private active: Factor | undefined;
  private readonly scratch: Float64Array;
  /** Factors installed so far (for step statistics). */
  installed = 0;
  private readonly correction: AffineContactCorrection;
  private readonly assembler: ContactHessianAssembler;
  private correcting = false;
  /** The contacts and the P0 version the correction was built for (rebuilt when either moves on). */
  private readonly correctedContacts: ContactSnapshot;
  private correctedVersion = -1;
  /** x <- F^-1 x with the active factor F (the correction's inner solve). */
  private readonly solveActive: (x: Float64Array) => void;
  /** linalg.choleskyColumns, on the kernels when there are. */
  private readonly factorColumns: (a: Float64Array, from: number, to: number) => boolean;

  /**
   * `rows`: the surface samples' basis rows. With `kernels`, the factors live in their memory and solves and the
   * contacts' sums run there (`rows` must then be in their memory too).
   */
  constructor(readonly n: number, readonly m: number, rows: Float64Array, capacity: number, readonly workPerStep: number, kernels: SolverKernels | null = null) {
    const make = (): Factor => ({ matrix: allocate(kernels, n * n), version: -1, contacts: new ContactSnapshot(capacity) });
    this.base = new Float64Array(n * n);
    this.factors = { base: make(), contact: make() };
    this.job = { kind: "base", matrix: allocate(kernels, n * n), version: -1, contacts: new ContactSnapshot(capacity), contactsDone: 0, contactsFinished: false, columnsDone: 0, running: false };
    this.scratch = allocate(kernels, n);
    this.solveActive = kernels
      ? (x) => kernels.choleskySolve(n, (this.active ?? this.factors.base).matrix, x)
      : (x) => choleskySolve((this.active ?? this.factors.base).matrix, n, x);
    this.factorColumns = kernels ? (a, from, to) => kernels.choleskyColumns(n, a, from, to) : (a, from, to) => choleskyColumns(a, n, from, to);
    this.correction = new AffineContactCorrection(n, m, rows, kernels);
    this.correctedContacts = new ContactSnapshot(capacity);
    this.assembler = new ContactHessianAssembler(m, capacity, rows, kernels);
  }

  /** Call after writing a new P0 into `base`; `version` must grow with every change. */
  setBase(version: number): void {
    this.baseVersion = version;
    if (this.factors.base.version < 0) this.factorBaseNow();
  }

  /**
   * Picks the factor for this step given the predicted contacts (body-frame normals), and advances the pending
   * factorisation by one slice.
   */
  prepare(contacts: ContactSnapshot): void {
    const kind: Kind = contacts.count > 0 ? "contact" : "base";
    const wanted = this.factors[kind], contact = this.factors.contact, base = this.factors.base, job = this.job;
    const current = wanted.version === this.baseVersion && (kind === "base" || wanted.contacts.similarTo(contacts));
    if (!current) {
      // P0's own factor first when it is out of date: it is what contacts that keep changing are corrected on
      // (a tumbling body's contact factors may never finish).
      const build: Kind = base.version !== this.baseVersion ? "base" : kind;
      // Keep a job that will deliver that kind for this P0 and roughly these contacts.
      const keep = job.running && job.kind === build && job.version === this.baseVersion && (build === "base" || job.contacts.overlaps(contacts));
      if (!keep) this.startJob(build, contacts);
      this.advance(build === "contact" ? CONTACT_WORK_SCALE * this.workPerStep : this.workPerStep);
    }
    // A contact factor that shares most of today's contacts still preconditions well, even for an older P0.
    const usable = kind === "contact" && contact.version >= 0 && contact.contacts.overlaps(contacts);
    this.active = usable ? contact : base.version >= 0 ? base : contact;
    // Without a factor that knows them, today's contacts enter as a low-rank correction of P0's factor.
    this.correcting = kind === "contact" && !usable && this.active === base;
    if (this.correcting && (this.correctedVersion !== base.version || !this.correctedContacts.similarTo(contacts))) {
      this.correction.build(contacts, this.solveActive);
      this.correctedContacts.copyFrom(contacts);
      this.correctedVersion = base.version;
    }
  }

  private startJob(kind: Kind, contacts: ContactSnapshot): void {
    const job = this.job;
    job.kind = kind;
    job.version = this.baseVersion;
    job.matrix.set(this.base);
    if (kind === "contact") job.contacts.copyFrom(contacts);
    else job.contacts.count = 0;
    job.contactsDone = 0;
    job.contactsFinished = job.contacts.count === 0;
    if (!job.contactsFinished) this.assembler.begin(job.contacts);
    job.columnsDone = 0;
    job.running = true;
  }

  /** Does up to `work` multiply-adds of the job; installs its factor when done. False if the matrix was not positive definite. */
  private advance(work: number): boolean {
    const job = this.job, n = this.n;
    if (!job.running) return true;
    const assembler = this.assembler, total = job.contacts.count;
    while (work > 0 && job.contactsDone < total) {
      const end = Math.min(total, job.contactsDone + Math.max(1, Math.floor(work / assembler.contactCost)));
      assembler.add(job.contacts, job.contactsDone, end);
      work -= (end - job.contactsDone) * assembler.contactCost;
      job.contactsDone = end;
    }
    if (work > 0 && !job.contactsFinished) {
      assembler.finish(job.matrix);
      work -= assembler.finishCost;
      job.contactsFinished = true;
    }
    while (work > 0 && job.columnsDone < n) {
      let to = job.columnsDone;
      // Column j costs j (n - j) + n.
      while (to < n && work > 0) {
        work -= to * (n - to) + n;
        to++;
      }
      if (!this.factorColumns(job.matrix, job.columnsDone, to)) {
        // Cannot happen for an SPD P0 plus PSD contacts; if rounding ever says otherwise, keep the old factor.
        job.running = false;
        return false;
      }
      job.columnsDone = to;
    }
    if (job.columnsDone === n) this.install();
    return true;
  }

  private install(): void {
    const job = this.job, target = this.factors[job.kind];
    const spare = target.matrix;
    target.matrix = job.matrix;
    job.matrix = spare;
    target.version = job.version;
    target.contacts.copyFrom(job.contacts);
    job.running = false;
    this.installed++;
  }

  /** Factors P0 at once (a body's very first factor: there is nothing to fall back on). */
  private factorBaseNow(): void {
    this.startJob("base", this.factors.contact.contacts);
    if (!this.advance(Infinity)) throw new Error("the preconditioner is not positive definite (check the material and the subspace)");
  }

  /** x <- P^-1 x for the body's current rotation (row-major 3x3). */
  solve(x: Float64Array, rotation: Float64Array): void {
    const m = this.m, tmp = this.scratch;
    // tmp = (R^T (x) I) x
    for (let a = 0; a < 3; a++) {
      const r0 = rotation[a], r1 = rotation[3 + a], r2 = rotation[6 + a];
      for (let i = 0; i < m; i++) tmp[a * m + i] = r0 * x[i] + r1 * x[m + i] + r2 * x[2 * m + i];
    }
    if (this.correcting) this.correction.solve(tmp, this.solveActive);
    else this.solveActive(tmp);
    // x = (R (x) I) tmp
    for (let a = 0; a < 3; a++) {
      const r0 = rotation[3 * a], r1 = rotation[3 * a + 1], r2 = rotation[3 * a + 2];
      for (let i = 0; i < m; i++) x[a * m + i] = r0 * tmp[i] + r1 * tmp[m + i] + r2 * tmp[2 * m + i];
    }
  }
}
