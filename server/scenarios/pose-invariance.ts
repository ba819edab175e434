// The pose-invariance measure of issue 16: the network run on deformed frames of a shape should give the same
// fields at the same material points as on the shape at rest.
// - A rigged mesh: frames spread over each clip, posed by linear blend skinning (the mesh's own skin weights; the
//   material points with their nearest vertex's).
// - An unrigged mesh: bodies our solver deforms hard (pulled by its top, squashed, twisted): the render vertices
//   and the material points moved by their subspace rows.
// Each frame's surface is renormalised to [-1, 1]^3 and shown to the network, which is read at the frame's material
// points. raw: the network's frame against its rest-pose prediction. anchored: the pose-consistent network's frame
// against its own prediction on the anchor frame (the consensus frame, anchor-frame.ts), the anchor left out.

import { createInsideTest, jitteredInside, normaliseMesh, Random, thickenFlatMesh } from "../../shared/geometry";
import { basisRows, FloorContact, type SoftBody } from "../../shared/sim";
import { chooseAnchor, predictOnFrame, type AnchorChoice } from "../../shared/skinning/anchor-frame";
import { strided } from "../../shared/skinning/baseline";
import { handleCount } from "../../shared/skinning/baked-body";
import { subspaceDistance, temporalL1, type FieldTable } from "../../shared/skinning/field-agreement";
import type { SkinningFieldProvider } from "../../shared/skinning/fields";
import { clipTimes, edgeStrainEnergy, frameView, isRiggedMesh, ShapePoser, type RiggedShape } from "../../shared/skinning/posed-frames";
import { createSoftBody, loadBody, loadMesh, type LoadedBody } from "./body-from-mesh";
import { reconstruction, surfaceArea, type Reconstruction } from "./anchor-rules";

export interface PoseInvarianceOptions {
  mesh: string;
  /** One clip of a rigged mesh; all clips when absent. */
  clip?: string;
  /** The network as shipped (raw) and the pose-consistent one (anchored): raw fields, no orthonormalising. */
  raw: SkinningFieldProvider;
  anchored: SkinningFieldProvider;
  framesPerClip?: number;
  /** Surface points shown to the network per frame (the bake's 4096 by default). */
  surfacePoints?: number;
  /** Material points the fields are compared at. */
  materialPoints?: number;
  handles?: number;
  seed?: number;
  onProgress?: (what: string) => void;
  /** Called with every frame as it is made (what pose_consistency.py trains on). */
  onFrame?: (frame: PoseFrame) => void;
}

/** One deformed frame, as the network saw it. */
export interface PoseFrame {
  group: string;
  /** Clip time (s) or simulated time (s). */
  t: number;
  /** The deformed surface (provider units) and the material points there. */
  surface: Float64Array;
  normals: Float64Array;
  points: Float64Array;
}

export interface Agreement {
  temporalL1: number;
  subspaceDistance: number;
}

export interface GroupResult {
  /** A clip's name, or the solver's deformation: pulled, squashed, twisted. */
  name: string;
  frames: number;
  raw: Agreement;
  anchored: Agreement;
}

/** One anchor rule's frame, how the other frames' predictions agree with its, and how well its subspace reproduces them. */
export interface AnchorRuleResult {
  rule: AnchorRule;
  group: string;
  t: number;
  /** The anchored network's other frames against this frame's prediction. */
  anchored: Agreement;
  /** Means over every frame (reconstruction in anchor-rules.ts), and per group. */
  reconstruction: Reconstruction;
  groups: { name: string; reconstruction: Reconstruction }[];
}

export type AnchorRule = "bind" | "largestArea" | "consensus" | "leastStrain";

export interface PoseInvarianceResult {
  mesh: string;
  kind: "rig" | "solver";
  raw: Agreement;
  anchored: Agreement;
  anchor: AnchorChoice & { group: string; t: number; chosenBy: string };
  /**
   * SPRig's anchor rules compared with the anchored network (anchor-rules.ts); rawBind: the shipped network's
   * rest-pose fields, what a bake without anchoring uses.
   */
  rules: AnchorRuleResult[];
  rawBind: { reconstruction: Reconstruction; groups: { name: string; reconstruction: Reconstruction }[] };
  /** Frames compared (raw: all; anchored: all but the anchor). */
  frames: number;
  groups: GroupResult[];
  materialPoints: number;
  surfacePoints: number;
  anchoredNetwork: string;
}

const DEFAULTS = { framesPerClip: 8, surfacePoints: 4096, materialPoints: 1024, handles: 16, seed: 1 };

/** Solver runs of an unrigged mesh: E, nu, rho, damping, a 0.3 m body, 1/60 s steps. */
const SOLVER = { youngsModulus: 1e5, poissonRatio: 0.45, density: 1000, damping: 0.002, size: 0.3, dt: 1 / 60 };
/** Each deformation's length, s, and frames taken from it (spread over its second half and the ramp before). */
const RUN_SECONDS = 1.5;

/** A frame's deformed positions (render vertices and material points, any units) under a name and time. */
interface RawFrame {
  group: string;
  t: number;
  vertices: Float64Array;
  points: Float64Array;
}

export async function evaluatePoseInvariance(options: PoseInvarianceOptions): Promise<PoseInvarianceResult> {
  const o = { ...DEFAULTS, ...options };
  const progress = options.onProgress ?? (() => {});
  const { mesh: source } = await loadMesh(options.mesh);
  const rigged = isRiggedMesh(source);
  let rest: RawFrame, frames: RawFrame[], triangles: Uint32Array;
  if (rigged) {
    ({ rest, frames, triangles } = rigFrames(source, o.clip, o.framesPerClip, o.materialPoints, o.seed));
  } else {
    if (o.clip) throw new Error(`${options.mesh} has no rig: --clip needs a rigged mesh`);
    progress("baking the solver's body");
    const loaded = await loadBody({ mesh: options.mesh, weights: "eigen", handles: o.handles, cubature: 256, size: SOLVER.size, seed: o.seed });
    ({ rest, frames } = solverFrames(loaded, o.framesPerClip, o.materialPoints, progress));
    triangles = loaded.baked.triangles;
  }

  const predict = async (provider: SkinningFieldProvider, frame: RawFrame, report: boolean): Promise<FieldTable> => {
    const view = frameView(frame.vertices, triangles, o.surfacePoints, o.seed);
    const { table } = await predictOnFrame(provider, view, frame.points, o.handles);
    if (report && options.onFrame) {
      const points = new Float64Array(frame.points.length);
      for (let i = 0; i < points.length; i += 3) for (let a = 0; a < 3; a++) points[i + a] = (frame.points[i + a] - view.center[a]) / view.scale;
      options.onFrame({ group: frame.group, t: frame.t, surface: view.surfacePoints, normals: view.surfaceNormals, points });
    }
    return table;
  };

  progress(`predicting on ${frames.length} frames and the rest pose`);
  const rawRest = await predict(options.raw, rest, true);
  const rawTables: FieldTable[] = [], anchoredTables: FieldTable[] = [];
  for (const frame of frames) {
    rawTables.push(await predict(options.raw, frame, true));
    anchoredTables.push(options.anchored === options.raw ? rawTables[rawTables.length - 1] : await predict(options.anchored, frame, false));
  }
  const energies = frames.map((f) => edgeStrainEnergy(rest.vertices, f.vertices, triangles));
  const choice = chooseAnchor(anchoredTables, energies);
  const anchorTable = anchoredTables[choice.index];

  const groups = [...new Set(frames.map((f) => f.group))].map((name): GroupResult => {
    const raw: Agreement[] = [], anchored: Agreement[] = [];
    frames.forEach((f, i) => {
      if (f.group !== name) return;
      raw.push(agreement(rawTables[i], rawRest));
      if (i !== choice.index) anchored.push(agreement(anchoredTables[i], anchorTable));
    });
    return { name, frames: raw.length, raw: meanAgreementOf(raw), anchored: meanAgreementOf(anchored) };
  });
  const allRaw = frames.map((_, i) => agreement(rawTables[i], rawRest));
  const allAnchored = frames.flatMap((_, i) => (i === choice.index ? [] : [agreement(anchoredTables[i], anchorTable)]));
  const anchorFrame = frames[choice.index];

  // The anchor rules: each frame's prediction by the anchored network (the rest pose's too), and which frame each picks.
  const anchoredRest = options.anchored === options.raw ? rawRest : await predict(options.anchored, rest, false);
  const areas = frames.map((f) => surfaceArea(f.vertices, triangles));
  const largest = areas.indexOf(Math.max(...areas));
  const picks: [AnchorRule, number][] = [["bind", -1], ["largestArea", largest], ["consensus", choice.index], ...(choice.leastStrain ? [["leastStrain", choice.leastStrain.index] as [AnchorRule, number]] : [])];
  const groupNames = [...new Set(frames.map((f) => f.group))];
  const reconstructions = (table: FieldTable) => {
    const each = frames.map((f) => reconstruction(table, rest.points, f.points));
    return {
      reconstruction: meanReconstruction(each),
      groups: groupNames.map((name) => ({ name, reconstruction: meanReconstruction(each.filter((_, i) => frames[i].group === name)) })),
    };
  };
  const rules = picks.map(([rule, index]): AnchorRuleResult => {
    const table = index < 0 ? anchoredRest : anchoredTables[index];
    const frame = index < 0 ? rest : frames[index];
    return {
      rule, group: frame.group, t: round(frame.t),
      anchored: meanAgreementOf(frames.flatMap((_, i) => (i === index ? [] : [agreement(anchoredTables[i], table)]))),
      ...reconstructions(table),
    };
  });
  return {
    mesh: options.mesh,
    kind: rigged ? "rig" : "solver",
    raw: meanAgreementOf(allRaw),
    anchored: meanAgreementOf(allAnchored),
    anchor: { ...choice, group: anchorFrame.group, t: round(anchorFrame.t), chosenBy: "least mean subspace distance to the other frames' predictions (the medoid); leastStrain is the least-deformed candidate" },
    rules,
    rawBind: reconstructions(rawRest),
    frames: frames.length,
    groups,
    materialPoints: rest.points.length / 3,
    surfacePoints: o.surfacePoints,
    anchoredNetwork: options.anchored === options.raw ? "the raw network (no pose-consistent one)" : "pose-consistent",
  };
}

function agreement(frame: FieldTable, reference: FieldTable): Agreement {
  return { temporalL1: temporalL1(frame, reference), subspaceDistance: subspaceDistance(frame, reference) };
}

function meanReconstruction(list: Reconstruction[]): Reconstruction {
  const n = Math.max(1, list.length);
  return { relative: round(list.reduce((a, x) => a + x.relative, 0) / n), rms: round(list.reduce((a, x) => a + x.rms, 0) / n) };
}

function meanAgreementOf(list: Agreement[]): Agreement {
  const n = Math.max(1, list.length);
  return {
    temporalL1: round(list.reduce((a, x) => a + x.temporalL1, 0) / n),
    subspaceDistance: round(list.reduce((a, x) => a + x.subspaceDistance, 0) / n),
  };
}

/** The bind pose and frames spread over each clip (or the named one), in the bake's normalised units. */
function rigFrames(source: Awaited<ReturnType<typeof loadMesh>>["mesh"], clipName: string | undefined, perClip: number, materialCount: number, seed: number) {
  const normalised = normaliseMesh(thickenFlatMesh(source));
  const mesh = normalised.mesh;
  if (!mesh.rig || !mesh.skinJoints || !mesh.skinWeights) throw new Error("the mesh lost its rig in normalising");
  const shape: RiggedShape = { mesh, rig: mesh.rig, skinJoints: mesh.skinJoints, skinWeights: mesh.skinWeights, center: normalised.center, scale: normalised.scale };
  const clips = clipName ? mesh.rig.clips.filter((c) => c.name === clipName) : mesh.rig.clips;
  if (clips.length === 0) throw new Error(`no clip "${clipName}": the mesh has ${mesh.rig.clips.map((c) => c.name).join(", ")}`);
  const points = materialPoints(mesh, materialCount, seed);
  const poser = new ShapePoser(shape);
  const skin = poser.skinAt(points);
  const rest: RawFrame = { group: "rest", t: 0, vertices: Float64Array.from(poser.vertices), points };
  const frames: RawFrame[] = [];
  for (const clip of clips) {
    for (const t of clipTimes(clip, perClip)) {
      poser.sample(clip, t);
      const carried = new Float64Array(points.length);
      poser.carry(points, skin, carried);
      frames.push({ group: clip.name, t, vertices: Float64Array.from(poser.vertices), points: carried });
    }
  }
  return { rest, frames, triangles: mesh.triangles };
}

/** About `count` interior points, spread evenly over the solid (normalised units). */
function materialPoints(mesh: Parameters<typeof createInsideTest>[0], count: number, seed: number): Float64Array {
  const inside = createInsideTest(mesh);
  try {
    const { points } = jitteredInside(mesh, 4 * count, new Random(seed + 5), inside);
    return strided(points, count);
  } finally {
    inside.dispose?.();
  }
}

/** The deformations: each a grab schedule on a body resting on the floor. */
type Deformation = (body: SoftBody, rest: Float64Array, t: number, state: { grabs: number[] }) => void;

const DEFORMATIONS: Record<string, Deformation> = {
  // The top vertex lifted 0.2 m over the first second, then held (the `pull` scenario's motion).
  pulled: (body, rest, t, state) => {
    const top = extreme(rest, 1, 1);
    const at = worldOf(body, rest, top);
    if (state.grabs.length === 0) state.grabs.push(body.grab(at[0], at[1], at[2]));
    body.moveGrab(state.grabs[0], at[0], at[1] + 0.2 * Math.min(1, t), at[2]);
  },
  // The top pressed down to 55% of the body's height over the first second, then held; the floor holds the bottom.
  squashed: (body, rest, t, state) => {
    const top = extreme(rest, 1, 1), bottom = extreme(rest, 1, -1);
    const at = worldOf(body, rest, top), height = rest[3 * top + 1] - rest[3 * bottom + 1];
    if (state.grabs.length === 0) state.grabs.push(body.grab(at[0], at[1], at[2], { radius: 0.25 * height }));
    body.moveGrab(state.grabs[0], at[0], at[1] - 0.45 * height * Math.min(1, t), at[2]);
  },
  // Both ends along x held, the +x end turned a half turn about x over the first second.
  twisted: (body, rest, t, state) => {
    const head = extreme(rest, 0, 1), tail = extreme(rest, 0, -1);
    const a = worldOf(body, rest, head), b = worldOf(body, rest, tail), radius = 0.25 * (rest[3 * head] - rest[3 * tail]);
    if (state.grabs.length === 0) state.grabs.push(body.grab(a[0], a[1], a[2], { radius }), body.grab(b[0], b[1], b[2], { radius }));
    const angle = Math.PI * Math.min(1, t), c = Math.cos(angle), s = Math.sin(angle);
    body.moveGrab(state.grabs[0], a[0], a[1], a[2], [1, 0, 0, 0, c, -s, 0, s, c]);
    body.moveGrab(state.grabs[1], b[0], b[1], b[2]);
  },
};

/** The solver's runs: each deformation stepped RUN_SECONDS, `perRun` frames from its second half. */
function solverFrames(loaded: LoadedBody, perRun: number, materialCount: number, progress: (what: string) => void) {
  const s = loaded.size / 2, h = handleCount(loaded.baked);
  const massRest = strided(loaded.baked.massPositions, materialCount).map((v) => v * s);
  const massWeights = stridedRows(loaded.baked.massPositions.length / 3, loaded.baked.massWeights, h, massRest.length / 3);
  const massRows = basisRows({ positions: massRest, weights: massWeights }, h);
  const renderRest = loaded.renderRest;
  const rest: RawFrame = { group: "rest", t: 0, vertices: Float64Array.from(renderRest), points: massRest };
  const frames: RawFrame[] = [];
  let minY = Infinity;
  for (let i = 1; i < renderRest.length; i += 3) minY = Math.min(minY, renderRest[i]);
  const steps = Math.round(RUN_SECONDS / SOLVER.dt);
  const takeAt = new Set(Array.from({ length: perRun }, (_, i) => Math.round(steps / 2 + ((i + 1) * steps) / (2 * perRun))));
  for (const [name, deform] of Object.entries(DEFORMATIONS)) {
    progress(`solver: ${name}`);
    const body = createSoftBody(loaded, SOLVER, { dt: SOLVER.dt, damping: SOLVER.damping }, [0, -minY, 0]);
    body.addContactSurface(new FloorContact(0));
    const state = { grabs: [] as number[] };
    for (let step = 1; step <= steps; step++) {
      deform(body, renderRest, step * SOLVER.dt, state);
      body.step();
      if (!takeAt.has(step)) continue;
      const vertices = new Float64Array(renderRest.length), points = new Float64Array(massRest.length);
      body.positions(loaded.renderRows, renderRest, vertices);
      body.positions(massRows, massRest, points);
      frames.push({ group: name, t: step * SOLVER.dt, vertices, points });
    }
  }
  return { rest, frames };
}

/** The rows of `weights` (h each) that strided(points, count) keeps, in order. */
function stridedRows(total: number, weights: Float64Array, h: number, count: number): Float64Array {
  const out = new Float64Array(count * h);
  for (let k = 0; k < count; k++) {
    const i = count >= total ? k : Math.floor((k * total) / count);
    out.set(weights.subarray(i * h, (i + 1) * h), k * h);
  }
  return out;
}

/** The vertex with the largest (sign 1) or smallest (-1) coordinate on an axis. */
function extreme(points: Float64Array, axis: number, sign: 1 | -1): number {
  let best = 0;
  for (let i = 1; i < points.length / 3; i++) if (sign * points[3 * i + axis] > sign * points[3 * best + axis]) best = i;
  return best;
}

/** A rest vertex where the body's origin puts it (world metres, before any step). */
function worldOf(body: SoftBody, rest: Float64Array, i: number): [number, number, number] {
  return [body.origin[0] + rest[3 * i], body.origin[1] + rest[3 * i + 1], body.origin[2] + rest[3 * i + 2]];
}

function round(v: number): number {
  return Math.round(v * 1e4) / 1e4;
}
