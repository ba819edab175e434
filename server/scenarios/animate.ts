// `npm run sim -- --scenario animate`: a rigged mesh plays a clip in place on a floor for `seconds`, then holds its
// last pose while the flesh settles. Each frame reports the rig's root, the soft part's RMS over the surface
// samples, how complementary it is (measured point by point on the mass samples) and its energy. The soft part
// comes from the solver (layer "sim"), from the spring layer (layer "springs", the flesh's own modes: nothing
// fitted), or from the shipped secondary-motion network (layer "rnn", models/secondary-NAME.onnx, trained by
// `npm run train:secondary`; it steps at the rate it was trained at).

import { FloorContact } from "../../shared/sim";
import { CharacterBody, ComplementarityMeter, complementarySprings, SpringCharacter, surfaceRms } from "../../shared/rig";
import { loadBody, type BodySetup } from "./body-from-mesh";
import { RnnCharacter } from "../../shared/rig/rnn-character";
import { createSecondaryNetwork, readSecondaryModel, secondaryModelName } from "../characters/secondary-model";
import { quantile } from "./run-scenario";

export const LAYERS = ["sim", "springs", "rnn"] as const;
export type Layer = (typeof LAYERS)[number];

/** How long the flesh is watched after the clip stops, s. */
export const SETTLE_SECONDS = 3;
/** The soft part has settled once it stays under this share of its level while the clip played. */
const SETTLED_SHARE = 0.1;

export interface AnimateOptions extends BodySetup {
  clip?: string;
  seconds: number;
  layer: Layer;
  youngsModulus: number;
  poissonRatio: number;
  density: number;
  damping: number;
  dt: number;
  onProgress?: (fraction: number) => void;
}

export interface AnimateFrame {
  t: number;
  /** Whether the clip was playing (false: holding its last pose). */
  playing: boolean;
  /** The rig's root joint, world metres. */
  root: [number, number, number];
  /** RMS of the soft displacement over the surface samples, m. */
  softRms: number;
  /** |J^T M u| / (|J| |M u|) at the frame's pose. */
  complementarity: number;
  energy: { kinetic: number; elastic: number };
}

export interface AnimateResult {
  scenario: "animate";
  mesh: string;
  clip: string;
  layer: Layer;
  /** rnn: the clips the network was trained on. */
  trainedOn?: string[];
  /** springs: each spring's natural frequency (Hz) and damping ratio. */
  springs?: { frequencyHz: number; dampingRatio: number }[];
  weights: string;
  handles: number;
  /** Directions of the subspace (12 (K + 1)), the rig's columns, and (sim) how many directions stayed complementary (min and max over frames). */
  subspace: number;
  rigColumns: number;
  complementaryDirections?: { min: number; max: number };
  dt: number;
  seconds: number;
  settleSeconds: number;
  /** The floor's height under the character (its lowest point over the clip), m. */
  floor: number;
  /** Per frame: the rig's evaluation (clip sampling and skinning matrices) and the soft step, ms. */
  rigMs: { median: number; p99: number };
  stepMs: { median: number; p99: number };
  frames: AnimateFrame[];
  summary: {
    worstComplementarity: number;
    /** Mean softRms while the clip played (after its first second), and the largest, m. */
    playingSoftRms: number;
    peakSoftRms: number;
    /** Seconds after the stop until softRms stays under 10% of playingSoftRms (null: not within settleSeconds). */
    decaySeconds: number | null;
  };
}

export async function runAnimate(options: AnimateOptions): Promise<AnimateResult> {
  const loaded = await loadBody(options);
  const baked = loaded.baked;
  if (baked.rigJointNodes.length === 0) throw new Error(`${options.mesh} has no rig: the animate scenario needs a skinned glTF with clips`);
  const material = { youngsModulus: options.youngsModulus, poissonRatio: options.poissonRatio, density: options.density };
  const character = new CharacterBody(baked, loaded.size, material, { dt: options.dt, damping: options.damping });
  const clips = character.rig.clips;
  const clip = options.clip === undefined ? clips[0] : clips.find((c) => c.name === options.clip);
  if (!clip) throw new Error(`no clip "${options.clip}" in ${options.mesh}: it has ${clips.map((c) => c.name).join(", ") || "none"}`);
  const floor = character.motion.lowestPoint(clip);
  character.body.addContactSurface(new FloorContact(floor));
  let springs: SpringCharacter | null = null, trainedOn: string[] | undefined;
  if (options.layer === "springs") {
    springs = new SpringCharacter(baked, loaded.size, complementarySprings(baked, loaded.size, material, options.damping));
  }
  let learned: RnnCharacter | null = null;
  if (options.layer === "rnn") {
    const files = await readSecondaryModel(secondaryModelName(options.mesh));
    if (!files) throw new Error(`no secondary-motion network for ${options.mesh}: train one with npm run train:secondary -- --mesh ${options.mesh}`);
    if (Math.abs(files.info.dt - options.dt) > 1e-9) throw new Error(`the network steps at ${1 / files.info.dt} Hz: run it with --dt ${files.info.dt}`);
    trainedOn = files.info.clips;
    learned = new RnnCharacter(baked, loaded.size, await createSecondaryNetwork(files));
  }
  const motion = springs ? springs.motion : learned ? learned.motion : character.motion;
  const learnedVelocity = new Float64Array(character.body.n), learnedPrevious = new Float64Array(character.body.n);
  const meter = new ComplementarityMeter(baked, loaded.size, motion.pose);

  const playingSteps = Math.round(options.seconds / options.dt), steps = playingSteps + Math.round(SETTLE_SECONDS / options.dt);
  const frames: AnimateFrame[] = [];
  const rigTimes = new Float64Array(steps), stepTimes = new Float64Array(steps);
  const root = new Float64Array(3);
  let fewest = Infinity, most = 0;
  for (let step = 0; step < steps; step++) {
    const t = (step + 1) * options.dt, playing = step < playingSteps;
    const clipTime = (playing ? t : playingSteps * options.dt) % Math.max(clip.duration, 1e-9);
    const start = performance.now();
    motion.pose.sample(clip, clipTime);
    rigTimes[step] = performance.now() - start;
    const stepStart = performance.now();
    if (springs) springs.step(options.dt);
    else if (learned) await learned.step();
    else character.step();
    stepTimes[step] = performance.now() - stepStart;
    if (!springs && !learned) {
      const complementary = character.body.n - character.projection.rank;
      fewest = Math.min(fewest, complementary);
      most = Math.max(most, complementary);
    }
    const j = motion.jointPositions;
    motion.toWorld(j[0], j[1], j[2], root);
    const q = springs ? springs.q : learned ? learned.q : character.body.q;
    if (learned) {
      // The network's flesh measured by the solver's body: its state set to the network's q and q's rate.
      for (let i = 0; i < q.length; i++) learnedVelocity[i] = (q[i] - learnedPrevious[i]) / options.dt;
      learnedPrevious.set(q);
      character.body.setState(q, learnedVelocity);
    }
    const energy = springs ? springs.layer.energies() : character.body.energies();
    frames.push({
      t: round(t, 6), playing, root: [round(root[0], 6), round(root[1], 6), round(root[2], 6)],
      softRms: surfaceRms(character.subspace, q), complementarity: meter.measure(q),
      energy: { kinetic: energy.kinetic, elastic: energy.elastic },
    });
    if (options.onProgress && step % 20 === 0) options.onProgress(step / steps);
  }
  const springTable = springs?.model.parameters;
  await learned?.network.release();
  return {
    scenario: "animate", mesh: options.mesh, clip: clip.name, layer: options.layer,
    ...(springs && springTable ? {
      springs: Array.from(springTable.stiffness, (k, i) => ({
        frequencyHz: round(Math.sqrt(k) / (2 * Math.PI), 3), dampingRatio: round(springTable.damping[i] / (2 * Math.sqrt(k)), 3),
      })),
    } : learned ? { trainedOn } : {}),
    weights: baked.provider,
    handles: baked.learnedHandles + 1, subspace: character.body.n, rigColumns: character.projection.rows,
    ...(springs || learned ? {} : { complementaryDirections: { min: fewest, max: most } }), dt: options.dt, seconds: options.seconds, settleSeconds: SETTLE_SECONDS,
    floor, rigMs: timing(rigTimes), stepMs: timing(stepTimes), frames, summary: summarise(frames, options.dt),
  };
}

function summarise(frames: AnimateFrame[], dt: number): AnimateResult["summary"] {
  const playing = frames.filter((f) => f.playing && f.t > 1);
  const level = playing.length ? playing.reduce((sum, f) => sum + f.softRms, 0) / playing.length : 0;
  const stop = frames.findIndex((f) => !f.playing);
  let decaySeconds: number | null = null;
  if (stop >= 0 && level > 0) {
    let last = frames.length;
    while (last > stop && frames[last - 1].softRms < SETTLED_SHARE * level) last--;
    if (last < frames.length) decaySeconds = round((last - stop + 1) * dt, 4);
  }
  return {
    worstComplementarity: Math.max(0, ...frames.map((f) => f.complementarity)),
    playingSoftRms: level,
    peakSoftRms: Math.max(0, ...frames.map((f) => f.softRms)),
    decaySeconds,
  };
}

function timing(times: Float64Array): { median: number; p99: number } {
  const sorted = Array.from(times).sort((a, b) => a - b);
  return { median: round(quantile(sorted, 0.5), 4), p99: round(quantile(sorted, 0.99), 4) };
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
