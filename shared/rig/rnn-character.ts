// A character whose flesh comes from a small recurrent network (DSNet's idea) instead of the solver: trained on our
// solver's complementary soft part (models/train/secondary.py), it reads the rig's recent motion each step (every
// joint's velocity and acceleration, rig-motion.ts `kinematics`, and the character's size) and answers with the
// soft part's coordinates q. It is run by an injected onnxruntime (node on the server and in CLIs, web in pages),
// at the fixed step it was trained at, carrying its hidden state from run to run. A run can take several steps at
// once (a sequence), which is how a room's ticks queue their steps without ever waiting for one.

import type { OrtModule, OrtSession, OrtTensor } from "../skinning/onnx-provider";
import { rigOf } from "../skinning/baked-rig";
import { handleCount, type BakedBody } from "../skinning/baked-body";
import type { Rig } from "../skeleton/rig";
import { KINEMATIC_FEATURES, RigMotion } from "./rig-motion";
import { FleshLimit } from "./flesh-limit";
import { inTurn } from "../skinning/ort-turns";

/** What the trained network says of itself (models/secondary-*.json). */
export interface SecondaryModelInfo {
  /** Inputs per step, outputs per step (the subspace's 3 m), the GRU's state size. */
  featureCount: number;
  n: number;
  hidden: number;
  /** The step it was trained at, s. */
  dt: number;
  /** The clips and character sizes (m) of its training data, and the solver's flesh it imitates. */
  clips: string[];
  sizes: number[];
  material: { youngsModulus: number; poissonRatio: number; density: number; damping: number };
}

/** Inputs per step for a rig: KINEMATIC_FEATURES per joint, then the size. */
export function secondaryFeatureCount(rig: Rig): number {
  return KINEMATIC_FEATURES * rig.jointNodes.length + 1;
}

/** One step's inputs from a motion advanced to it, into out[offset..offset + secondaryFeatureCount). */
export function writeSecondaryFeatures(motion: RigMotion, size: number, dt: number, out: Float32Array, offset: number): void {
  motion.kinematics(dt, out, offset);
  out[offset + KINEMATIC_FEATURES * motion.rig.jointNodes.length] = size;
}

/** The network itself, streaming: each run continues from the hidden state the last one left. */
export class SecondaryNetwork {
  private hidden: OrtTensor;
  /** Counts resets, so that a run started before one does not hand its state to the motion after it. */
  private resets = 0;
  /** Runs so far and the milliseconds they took (what a page reports of its network). */
  runs = 0;
  ms = 0;

  private constructor(
    private readonly ort: OrtModule, private readonly session: OrtSession, readonly info: SecondaryModelInfo,
    /** The execution provider the session runs on ("webgpu", "wasm"; "default": the runtime's own choice). */
    readonly provider: string,
    /** The providers tried before it and why each declined ("webgpu: <its error>"). */
    readonly declined: string[],
    private readonly inTurns: boolean,
  ) {
    this.hidden = this.zeroState();
  }

  /**
   * Opens the network on the first of `executionProviders` that takes it (one at a time, so the provider it runs
   * on is known: a list given to onnxruntime at once falls back silently), or on the runtime's default. With
   * `inTurns` (onnxruntime-web, which takes one request at a time) everything it asks of `ort` waits its turn
   * behind the other networks' (ort-turns.ts); onnxruntime-node runs them side by side.
   */
  static async create(ort: OrtModule, model: Uint8Array, info: SecondaryModelInfo, executionProviders?: string[], options: { inTurns?: boolean } = {}): Promise<SecondaryNetwork> {
    const inTurns = options.inTurns === true;
    const opened = (sessionOptions: Record<string, unknown>) => turn(ort, inTurns, () => ort.InferenceSession.create(model, sessionOptions));
    if (!executionProviders?.length) return new SecondaryNetwork(ort, await opened({}), info, "default", [], inTurns);
    const declined: string[] = [];
    for (const provider of executionProviders) {
      try {
        return new SecondaryNetwork(ort, await opened({ executionProviders: [provider] }), info, provider, declined, inTurns);
      } catch (error) {
        declined.push(`${provider}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    throw new Error(`no execution provider opened the secondary-motion network (${declined.join("; ")})`);
  }

  /** Forget the motion seen so far (a character that jumped, or one that starts again). */
  reset(): void {
    this.resets++;
    this.hidden = this.zeroState();
  }

  /** `steps` steps of inputs (steps x featureCount) -> the soft part after each (steps x n). */
  async run(features: Float32Array, steps: number): Promise<Float32Array> {
    const { featureCount, n } = this.info;
    if (features.length < steps * featureCount) throw new Error(`${steps} steps need ${steps * featureCount} inputs, got ${features.length}`);
    const input = new this.ort.Tensor("float32", features.subarray(0, steps * featureCount), [steps, 1, featureCount]);
    const resets = this.resets;
    // The state is read when the run starts (after any run queued before it) and kept only if no reset came since.
    const out = await turn(this.ort, this.inTurns, async () => {
      const started = performance.now();
      const answer = await this.session.run({ features: input, hidden: resets === this.resets ? this.hidden : this.zeroState() });
      this.ms += performance.now() - started;
      this.runs++;
      if (resets === this.resets) this.hidden = answer.hidden_out;
      return answer;
    });
    const q = out.q.data as Float32Array;
    if (q.length !== steps * n) throw new Error(`the secondary-motion network gave ${q.length} numbers for ${steps} steps of ${n}`);
    return q;
  }

  async release(): Promise<void> {
    await turn(this.ort, this.inTurns, async () => this.session.release?.());
  }

  private zeroState(): OrtTensor {
    return new this.ort.Tensor("float32", new Float32Array(this.info.hidden), [1, 1, this.info.hidden]);
  }
}

/** `work` in its turn on `ort` (inTurn) when the runtime takes one request at a time, else at once. */
function turn<T>(ort: OrtModule, inTurns: boolean, work: () => Promise<T>): Promise<T> {
  return inTurns ? inTurn(ort, work) : work();
}

/** Steps a room may queue while a run is in flight; more means the runtime has stalled, and the oldest are dropped. */
const MAX_QUEUED_STEPS = 30;

/**
 * The learned layer on a rigged character: the rig's motion (posing, framing and its kinematics) and the network.
 * `step` waits for each step's answer (CLIs, evals); `queueStep` never waits (a room's tick, a page's frame): it
 * queues the step's inputs, starts a run of everything queued when none is in flight, and `q` holds the latest
 * answer, at most a run behind.
 */
export class RnnCharacter {
  readonly motion: RigMotion;
  /** The soft part's coordinates, as of step `answeredSteps`. */
  readonly q: Float64Array;
  answeredSteps = 0;
  /** Steps queued or taken so far. */
  queuedSteps = 0;
  /** Steps dropped because the runtime fell behind (the hidden state then skipped them). */
  droppedSteps = 0;
  private readonly queue: Float32Array;
  private queued = 0;
  private inFlight: Promise<void> | null = null;
  private failure: Error | null = null;
  /** The network extrapolates on motions it never saw: its answers are kept within what looks like flesh too. */
  private readonly limit: FleshLimit;

  /** `motion`: a motion someone else advances (a room's solver character's), else its own. */
  constructor(baked: BakedBody, readonly size: number, readonly network: SecondaryNetwork, motion?: RigMotion) {
    const rig = rigOf(baked);
    if (!rig) throw new Error("a character needs a rigged bake");
    const info = network.info;
    if (secondaryFeatureCount(rig) !== info.featureCount) throw new Error(`the secondary-motion network reads ${info.featureCount} inputs a step; this rig gives ${secondaryFeatureCount(rig)}`);
    if (3 * 4 * handleCount(baked) !== info.n) throw new Error(`the secondary-motion network answers ${info.n} coordinates; this bake has ${3 * 4 * handleCount(baked)}`);
    this.motion = motion ?? new RigMotion(rig, baked, size);
    this.q = new Float64Array(info.n);
    this.queue = new Float32Array(MAX_QUEUED_STEPS * info.featureCount);
    this.limit = FleshLimit.of(baked, size);
  }

  get pose() {
    return this.motion.pose;
  }

  get dt(): number {
    return this.network.info.dt;
  }

  /** One step under the pose and frame set now, waiting for its answer. */
  async step(): Promise<void> {
    this.takeInputs();
    await this.runQueued();
  }

  /**
   * One step under the pose and frame set now, without waiting (see the class); `advance` false when the motion was
   * already advanced to it by its owner. Throws a run's failure, once.
   */
  queueStep(advance = true): void {
    if (this.failure) {
      const failure = this.failure;
      this.failure = null;
      throw failure;
    }
    this.takeInputs(advance);
    if (!this.inFlight) {
      this.inFlight = this.runQueued()
        .catch((error: Error) => { this.failure = error; })
        .finally(() => { this.inFlight = null; });
    }
  }

  /** Resolves once nothing is in flight (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** Forget the motion (after a jump): the kinematics and the network start again. */
  restart(): void {
    this.motion.restart();
    this.network.reset();
  }

  private takeInputs(advance = true): void {
    const count = this.network.info.featureCount;
    if (advance) this.motion.advance();
    if (this.queued === MAX_QUEUED_STEPS) {
      this.queue.copyWithin(0, count);
      this.queued--;
      this.droppedSteps++;
    }
    writeSecondaryFeatures(this.motion, this.size, this.dt, this.queue, this.queued * count);
    this.queued++;
    this.queuedSteps++;
  }

  private async runQueued(): Promise<void> {
    const steps = this.queued, count = this.network.info.featureCount, n = this.network.info.n;
    if (steps === 0) return;
    const batch = this.queue.slice(0, steps * count);
    this.queued = 0;
    const upTo = this.queuedSteps;
    const q = await this.network.run(batch, steps);
    for (let i = 0; i < n; i++) this.q[i] = q[(steps - 1) * n + i];
    this.limit.apply(this.q);
    this.answeredSteps = upTo;
  }
}
