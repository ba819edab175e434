import { Logger, WebIO, type Document, type GLTF, type JSONDocument, type Primitive, type Skin, type mat4 } from "@gltf-transform/core";
import { checkCountLimits, MESH_LIMITS, type MeshLimits } from "./limits";
import { MeshError } from "./mesh-error";
import type { TriangleMesh } from "./types";
import { readRig, readSkinWeights, sceneMeshNodes, skinUnion, unionJoints, type SkinUnion } from "./gltf-rig";

const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;
const GLB_BIN_RESOURCE = "@glb.bin"; // gltf-transform's name for the GLB binary chunk
const MODE_TRIANGLES = 4, MODE_TRIANGLE_STRIP = 5, MODE_TRIANGLE_FAN = 6;
/** Where prepareForGeometry keeps a primitive's material's baseColorFactor once materials are dropped. */
const BASE_COLOUR_EXTRA = "pliantBaseColorFactor";
const UNSUPPORTED_COMPRESSION = ["KHR_draco_mesh_compression", "EXT_meshopt_compression"];

/**
 * Reads glTF 2.0 (.glb, or .gltf whose buffers are embedded as data: URIs) with @gltf-transform/core.
 * Every triangle primitive (TRIANGLES, and strips/fans converted) of every mesh instance in the default
 * scene is collected with its node's world transform applied, its colour the product of its COLOR_0 and its
 * material's baseColorFactor. Materials and textures are dropped before reading (their base colour factors kept):
 * only geometry and colours are needed, and missing external images then cannot fail the read.
 */
export async function parseGltf(data: Uint8Array, limits: MeshLimits): Promise<TriangleMesh> {
  const document = await readGltfDocument(data, limits);
  const { mesh, union } = collectTriangles(document);
  // A rigged mesh keeps its rig, when every primitive is skinned (its positions are then the bind pose); its
  // vertices' joints are numbered as the rig's (all its skins' joints in one list).
  if (!mesh.skinJoints || !mesh.skinWeights || !union) return mesh;
  return { ...mesh, rig: { ...readRig(document, union)!, vertexJoints: mesh.skinJoints, vertexWeights: mesh.skinWeights } };
}

/**
 * The glTF document of a .glb or .gltf (embedded buffers), checked as parseGltf checks it and without materials
 * and textures: its meshes, nodes, skins and animations (shared/rig reads the last two).
 */
export async function readGltfDocument(data: Uint8Array, limits: MeshLimits = MESH_LIMITS): Promise<Document> {
  const jsonDocument = isGlb(data) ? splitGlb(data) : { json: parseJsonText(data), resources: {} };
  const json = jsonDocument.json;
  prepareForGeometry(json);
  checkDeclaredCounts(json, limits);
  try {
    const io = new WebIO().setLogger(new Logger(Logger.Verbosity.SILENT));
    return await io.readJSON(jsonDocument as JSONDocument);
  } catch (error) {
    throw new MeshError(`could not read glTF: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function isGlb(data: Uint8Array): boolean {
  return data.byteLength >= 4 && new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true) === GLB_MAGIC;
}

export function splitGlb(data: Uint8Array): { json: GLTF.IGLTF; resources: Record<string, Uint8Array> } {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.byteLength < 20) throw new MeshError(`GLB file is truncated (${data.byteLength} bytes; the header alone is 20)`);
  const version = view.getUint32(4, true);
  if (version !== 2) throw new MeshError(`GLB version ${version} is not supported; only glTF 2.0 is`);
  const jsonLength = view.getUint32(12, true);
  if (view.getUint32(16, true) !== CHUNK_JSON || 20 + jsonLength > data.byteLength) {
    throw new MeshError("GLB file has no valid JSON chunk");
  }
  const json = parseJsonText(data.subarray(20, 20 + jsonLength));
  const resources: Record<string, Uint8Array> = {};
  const binStart = 20 + jsonLength;
  if (binStart + 8 <= data.byteLength && view.getUint32(binStart + 4, true) === CHUNK_BIN) {
    const binLength = view.getUint32(binStart, true);
    if (binStart + 8 + binLength > data.byteLength) throw new MeshError("GLB binary chunk runs past the end of the file");
    resources[GLB_BIN_RESOURCE] = data.subarray(binStart + 8, binStart + 8 + binLength);
  }
  return { json, resources };
}

export function parseJsonText(bytes: Uint8Array): GLTF.IGLTF {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new MeshError(`glTF JSON is malformed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new MeshError("glTF JSON is not an object");
  return json as GLTF.IGLTF;
}

/** Rejects what cannot be read here, with the reason, and strips what geometry does not need. */
function prepareForGeometry(json: GLTF.IGLTF): void {
  const version = json.asset?.version;
  if (typeof version !== "string" || !version.startsWith("2.")) {
    throw new MeshError(`glTF asset version ${JSON.stringify(version)} is not supported; only glTF 2.0 is`);
  }
  const compression = (json.extensionsRequired ?? []).find((name) => UNSUPPORTED_COMPRESSION.includes(name));
  if (compression !== undefined) {
    throw new MeshError(`glTF uses ${compression}, which cannot be decoded here; export it without mesh compression`);
  }
  for (const buffer of json.buffers ?? []) {
    if (buffer.uri !== undefined && !buffer.uri.startsWith("data:")) {
      throw new MeshError(`glTF refers to the external file "${buffer.uri}"; upload a .glb, or a .gltf with buffers embedded as data: URIs`);
    }
  }
  checkNodeTree(json);
  // Other required extensions (quantisation, material extensions...) do not change how core reads
  // positions and indices, so they are not allowed to block the read.
  delete json.extensionsRequired;
  // A primitive's base colour factor is kept (in its extras), its material dropped: baseColours reads it.
  for (const mesh of json.meshes ?? []) for (const primitive of mesh.primitives ?? []) {
    const factor = primitive.material === undefined ? undefined : json.materials?.[primitive.material]?.pbrMetallicRoughness?.baseColorFactor;
    if (Array.isArray(factor) && factor.length >= 3) primitive.extras = { ...(typeof primitive.extras === "object" ? primitive.extras : {}), [BASE_COLOUR_EXTRA]: factor.slice(0, 3) };
  }
  delete json.materials;
  delete json.textures;
  delete json.images;
  delete json.samplers;
  for (const mesh of json.meshes ?? []) for (const primitive of mesh.primitives ?? []) delete primitive.material;
}

/**
 * The nodes must form trees, as the format says: every child a node that exists, no node with two parents, no
 * node its own ancestor (a cycle would have the reader and every walk up a skeleton go round for ever).
 */
function checkNodeTree(json: GLTF.IGLTF): void {
  const nodes = json.nodes ?? [], parent = new Int32Array(nodes.length).fill(-1);
  nodes.forEach((node, i) => {
    for (const child of node.children ?? []) {
      if (!Number.isInteger(child) || child < 0 || child >= nodes.length) throw new MeshError(`glTF node ${i} has a child ${child} that does not exist`);
      if (parent[child] >= 0) throw new MeshError(`glTF node ${child} has two parents (nodes ${parent[child]} and ${i}); nodes must form trees`);
      parent[child] = i;
    }
  });
  // Each walk up stops at a node already known to reach a root, so every node is walked over once.
  const reachesRoot = new Uint8Array(nodes.length), walk = new Uint8Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) {
    let node = i;
    while (node >= 0 && !reachesRoot[node]) {
      if (walk[node]) throw new MeshError(`glTF nodes form a cycle: node ${node} is its own ancestor`);
      walk[node] = 1;
      node = parent[node];
    }
    for (node = i; node >= 0 && !reachesRoot[node]; node = parent[node]) reachesRoot[node] = 1;
  }
}

/** Checks the sizes the JSON declares, before any accessor is decoded. */
function checkDeclaredCounts(json: GLTF.IGLTF, limits: MeshLimits): void {
  const instances = new Array<number>(json.meshes?.length ?? 0).fill(0);
  for (const node of json.nodes ?? []) if (node.mesh !== undefined && node.mesh < instances.length) instances[node.mesh]++;
  let vertices = 0, triangles = 0;
  (json.meshes ?? []).forEach((mesh, m) => {
    const copies = Math.max(1, instances[m]);
    for (const primitive of mesh.primitives ?? []) {
      const mode = primitive.mode ?? MODE_TRIANGLES;
      if (mode !== MODE_TRIANGLES && mode !== MODE_TRIANGLE_STRIP && mode !== MODE_TRIANGLE_FAN) continue;
      const positionCount = json.accessors?.[primitive.attributes?.POSITION ?? -1]?.count ?? 0;
      const cornerCount = primitive.indices !== undefined ? (json.accessors?.[primitive.indices]?.count ?? 0) : positionCount;
      vertices += copies * positionCount;
      triangles += copies * (mode === MODE_TRIANGLES ? Math.floor(cornerCount / 3) : Math.max(0, cornerCount - 2));
    }
  });
  checkCountLimits(vertices, triangles, limits);
}

interface PrimitiveInstance {
  positions: Float64Array; // world space
  triangles: Uint32Array; // local indices
  /** TEXCOORD_0 in the OBJ convention (v up), when the primitive has it. */
  uvs: Float64Array | null;
  /** COLOR_0 (linear r, g, b), when the primitive has it. */
  colors: Float64Array | null;
  /** JOINTS_0 and WEIGHTS_0 (four a vertex, weights scaled to sum to 1) and its node's skin, when it is skinned. */
  skin: { joints: Uint16Array; weights: Float32Array; of: Skin } | null;
}

/**
 * Every triangle primitive the scene places, as one mesh; when every one of them is skinned, with the union of
 * their skins (skinUnion, which refuses a broken skin) and their joints numbered as its.
 */
function collectTriangles(document: Document): { mesh: TriangleMesh; union: SkinUnion | null } {
  const root = document.getRoot();
  const meshNodes = sceneMeshNodes(document);

  const instances: PrimitiveInstance[] = [];
  if (meshNodes.length > 0) {
    for (const node of meshNodes) for (const primitive of node.getMesh()!.listPrimitives()) pushPrimitive(instances, primitive, node.getWorldMatrix(), node.getSkin());
  } else {
    // Meshes that no node places: take them as they are.
    const identity: mat4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    for (const mesh of root.listMeshes()) for (const primitive of mesh.listPrimitives()) pushPrimitive(instances, primitive, identity, null);
  }

  let vertexCount = 0, cornerCount = 0;
  for (const instance of instances) {
    vertexCount += instance.positions.length / 3;
    cornerCount += instance.triangles.length;
  }
  if (cornerCount === 0) throw new MeshError("glTF contains no triangle primitives");
  const positions = new Float64Array(3 * vertexCount);
  const triangles = new Uint32Array(cornerCount);
  // Texture coordinates when every primitive has them: one UV point per glTF vertex, so each corner's UV index is
  // its vertex index (cleanMesh then welds the seams' duplicate vertices and keeps the UV indices).
  const textured = instances.every((instance) => instance.uvs !== null);
  const uvs = textured ? new Float64Array(2 * vertexCount) : null;
  // Vertex colours when any primitive has them (the others white), one colour point per glTF vertex likewise.
  const coloured = instances.some((instance) => instance.colors !== null);
  const colors = coloured ? new Float64Array(3 * vertexCount).fill(1) : null;
  const skinned = instances.every((instance) => instance.skin !== null);
  const union = skinned ? skinUnion([...new Set(instances.map((instance) => instance.skin!.of))]) : null;
  const skinJoints = skinned ? new Uint16Array(4 * vertexCount) : null, skinWeights = skinned ? new Float32Array(4 * vertexCount) : null;
  let vertexOffset = 0, cornerOffset = 0;
  for (const instance of instances) {
    positions.set(instance.positions, 3 * vertexOffset);
    if (uvs) uvs.set(instance.uvs!, 2 * vertexOffset);
    if (colors && instance.colors) colors.set(instance.colors, 3 * vertexOffset);
    if (skinJoints && skinWeights && instance.skin) {
      unionJoints(instance.skin.joints, instance.skin.weights, union!.places.get(instance.skin.of)!);
      skinJoints.set(instance.skin.joints, 4 * vertexOffset);
      skinWeights.set(instance.skin.weights, 4 * vertexOffset);
    }
    for (let i = 0; i < instance.triangles.length; i++) triangles[cornerOffset + i] = vertexOffset + instance.triangles[i];
    vertexOffset += instance.positions.length / 3;
    cornerOffset += instance.triangles.length;
  }
  const mesh: TriangleMesh = {
    positions, triangles,
    ...(uvs ? { uvs, uvTriangles: triangles.slice() } : {}),
    ...(colors ? { colors, colorTriangles: triangles.slice() } : {}),
    ...(skinJoints && skinWeights ? { skinJoints, skinWeights } : {}),
  };
  return { mesh, union };
}

function pushPrimitive(out: PrimitiveInstance[], primitive: Primitive, matrix: mat4, skin: Skin | null): void {
  const mode = primitive.getMode();
  if (mode !== MODE_TRIANGLES && mode !== MODE_TRIANGLE_STRIP && mode !== MODE_TRIANGLE_FAN) return;
  const position = primitive.getAttribute("POSITION");
  if (!position) return;
  const count = position.getCount();
  const positions = new Float64Array(3 * count);
  const element = [0, 0, 0];
  const m = matrix;
  for (let v = 0; v < count; v++) {
    position.getElement(v, element);
    const x = element[0], y = element[1], z = element[2];
    positions[3 * v] = m[0] * x + m[4] * y + m[8] * z + m[12];
    positions[3 * v + 1] = m[1] * x + m[5] * y + m[9] * z + m[13];
    positions[3 * v + 2] = m[2] * x + m[6] * y + m[10] * z + m[14];
  }

  const indices = primitive.getIndices();
  const cornerCount = indices ? indices.getCount() : count;
  const corner = (i: number) => (indices ? indices.getScalar(i) : i);
  const triangleCount = mode === MODE_TRIANGLES ? Math.floor(cornerCount / 3) : Math.max(0, cornerCount - 2);
  const triangles = new Uint32Array(3 * triangleCount);
  // A mirroring transform (negative determinant) turns the winding inside out; swap two corners back.
  const determinant = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) + m[8] * (m[1] * m[6] - m[2] * m[5]);
  const mirrored = determinant < 0;
  for (let t = 0; t < triangleCount; t++) {
    let a: number, b: number, c: number;
    if (mode === MODE_TRIANGLES) {
      a = corner(3 * t); b = corner(3 * t + 1); c = corner(3 * t + 2);
    } else if (mode === MODE_TRIANGLE_STRIP) {
      // Every other strip triangle is listed clockwise; swapping its first two corners keeps one winding.
      a = corner(t % 2 === 0 ? t : t + 1); b = corner(t % 2 === 0 ? t + 1 : t); c = corner(t + 2);
    } else {
      a = corner(0); b = corner(t + 1); c = corner(t + 2);
    }
    triangles[3 * t] = a;
    triangles[3 * t + 1] = mirrored ? c : b;
    triangles[3 * t + 2] = mirrored ? b : c;
  }
  out.push({ positions, triangles, uvs: textureCoordinates(primitive, count), colors: baseColours(primitive, count), skin: skinOf(primitive, count, skin) });
}

/** A primitive's skin weights, when it has them for every vertex and its node has a skin. */
function skinOf(primitive: Primitive, count: number, skin: Skin | null): PrimitiveInstance["skin"] {
  if (!skin || primitive.getAttribute("JOINTS_0")?.getCount() !== count) return null;
  const weights = readSkinWeights(primitive);
  return weights ? { ...weights, of: skin } : null;
}

/**
 * A primitive's base colour per vertex (glTF's is COLOR_0 times its material's baseColorFactor), linear r, g, b;
 * null when it has neither (white).
 */
function baseColours(primitive: Primitive, count: number): Float64Array | null {
  const colours = vertexColours(primitive, count), factor = primitive.getExtras()[BASE_COLOUR_EXTRA];
  if (!Array.isArray(factor) || (factor[0] === 1 && factor[1] === 1 && factor[2] === 1)) return colours;
  const out = colours ?? new Float64Array(3 * count).fill(1);
  for (let v = 0; v < count; v++) for (let k = 0; k < 3; k++) out[3 * v + k] *= Number.isFinite(factor[k]) ? Math.min(1, Math.max(0, factor[k])) : 1;
  return out;
}

/** A primitive's COLOR_0 as linear r, g, b (alpha dropped; normalised integers decoded); null without. */
function vertexColours(primitive: Primitive, count: number): Float64Array | null {
  const color = primitive.getAttribute("COLOR_0");
  const size = color?.getElementSize() ?? 0;
  if (!color || color.getCount() !== count || (size !== 3 && size !== 4)) return null;
  const out = new Float64Array(3 * count), element = [0, 0, 0, 0];
  for (let v = 0; v < count; v++) {
    color.getElement(v, element);
    for (let k = 0; k < 3; k++) out[3 * v + k] = Number.isFinite(element[k]) ? Math.min(1, Math.max(0, element[k])) : 1;
  }
  return out;
}

/** A primitive's TEXCOORD_0, flipped to the OBJ convention (glTF's v runs down the image, OBJ's up); null without. */
function textureCoordinates(primitive: Primitive, count: number): Float64Array | null {
  const uv = primitive.getAttribute("TEXCOORD_0");
  if (!uv || uv.getCount() !== count || uv.getElementSize() !== 2) return null;
  const out = new Float64Array(2 * count), element = [0, 0];
  for (let v = 0; v < count; v++) {
    uv.getElement(v, element);
    out[2 * v] = element[0];
    out[2 * v + 1] = 1 - element[1];
  }
  return out;
}
