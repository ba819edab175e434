// BakedBody: everything a simulation of one shape needs, computed once per (mesh, provider, parameters), in
// normalised coordinates (the mesh's largest extent spans [-1, 1]); and its versioned binary encoding.

import type { BakedRigArrays, BakedRigInfo } from "./baked-rig";
import { farthestPointIndices } from "../geometry/farthest-points";
import { integrateMass, scaleMassIntegrals, type MassIntegrals, type SubspaceSource } from "../sim/subspace";
import { SkinningError } from "./fields";
import { rigMassMoments } from "./rig-mass-moments";

export const BAKED_BODY_VERSION = 7;
const MAGIC = "PLNTBAKE";

export interface BakedBodyInfo {
  version: number;
  /** Which provider made the fields: "model", "eigen", "baseline" or "model-raw". */
  provider: string;
  /** Learned fields K; the subspace has K + 1 handles (channel 0 is the constant one). */
  learnedHandles: number;
  seed: number;
  /** normalised = (original - center) / scale. */
  center: [number, number, number];
  scale: number;
  /** How `fieldDescription` describes the fields ("" when it does not: the render weights are then always sent). */
  fieldKind: string;
  /** A rigged mesh's rig (names, clips' layout; its numbers are the rig arrays): baked-rig.ts. Null without. */
  rigInfo: BakedRigInfo | null;
}

export interface BakedBody extends BakedBodyInfo, BakedRigArrays {
  /** Render mesh (normalised positions, 3V) and its triangles. */
  renderPositions: Float64Array;
  triangles: Uint32Array;
  /** The mesh's texture coordinates (TriangleMesh.uvs, uvTriangles); empty when it has none. */
  renderUVs: Float64Array;
  renderUVTriangles: Uint32Array;
  /** The mesh's vertex colours (TriangleMesh.colors, colorTriangles); empty when it has none. */
  renderColors: Float64Array;
  renderColorTriangles: Uint32Array;
  /**
   * V * (K + 1) render-vertex weights, normalised like the cubature weights. Empty in the copy sent to clients when
   * the fields are described: they evaluate them from `fieldDescription` and `fieldNorms` (renderWeightsOf).
   */
  renderWeights: Float64Array;
  cubaturePositions: Float64Array;
  cubatureVolumes: Float64Array;
  /** Nc * (K + 1) */
  cubatureWeights: Float64Array;
  /** Nc * (K + 1) * 3, per normalised unit. */
  cubatureGradients: Float64Array;
  /**
   * Dense interior samples, on which the mass matrix is integrated. A client's copy keeps only the candidate
   * centres of the contact spheres (proxyCandidates) and no volumes: it carries `massIntegrals` instead.
   */
  massPositions: Float64Array;
  massVolumes: Float64Array;
  massWeights: Float64Array;
  /** Packed integrals of the mass samples (packMassIntegrals), normalised units: only in a client's copy. */
  massIntegrals: Float64Array;
  /**
   * A rigged bake's joints' mass moments (rig-mass-moments.ts), normalised units: only in a client's copy, so that a
   * page can drive the flesh by the rig's inertia (its springs). Empty otherwise. (Version 7: bakes before it lack
   * them, and their version is in every cache's key, so no cache serves an older copy.)
   */
  rigMoments: Float64Array;
  /** Contact and grab samples on the surface (farthest points over vertices and area samples). */
  surfacePositions: Float64Array;
  surfaceWeights: Float64Array;
  /** The RMS of each learned field over the cubature points, divided out of every weight (K numbers). */
  fieldNorms: Float64Array;
  /** The fields themselves, compactly (see SkinningFields.describe); empty when they cannot be described. */
  fieldDescription: Float64Array;
  /** The network's refinement of the render weights between grid nodes (refined-fields.ts); empty without one. */
  fieldRefinement: Float64Array;
}

const ARRAY_FIELDS = [
  "renderPositions", "triangles", "renderUVs", "renderUVTriangles", "renderColors", "renderColorTriangles", "renderWeights",
  "cubaturePositions", "cubatureVolumes", "cubatureWeights", "cubatureGradients",
  "massPositions", "massVolumes", "massWeights", "massIntegrals", "rigMoments",
  "surfacePositions", "surfaceWeights", "fieldNorms", "fieldDescription", "fieldRefinement",
  "rigParents", "rigRest", "rigBase", "rigJointNodes", "rigInverseBind", "rigKeyTimes", "rigKeyValues", "renderSkinJoints", "renderSkinWeights",
] as const;

/**
 * The copy of a bake that clients download: the mass samples' integrals instead of the samples (all the solver
 * needs of them) and the contact spheres' candidate centres; without the render weights when the clients can
 * evaluate the fields from a smaller description.
 */
export function clientBakedBody(body: BakedBody): BakedBody {
  if (isClientCopy(body)) return body;
  const candidates = proxyCandidates(body);
  const light: BakedBody = {
    ...body,
    massPositions: candidates.positions, massWeights: candidates.weights, massVolumes: new Float64Array(0),
    massIntegrals: packMassIntegrals(massIntegralsOf(body)),
    rigMoments: body.rigJointNodes.length > 0 ? rigMassMoments(body) : new Float64Array(0),
  };
  if (!body.fieldKind) return light;
  // Whichever is smaller travels: a small mesh's weights can take fewer bytes than a grid of field values.
  if (body.fieldDescription.length >= body.renderWeights.length && body.renderWeights.length > 0) {
    return { ...light, fieldKind: "", fieldDescription: new Float64Array(0) };
  }
  return { ...light, renderWeights: new Float64Array(0) };
}

/** Whether this is a client's copy (clientBakedBody): mass integrals instead of samples. */
export function isClientCopy(body: BakedBody): boolean {
  return body.massIntegrals.length > 0;
}

/** Mass samples that may centre a contact sphere: an evenly spread subset (server and clients choose alike). */
const PROXY_CANDIDATES = 512;

/** Candidate centres (normalised units) for a body's contact spheres, and the weights there. */
export function proxyCandidates(body: BakedBody): { positions: Float64Array; weights: Float64Array } {
  if (isClientCopy(body)) return { positions: body.massPositions, weights: body.massWeights };
  const h = handleCount(body), n = body.massVolumes.length;
  if (n <= PROXY_CANDIDATES) return { positions: body.massPositions, weights: body.massWeights };
  const chosen = farthestPointIndices(body.massPositions, PROXY_CANDIDATES);
  const positions = new Float64Array(3 * chosen.length), weights = new Float64Array(h * chosen.length);
  chosen.forEach((i, c) => {
    positions.set(body.massPositions.subarray(3 * i, 3 * i + 3), 3 * c);
    weights.set(body.massWeights.subarray(h * i, h * (i + 1)), h * c);
  });
  return { positions, weights };
}

/** The mass samples' integrals in normalised units, from the samples or from a client copy's packed integrals. */
export function massIntegralsOf(body: BakedBody): MassIntegrals {
  const h = handleCount(body);
  if (!isClientCopy(body)) return integrateMass({ positions: body.massPositions, volumes: body.massVolumes, weights: body.massWeights }, h);
  const m = 4 * h, packed = body.massIntegrals;
  if (packed.length !== 4 + m + (m * (m + 1)) / 2) throw new SkinningError(`massIntegrals: expected ${4 + m + (m * (m + 1)) / 2} numbers for ${h} handles, got ${packed.length}`);
  const block = new Float64Array(m * m);
  let o = 4 + m;
  for (let a = 0; a < m; a++) for (let b = a; b < m; b++) block[a * m + b] = block[b * m + a] = packed[o++];
  return { volume: packed[0], centroid: packed.slice(1, 4), moment: packed.slice(4, 4 + m), block };
}

/** [volume, centroid (3), moment (m), the block's upper triangle row by row]. */
function packMassIntegrals(integrals: MassIntegrals): Float64Array {
  const m = integrals.moment.length;
  const packed = new Float64Array(4 + m + (m * (m + 1)) / 2);
  packed[0] = integrals.volume;
  packed.set(integrals.centroid, 1);
  packed.set(integrals.moment, 4);
  let o = 4 + m;
  for (let a = 0; a < m; a++) for (let b = a; b < m; b++) packed[o++] = integrals.block[a * m + b];
  return packed;
}

/** Total handles of a baked body (K + 1). */
export function handleCount(body: BakedBodyInfo): number {
  return body.learnedHandles + 1;
}

/**
 * The solver's view of a baked body at a physical size: the largest extent becomes `size` metres, with the
 * body frame's origin at the bounding-box centre.
 */
export function toSubspaceSource(body: BakedBody, size: number): SubspaceSource {
  if (!(size > 0) || !Number.isFinite(size)) throw new SkinningError(`size must be a positive number of metres, got ${size}`);
  const s = size / 2;
  const scaled = (a: Float64Array, f: number) => a.map((v) => v * f);
  return {
    handles: handleCount(body),
    cubature: {
      positions: scaled(body.cubaturePositions, s),
      volumes: scaled(body.cubatureVolumes, s * s * s),
      weights: body.cubatureWeights,
      gradients: scaled(body.cubatureGradients, 1 / s),
    },
    // A client's copy carries the samples' integrals (in normalised units), which scale exactly; the server
    // integrates its samples at the body's size, as it always has.
    mass: isClientCopy(body)
      ? scaleMassIntegrals(massIntegralsOf(body), s)
      : { positions: scaled(body.massPositions, s), volumes: scaled(body.massVolumes, s * s * s), weights: body.massWeights },
    surface: { positions: scaled(body.surfacePositions, s), weights: body.surfaceWeights },
  };
}

/**
 * Arrays that keep double precision in any copy: field descriptions hold grid sizes, indices and coefficients, and
 * the mass integrals are the server's own (a client's mass matrix then matches the server's to rounding).
 */
const EXACT_ARRAYS = new Set<string>(["fieldDescription", "fieldNorms", "massIntegrals", "rigRest", "rigBase", "rigInverseBind"]);

/**
 * `floats: "f32"` stores the float arrays in single precision (field descriptions excepted): the copy browsers download (clientBakedBody), half
 * the bytes, while the server's own bake keeps double precision. A reader gets Float64Arrays either way.
 */
export function encodeBakedBody(body: BakedBody, options: { floats?: "f64" | "f32" } = {}): Uint8Array {
  const single = options.floats === "f32";
  const arrays = ARRAY_FIELDS.map((name) => {
    const a = body[name];
    if (a instanceof Uint32Array) return { name, type: "u32", length: a.length, data: a as ArrayBufferView };
    const narrow = single && !EXACT_ARRAYS.has(name);
    return { name, type: narrow ? "f32" : "f64", length: a.length, data: narrow ? Float32Array.from(a) : a as ArrayBufferView };
  });
  const info: BakedBodyInfo & { arrays: { name: string; type: string; length: number }[] } = {
    version: BAKED_BODY_VERSION,
    provider: body.provider,
    learnedHandles: body.learnedHandles,
    seed: body.seed,
    center: body.center,
    scale: body.scale,
    fieldKind: body.fieldKind,
    rigInfo: body.rigInfo,
    arrays: arrays.map(({ name, type, length }) => ({ name, type, length })),
  };
  const json = new TextEncoder().encode(JSON.stringify(info));
  const headerBytes = align8(MAGIC.length + 8 + json.length);
  let total = headerBytes;
  for (const a of arrays) total += align8(a.data.byteLength);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  for (let i = 0; i < MAGIC.length; i++) out[i] = MAGIC.charCodeAt(i);
  view.setUint32(8, BAKED_BODY_VERSION, true);
  view.setUint32(12, json.length, true);
  out.set(json, 16);
  let offset = headerBytes;
  for (const a of arrays) {
    out.set(new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength), offset);
    offset += align8(a.data.byteLength);
  }
  return out;
}

export function decodeBakedBody(bytes: Uint8Array): BakedBody {
  const fail = (why: string): never => {
    throw new SkinningError(`not a Pliant baked body: ${why}`);
  };
  if (bytes.length < 16) fail("too short");
  for (let i = 0; i < MAGIC.length; i++) if (bytes[i] !== MAGIC.charCodeAt(i)) fail("bad magic");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== BAKED_BODY_VERSION) fail(`version ${version}, this build reads ${BAKED_BODY_VERSION}`);
  const jsonLength = view.getUint32(12, true);
  if (16 + jsonLength > bytes.length) fail("truncated header");
  let info: BakedBodyInfo & { arrays: { name: string; type: string; length: number }[] };
  try {
    info = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + jsonLength)));
  } catch {
    return fail("unreadable header");
  }
  let offset = align8(MAGIC.length + 8 + jsonLength);
  const body: Record<string, unknown> = {
    version, provider: info.provider, learnedHandles: info.learnedHandles, seed: info.seed, center: info.center, scale: info.scale,
    fieldKind: typeof info.fieldKind === "string" ? info.fieldKind : "",
    rigInfo: info.rigInfo ?? null,
  };
  for (const name of ARRAY_FIELDS) {
    const entry = info.arrays.find((a) => a.name === name) ?? fail(`missing ${name}`);
    if (entry.type !== "u32" && entry.type !== "f32" && entry.type !== "f64") fail(`unknown array type ${entry.type}`);
    const size = entry.type === "f64" ? 8 : 4;
    const byteLength = entry.length * size;
    if (offset + byteLength > bytes.length) fail(`truncated ${name}`);
    // Copy so the arrays are aligned whatever the caller's buffer offset.
    const copy = bytes.slice(offset, offset + byteLength).buffer;
    body[name] = entry.type === "u32" ? new Uint32Array(copy) : entry.type === "f32" ? Float64Array.from(new Float32Array(copy)) : new Float64Array(copy);
    offset += align8(byteLength);
  }
  return body as unknown as BakedBody;
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
