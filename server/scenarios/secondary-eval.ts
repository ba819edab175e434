// How the layers of secondary motion compare with the solver on a clip none of them was fitted on: the solver at 60 Hz
// is the reference (the clip plays in place for a few seconds, then stops dead and holds its pose); each layer plays
// the same, and its soft part is compared with the reference's at the surface samples (RMS over samples and frames,
// while playing and after the stop), along with its cost per frame. Then every layer again at 15, 30, 60 and 90 Hz,
// compared with the same 60 Hz reference at the times all rates share (every 1/15 s). The learned layer (rnn) steps
// at the rate it was trained at (60 Hz) and is compared there; it is the shipped network, trained beforehand by
// `npm run train:secondary` on the clips it names (never on the held-out one).

import { displacementAt, FloorContact, type Material } from "../../shared/sim";
import { CharacterBody, complementarySprings, fitFloppiness, LinearCharacter, SpringCharacter, surfaceRms, VelocitySkinning, type SpringModel } from "../../shared/rig";
import { RnnCharacter } from "../../shared/rig/rnn-character";
import { createSecondaryNetwork, type SecondaryModelFiles } from "../characters/secondary-model";
import type { Subspace } from "../../shared/sim";
import type { LoadedBody } from "./body-from-mesh";
import { quantile } from "./run-scenario";

export const RATES_HZ = [15, 30, 60, 90] as const;
/** The clip plays this long, then holds its last pose this long. */
const PLAY_SECONDS = 4;
const HOLD_SECONDS = 2;
const REFERENCE_HZ = 60;
/** All rates share these instants. */
const COMMON_HZ = 15;

export interface LayerScore {
  /** RMS over surface samples and frames of the difference from the solver while playing, and after the stop, mm. */
  rmsErrorMm: number;
  stopErrorMm: number;
  /** Median cost of a frame (rig evaluation + the layer), ms. */
  msPerFrame: number;
}

export interface RateRow {
  hz: number;
  /** Error against the 60 Hz solver at the shared instants, mm (playing and stopped together); the largest soft RMS seen, mm. */
  sim: { errorMm: number; peakSoftRmsMm: number; finite: boolean };
  springs: { errorMm: number; peakSoftRmsMm: number; finite: boolean };
}

export interface SecondaryEval {
  mesh: string;
  train: string[];
  test: string;
  /** What showing no soft part at all would err by: the reference's own RMS, mm. */
  none: { rmsErrorMm: number; stopErrorMm: number };
  sim: { msPerFrame: number };
  springs: LayerScore & { complementary: true };
  /** The spring layer without the per-frame projection onto the complement (its cheapest form). */
  springsFree: LayerScore;
  /**
   * Velocity skinning's floppy term (shared/rig/velocity-skinning.ts), the free baseline: its floppiness (s) fitted
   * to the solver on the training clips.
   */
  velocitySkinning: LayerScore & { floppiness: number };
  /** The flesh's linearised complementary dynamics (shared/rig/linear-flesh.ts): nothing fitted, nothing trained. */
  linear: LayerScore;
  /** The learned layer (null when no network was given, or when it was trained on the test clip: `rnnSkipped` says). */
  rnn: (LayerScore & { trainedOn: string[]; sizes: number[]; parameters: number | null }) | null;
  rnnSkipped?: string;
  rates: RateRow[];
  /** The springs' directions, and the seconds their modes took to find. */
  springModel: { directions: number; buildSeconds: number };
}

interface Trace {
  q: Float64Array[];
  ms: number[];
}

export interface SecondaryOptions {
  loaded: LoadedBody;
  mesh: string;
  material: Material;
  damping: number;
  train: string[];
  test: string;
  /** The learned layer's network (models/secondary-NAME.*), if any. */
  secondary?: SecondaryModelFiles | null;
  /** Score the network on the test clip even when it was trained on it (else it is skipped there). */
  scoreTrainedClip?: boolean;
  onProgress?: (what: string) => void;
}

export async function evaluateSecondary(options: SecondaryOptions): Promise<SecondaryEval> {
  const { loaded, material, damping } = options;
  const baked = loaded.baked, size = loaded.size;
  options.onProgress?.("the spring layer's modes");
  const buildStart = performance.now();
  const model = complementarySprings(baked, size, material, damping);
  const buildSeconds = (performance.now() - buildStart) / 1000;
  const subspace = new CharacterBody(baked, size, material, { damping }).subspace;

  options.onProgress?.(`the solver on ${options.test}`);
  const reference = solverTrace(options, REFERENCE_HZ);
  const springs = springTrace(options, model, REFERENCE_HZ, true), free = springTrace(options, model, REFERENCE_HZ, false);
  const score = (trace: Trace): LayerScore => ({ ...errors(subspace, trace, reference), msPerFrame: median(trace.ms) });
  const zero: Trace = { q: reference.q.map((q) => new Float64Array(q.length)), ms: [] };
  const none = errors(subspace, zero, reference);
  const rnn = await rnnScore(options, subspace, reference);
  options.onProgress?.(options.train.length > 0 ? `velocity skinning, fitted on ${options.train.join(", ")}` : "velocity skinning (no other clip to fit on: floppiness 0)");
  const velocitySkinning = velocitySkinningScore(options, subspace, reference);
  options.onProgress?.(`the linearised dynamics on ${options.test}`);
  const linear = score(linearTrace(options, REFERENCE_HZ));

  const rates: RateRow[] = RATES_HZ.map((hz) => {
    options.onProgress?.(`both layers at ${hz} Hz`);
    const sim = hz === REFERENCE_HZ ? reference : solverTrace(options, hz);
    const spring = hz === REFERENCE_HZ ? springs : springTrace(options, model, hz, true);
    return { hz, sim: atCommonInstants(subspace, sim, hz, reference), springs: atCommonInstants(subspace, spring, hz, reference) };
  });
  return {
    mesh: options.mesh, train: options.train, test: options.test, none,
    sim: { msPerFrame: median(reference.ms) }, springs: { ...score(springs), complementary: true }, springsFree: score(free), velocitySkinning, linear,
    rnn: rnn.score, ...(rnn.skipped ? { rnnSkipped: rnn.skipped } : {}), rates,
    springModel: { directions: model.basis.count, buildSeconds: round(buildSeconds, 2) },
  };
}

function clipSampler(names: string[], name: string) {
  if (!names.includes(name)) throw new Error(`no clip "${name}": the rig has ${names.join(", ")}`);
}

function solverTrace(options: SecondaryOptions, hz: number, clipName = options.test): Trace {
  const { loaded, material, damping } = options, dt = 1 / hz;
  const character = new CharacterBody(loaded.baked, loaded.size, material, { dt, damping });
  clipSampler(character.rig.clips.map((c) => c.name), clipName);
  const clip = character.rig.clips.find((c) => c.name === clipName)!;
  character.body.addContactSurface(new FloorContact(character.motion.lowestPoint(clip)));
  return play(hz, clip.duration, (t) => character.pose.sample(clip, t), () => character.step(), () => character.body.q);
}

function springTrace(options: SecondaryOptions, model: SpringModel, hz: number, complementary: boolean): Trace {
  const character = new SpringCharacter(options.loaded.baked, options.loaded.size, model, { complementary }), dt = 1 / hz;
  clipSampler(character.motion.rig.clips.map((c) => c.name), options.test);
  const clip = character.motion.rig.clips.find((c) => c.name === options.test)!;
  return play(hz, clip.duration, (t) => character.pose.sample(clip, t), () => character.step(dt), () => character.q);
}

function linearTrace(options: SecondaryOptions, hz: number): Trace {
  const character = new LinearCharacter(options.loaded.baked, options.loaded.size, options.material, { damping: options.damping, dt: 1 / hz });
  clipSampler(character.motion.rig.clips.map((c) => c.name), options.test);
  const clip = character.motion.rig.clips.find((c) => c.name === options.test)!;
  return play(hz, clip.duration, (t) => character.pose.sample(clip, t), () => character.step(), () => character.q);
}

/** Velocity skinning on `clipName` at `floppiness`: each step's surface displacements (trace.q), and velocities. */
function velocityTrace(options: SecondaryOptions, floppiness: number, clipName: string): Trace & { velocities: Float64Array[] } {
  const layer = new VelocitySkinning(options.loaded.baked, options.loaded.size, floppiness), dt = 1 / REFERENCE_HZ;
  clipSampler(layer.motion.rig.clips.map((c) => c.name), clipName);
  const clip = layer.motion.rig.clips.find((c) => c.name === clipName)!;
  const velocities: Float64Array[] = [];
  const trace = play(REFERENCE_HZ, clip.duration, (t) => layer.pose.sample(clip, t), () => layer.step(dt), () => layer.displacement, () => velocities.push(Float64Array.from(layer.velocity)));
  return { ...trace, velocities };
}

function velocitySkinningScore(options: SecondaryOptions, subspace: Subspace, reference: Trace): SecondaryEval["velocitySkinning"] {
  const velocities: Float64Array[] = [], targets: Float64Array[] = [];
  for (const clip of options.train) {
    const solved = solverTrace(options, REFERENCE_HZ, clip);
    velocities.push(...velocityTrace(options, 0, clip).velocities);
    targets.push(...solved.q.map((q) => surfaceDisplacements(subspace, q)));
  }
  const floppiness = fitFloppiness(velocities, targets);
  const trace = velocityTrace(options, floppiness, options.test);
  const solverDisplacements = new Float64Array(subspace.surfaceRest.length);
  const scored = splitRms(reference.q.length, (s) => {
    const reached = surfaceDisplacements(subspace, reference.q[s], solverDisplacements), shown = trace.q[s];
    let sum = 0;
    for (let i = 0; i < reached.length; i++) sum += (shown[i] - reached[i]) ** 2;
    return sum / (reached.length / 3);
  });
  return { ...scored, msPerFrame: median(trace.ms), floppiness: round(floppiness, 6) };
}

/** The soft displacement B q at every surface sample (3 each). */
const at = new Float64Array(3);
function surfaceDisplacements(subspace: Subspace, q: Float64Array, out = new Float64Array(subspace.surfaceRest.length)): Float64Array {
  for (let i = 0; i < out.length / 3; i++) {
    displacementAt(subspace.surfaceRows, q, i, at);
    out.set(at, 3 * i);
  }
  return out;
}

async function rnnScore(options: SecondaryOptions, subspace: Subspace, reference: Trace): Promise<{ score: SecondaryEval["rnn"]; skipped?: string }> {
  const files = options.secondary;
  if (!files) return { score: null, skipped: "no secondary-motion network for this mesh (npm run train:secondary)" };
  const info = files.info;
  if (info.clips.includes(options.test) && !options.scoreTrainedClip) return { score: null, skipped: `the network was trained on ${info.clips.join(", ")}, which include the test clip ${options.test}` };
  if (Math.abs(info.dt - 1 / REFERENCE_HZ) > 1e-9) return { score: null, skipped: `the network steps at ${1 / info.dt} Hz, the reference at ${REFERENCE_HZ} Hz` };
  if (info.n !== subspace.n) return { score: null, skipped: `the network answers ${info.n} coordinates; this bake has ${subspace.n} (it was trained on another bake of the mesh)` };
  options.onProgress?.(`the learned layer on ${options.test}`);
  const network = await createSecondaryNetwork(files);
  try {
    const character = new RnnCharacter(options.loaded.baked, options.loaded.size, network);
    clipSampler(character.motion.rig.clips.map((c) => c.name), options.test);
    const clip = character.motion.rig.clips.find((c) => c.name === options.test)!;
    const trace = await playAsync(REFERENCE_HZ, clip.duration, (t) => character.pose.sample(clip, t), () => character.step(), () => character.q);
    return { score: { ...errors(subspace, trace, reference), msPerFrame: median(trace.ms), trainedOn: info.clips, sizes: info.sizes, parameters: (info as { training?: { parameters?: number } }).training?.parameters ?? null } };
  } finally {
    await network.release();
  }
}

/** As `play`, for a layer whose step is asynchronous (each step waits for its answer, which counts in the cost). */
async function playAsync(hz: number, duration: number, pose: (t: number) => void, step: () => Promise<void>, q: () => Float64Array): Promise<Trace> {
  const dt = 1 / hz, playing = Math.round(PLAY_SECONDS * hz), steps = playing + Math.round(HOLD_SECONDS * hz);
  const trace: Trace = { q: [], ms: [] };
  for (let s = 0; s < steps; s++) {
    const start = performance.now();
    pose((Math.min(s + 1, playing) * dt) % Math.max(duration, 1e-9));
    await step();
    trace.ms.push(performance.now() - start);
    trace.q.push(Float64Array.from(q()));
  }
  return trace;
}

/**
 * Plays a clip for PLAY_SECONDS then holds, at `hz`: pose, step, record q and whatever `record` keeps (the rig's
 * sampling counts in the cost, the records do not).
 */
function play(hz: number, duration: number, pose: (t: number) => void, step: () => void, q: () => Float64Array, record?: () => void): Trace {
  const dt = 1 / hz, playing = Math.round(PLAY_SECONDS * hz), steps = playing + Math.round(HOLD_SECONDS * hz);
  const trace: Trace = { q: [], ms: [] };
  for (let s = 0; s < steps; s++) {
    const start = performance.now();
    pose((Math.min(s + 1, playing) * dt) % Math.max(duration, 1e-9));
    step();
    trace.ms.push(performance.now() - start);
    trace.q.push(Float64Array.from(q()));
    record?.();
  }
  return trace;
}

function errors(subspace: Subspace, trace: Trace, reference: Trace): { rmsErrorMm: number; stopErrorMm: number } {
  const difference = new Float64Array(subspace.n);
  return splitRms(reference.q.length, (s) => {
    for (let i = 0; i < difference.length; i++) difference[i] = trace.q[s][i] - reference.q[s][i];
    return surfaceRms(subspace, difference) ** 2;
  });
}

/** RMS (mm) of a per-step mean square error (m^2) over the steps while the clip plays, and over those after the stop. */
function splitRms(steps: number, meanSquare: (step: number) => number): { rmsErrorMm: number; stopErrorMm: number } {
  const playing = Math.round(PLAY_SECONDS * REFERENCE_HZ);
  let play2 = 0, stop2 = 0;
  for (let s = 0; s < steps; s++) {
    if (s < playing) play2 += meanSquare(s);
    else stop2 += meanSquare(s);
  }
  return { rmsErrorMm: round(1000 * Math.sqrt(play2 / playing), 4), stopErrorMm: round(1000 * Math.sqrt(stop2 / (steps - playing)), 4) };
}

function atCommonInstants(subspace: Subspace, trace: Trace, hz: number, reference: Trace): { errorMm: number; peakSoftRmsMm: number; finite: boolean } {
  const difference = new Float64Array(subspace.n);
  let sum = 0, count = 0, peak = 0, finite = true;
  for (const q of trace.q) {
    const rms = surfaceRms(subspace, q);
    if (!Number.isFinite(rms)) finite = false;
    else peak = Math.max(peak, rms);
  }
  // Instant k / COMMON_HZ is step k hz / COMMON_HZ - 1 at this rate and k REFERENCE_HZ / COMMON_HZ - 1 in the reference.
  for (let k = 1; ; k++) {
    const own = (k * hz) / COMMON_HZ - 1, ref = (k * REFERENCE_HZ) / COMMON_HZ - 1;
    if (own >= trace.q.length || ref >= reference.q.length) break;
    for (let i = 0; i < difference.length; i++) difference[i] = trace.q[own][i] - reference.q[ref][i];
    sum += surfaceRms(subspace, difference) ** 2;
    count++;
  }
  return { errorMm: round(1000 * Math.sqrt(sum / count), 4), peakSoftRmsMm: round(1000 * peak, 4), finite };
}

function median(values: number[]): number {
  return round(quantile([...values].sort((a, b) => a - b), 0.5), 4);
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
