// The training data of the learned secondary-motion layer (rnn-character.ts): the solver's soft part (the
// complementary q of character-body.ts) under the rig motions of secondary-motions.ts, at each training size, with
// what the layer reads at every step (the rig's recent joint velocities and accelerations, and the size).

import { FloorContact, type Material } from "../../shared/sim";
import { CharacterBody, type RigClip } from "../../shared/rig";
import { secondaryFeatureCount, writeSecondaryFeatures } from "../../shared/rig/rnn-character";
import type { BakedBody } from "../../shared/skinning";
import { clipInPlace, proceduralMotion, type RigMotionScript } from "./secondary-motions";

export interface SecondaryDataOptions {
  clips: string[];
  /** Character sizes (m) the data covers; the size is one of the layer's inputs. */
  sizes: number[];
  /** Procedural seconds per size (besides each clip in place). */
  proceduralSeconds: number;
  /** Procedural motions per size (the seconds split between them; each starts from rest). */
  proceduralRuns: number;
  seed: number;
  dt: number;
  onProgress?: (what: string) => void;
}

export interface SecondarySequence {
  name: string;
  size: number;
  steps: number;
  /** steps x featureCount, then steps x n (the solver's q), row by row. */
  features: Float32Array;
  q: Float32Array;
}

export interface SecondaryData {
  clips: string[];
  dt: number;
  featureCount: number;
  /** Subspace coordinates (3 m). */
  n: number;
  /** The surface metric per component (m x m): mean over surface samples of rows^T rows, so q^T (I3 x G) q = RMS^2. */
  surfaceMetric: Float64Array;
  sequences: SecondarySequence[];
}

export function generateSecondaryData(baked: BakedBody, material: Material, damping: number, options: SecondaryDataOptions): SecondaryData {
  const sequences: SecondarySequence[] = [];
  let surfaceMetric: Float64Array = new Float64Array(0), n = 0, featureCount = 0;
  for (const size of options.sizes) {
    const probe = new CharacterBody(baked, size, material, { dt: options.dt, damping });
    const clips = options.clips.map((name) => clipNamed(probe.rig.clips, name));
    const floor = Math.min(...clips.map((clip) => probe.motion.lowestPoint(clip)));
    if (surfaceMetric.length === 0) {
      n = probe.body.n;
      featureCount = secondaryFeatureCount(probe.rig);
      surfaceMetric = metricOf(probe.subspace.surfaceRows, n / 3);
    }
    const runs: ((character: CharacterBody) => RigMotionScript)[] = [
      ...clips.map((clip) => (c: CharacterBody) => clipInPlace(c.motion, clip, options.dt, 6, 3)),
      ...Array.from({ length: options.proceduralRuns }, (_, r) => (c: CharacterBody) =>
        proceduralMotion(c.motion, clips, options.dt, options.proceduralSeconds / options.proceduralRuns, options.seed + 1000 * r + Math.round(100 * size))),
    ];
    for (const run of runs) {
      const character = new CharacterBody(baked, size, material, { dt: options.dt, damping });
      character.body.addContactSurface(new FloorContact(floor));
      const script = run(character);
      options.onProgress?.(`${script.name} at ${size} m (${script.steps} steps)`);
      const sequence: SecondarySequence = { name: script.name, size, steps: script.steps, features: new Float32Array(script.steps * featureCount), q: new Float32Array(script.steps * n) };
      for (let step = 0; step < script.steps; step++) {
        script.apply(step);
        character.step();
        writeSecondaryFeatures(character.motion, size, options.dt, sequence.features, step * featureCount);
        sequence.q.set(character.body.q, step * n);
      }
      sequences.push(sequence);
    }
  }
  return { clips: options.clips, dt: options.dt, featureCount, n, surfaceMetric, sequences };
}

function clipNamed(clips: RigClip[], name: string): RigClip {
  const clip = clips.find((c) => c.name === name);
  if (!clip) throw new Error(`no clip "${name}": the rig has ${clips.map((c) => c.name).join(", ")}`);
  return clip;
}

function metricOf(rows: Float64Array, m: number): Float64Array {
  const count = rows.length / m, metric = new Float64Array(m * m);
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < m; a++) {
      const ra = rows[i * m + a];
      if (ra === 0) continue;
      for (let b = 0; b < m; b++) metric[a * m + b] += (ra * rows[i * m + b]) / count;
    }
  }
  return metric;
}
