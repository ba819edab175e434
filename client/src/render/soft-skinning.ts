// GPU skinning of a soft body's render mesh from its reduced coordinates q: the vertex shader moves every vertex
// by u(x) = sum_h w_h(x) T_h [x; 1] (the solver's subspace, METHOD.md section 1) and transforms the tangent plane
// with the deformation gradient for exact normals. Per frame the CPU only writes the (K + 1) 3x4 handle transforms.
// A character's mesh adds its rig (applySoftSkinning with joints, createCharacterSkinningUniforms): each vertex at
// sum_k w_k M_k x (linear blend skinning of the bind pose, four joints a vertex) plus u(x), as
// shared/rig/character-skin.ts computes it on the CPU; per frame the CPU writes the joints' matrices too (O(joints)).
// Both the joints' matrices and each vertex's joints live in textures: uniforms for 64 joints would pass the 256
// vectors a headset's vertex shader may have, and the soft part's attributes already take all 16 slots.

import * as THREE from "three";
import type { RenderInfluences } from "../../../shared/skinning";

/** Learned influences in the vertex attributes (a mat4 of weights and two of tangent slopes). */
const SLOTS = 16;

export interface SkinningUniforms {
  /** 3 rows (vec4) per handle: row a of T_h. */
  pliantRows: { value: Float32Array };
  /** Normalised mesh coordinates -> body metres. */
  pliantScale: { value: number };
}

export function createSkinningUniforms(handles: number, scale: number): SkinningUniforms {
  return { pliantRows: { value: new Float32Array(12 * handles) }, pliantScale: { value: scale } };
}

export interface CharacterSkinningUniforms extends SkinningUniforms {
  /** The joints' skinning matrices in the character's frame: a joint's three rows, a texel each (writeJointRows). */
  pliantJointRows: { value: THREE.DataTexture };
  /** Each vertex's four joints and weights (createCharacterSkinningUniforms). */
  pliantJointSkin: { value: THREE.DataTexture };
}

/** Texels a row of the vertices' joint texture holds (a vertex's texel: its index modulo this, and its quotient). */
const SKIN_TEXTURE_WIDTH = 1024;

/**
 * `vertexJoints`, `vertexWeights`: 4 per render vertex. A vertex's texel: its four joint numbers (8 bits each),
 * then its weights as 16-bit fractions, two to a component.
 */
export function createCharacterSkinningUniforms(handles: number, jointCount: number, scale: number, vertexJoints: Uint16Array, vertexWeights: Float32Array): CharacterSkinningUniforms {
  if (jointCount > 256) throw new Error(`at most 256 joints are drawn (8 bits a joint number), got ${jointCount}`);
  const vertices = vertexJoints.length / 4, height = Math.max(1, Math.ceil(vertices / SKIN_TEXTURE_WIDTH));
  const texels = new Uint32Array(4 * SKIN_TEXTURE_WIDTH * height);
  const fraction = (w: number) => Math.round(Math.min(1, Math.max(0, w)) * 65535);
  const joints = vertexJoints, weights = vertexWeights;
  for (let v = 0; v < vertices; v++) {
    const j = 4 * v;
    texels[j] = (joints[j] | (joints[j + 1] << 8) | (joints[j + 2] << 16) | (joints[j + 3] << 24)) >>> 0;
    texels[j + 1] = (fraction(weights[j]) | (fraction(weights[j + 1]) << 16)) >>> 0;
    texels[j + 2] = (fraction(weights[j + 2]) | (fraction(weights[j + 3]) << 16)) >>> 0;
  }
  const skin = new THREE.DataTexture(texels, SKIN_TEXTURE_WIDTH, height, THREE.RGBAIntegerFormat, THREE.UnsignedIntType);
  skin.internalFormat = "RGBA32UI";
  skin.needsUpdate = true;
  const rows = new THREE.DataTexture(new Float32Array(12 * jointCount), 3 * jointCount, 1, THREE.RGBAFormat, THREE.FloatType);
  rows.needsUpdate = true;
  return { ...createSkinningUniforms(handles, scale), pliantJointRows: { value: rows }, pliantJointSkin: { value: skin } };
}

/** Writes the joints' matrices (column-major 4x4, RigMotion.jointMatrices) into their texture: no allocation. */
export function writeJointRows(matrices: Float64Array, rows: THREE.DataTexture): void {
  const data = rows.image.data as Float32Array, joints = data.length / 12;
  for (let j = 0; j < joints; j++) {
    for (let a = 0; a < 3; a++) {
      const to = 12 * j + 4 * a, from = 16 * j + a;
      data[to] = matrices[from]; data[to + 1] = matrices[from + 4]; data[to + 2] = matrices[from + 8]; data[to + 3] = matrices[from + 12];
    }
  }
  rows.needsUpdate = true;
}

/** Writes q (component-major, m = 4 handles per component) into the uniform rows: O(K), no allocation. */
export function writeHandleRows(q: Float64Array, rows: Float32Array): void {
  const handles = rows.length / 12, m = 4 * handles;
  for (let h = 0; h < handles; h++) {
    for (let a = 0; a < 3; a++) {
      const from = a * m + 4 * h, to = 12 * h + 4 * a;
      rows[to] = q[from]; rows[to + 1] = q[from + 1]; rows[to + 2] = q[from + 2]; rows[to + 3] = q[from + 3];
    }
  }
}

/** The render mesh with the skinning attributes. */
export function createSkinnedGeometry(table: RenderInfluences): THREE.BufferGeometry {
  if (table.influences > SLOTS) throw new Error(`at most ${SLOTS} influences per vertex are rendered, got ${table.influences}`);
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(table.positions, 3));
  geometry.setAttribute("normal", new THREE.BufferAttribute(table.normals, 3));
  geometry.setAttribute("pliantWeights", new THREE.BufferAttribute(padded(table, table.weights), 16));
  geometry.setAttribute("pliantSlopes1", new THREE.BufferAttribute(padded(table, table.tangentDerivatives1), 16));
  geometry.setAttribute("pliantSlopes2", new THREE.BufferAttribute(padded(table, table.tangentDerivatives2), 16));
  const handles = new THREE.BufferAttribute(packedHandles(table), 4);
  handles.gpuType = THREE.IntType;
  geometry.setAttribute("pliantHandles", handles);
  if (table.uvs) geometry.setAttribute("uv", new THREE.BufferAttribute(table.uvs, 2));
  if (table.colors) geometry.setAttribute("color", new THREE.BufferAttribute(table.colors, 3));
  geometry.setIndex(new THREE.BufferAttribute(table.triangles, 1));
  geometry.userData.influences = table;
  return geometry;
}

/**
 * New weights for the same render mesh (the network's refinement of a body's fields arriving after its first
 * frames): written into the geometry's own buffers, so that the body never leaves the screen.
 */
export function refreshSkinnedGeometry(geometry: THREE.BufferGeometry, table: RenderInfluences): void {
  if (geometry.userData.influences === table) return;
  const write = (name: string, values: ArrayLike<number>) => {
    const attribute = geometry.getAttribute(name) as THREE.BufferAttribute;
    if (attribute.array.length !== values.length) throw new Error(`${name}: ${values.length} values for a geometry of ${attribute.array.length}`);
    (attribute.array as Float32Array | Uint32Array).set(values);
    attribute.needsUpdate = true;
  };
  write("pliantWeights", padded(table, table.weights));
  write("pliantSlopes1", padded(table, table.tangentDerivatives1));
  write("pliantSlopes2", padded(table, table.tangentDerivatives2));
  write("pliantHandles", packedHandles(table));
  geometry.userData.influences = table;
}

/** Per vertex SLOTS values, the table's influences first (zeros after). */
function padded(table: RenderInfluences, source: Float32Array): Float32Array {
  if (table.influences === SLOTS) return source;
  const v = table.vertexCount, out = new Float32Array(v * SLOTS);
  for (let i = 0; i < v; i++) out.set(source.subarray(i * table.influences, (i + 1) * table.influences), i * SLOTS);
  return out;
}

/** Sixteen 8-bit handle numbers per vertex, four to a 32-bit integer: one attribute slot. */
function packedHandles(table: RenderInfluences): Uint32Array {
  const v = table.vertexCount, packed = new Uint32Array(v * 4);
  for (let i = 0; i < v; i++) {
    for (let s = 0; s < table.influences; s++) packed[4 * i + (s >> 2)] |= table.handles[i * table.influences + s] << (8 * (s & 3));
  }
  return packed;
}

const HEADER = /* glsl */ `
uniform vec4 pliantRows[PLIANT_HANDLES * 3];
uniform float pliantScale;
in mat4 pliantWeights;
in mat4 pliantSlopes1;
in mat4 pliantSlopes2;
in uvec4 pliantHandles;

vec3 pliantAffine(int h, vec4 x) {
  return vec3(dot(pliantRows[3 * h], x), dot(pliantRows[3 * h + 1], x), dot(pliantRows[3 * h + 2], x));
}
vec3 pliantLinear(int h, vec3 t) {
  return vec3(dot(pliantRows[3 * h].xyz, t), dot(pliantRows[3 * h + 1].xyz, t), dot(pliantRows[3 * h + 2].xyz, t));
}
int pliantHandle(int s) {
  return int((pliantHandles[s >> 2] >> uint(8 * (s & 3))) & 255u);
}
#ifdef PLIANT_JOINTS
uniform highp sampler2D pliantJointRows;
uniform highp usampler2D pliantJointSkin;
vec4 pliantJointRow(uint joint, int a) {
  return texelFetch(pliantJointRows, ivec2(3 * int(joint) + a, 0), 0);
}
// The rig's blended skinning matrix at this vertex, worked out once (the position and the normal both ask).
mat4 pliantRigMatrix;
bool pliantRigKnown = false;
mat4 pliantRig() {
  if (pliantRigKnown) return pliantRigMatrix;
  uvec4 skin = texelFetch(pliantJointSkin, ivec2(gl_VertexID % ${SKIN_TEXTURE_WIDTH}, gl_VertexID / ${SKIN_TEXTURE_WIDTH}), 0);
  uvec4 joint = (uvec4(skin.x) >> uvec4(0u, 8u, 16u, 24u)) & 255u;
  vec4 weight = vec4((uvec4(skin.y, skin.y, skin.z, skin.z) >> uvec4(0u, 16u, 0u, 16u)) & 65535u);
  weight /= max(1.0, dot(weight, vec4(1.0)));
  vec4 rows[3];
  for (int a = 0; a < 3; a++) {
    rows[a] = weight.x * pliantJointRow(joint.x, a) + weight.y * pliantJointRow(joint.y, a) + weight.z * pliantJointRow(joint.z, a) + weight.w * pliantJointRow(joint.w, a);
  }
  pliantRigMatrix = transpose(mat4(rows[0], rows[1], rows[2], vec4(0.0, 0.0, 0.0, 1.0)));
  pliantRigKnown = true;
  return pliantRigMatrix;
}
#endif
// Body-frame position of this vertex in the deformed state: where the rig (if any) puts it, plus the soft part.
vec3 pliantPosition() {
  vec4 x = vec4(position * pliantScale, 1.0);
  vec3 u = pliantAffine(0, x);
  for (int s = 0; s < ${SLOTS}; s++) {
    float w = pliantWeights[s >> 2][s & 3];
    if (w != 0.0) u += w * pliantAffine(pliantHandle(s), x);
  }
#ifdef PLIANT_JOINTS
  return (pliantRig() * x).xyz + u;
#else
  return x.xyz + u;
#endif
}
// Deformed normal: F t1 x F t2, with the tangents the bake worker differentiated along (tangentOf in shared/skinning);
// F = I + grad u, or the rig's blended linear part + grad u.
vec3 pliantNormal() {
  vec3 n = normalize(normal);
  vec3 a = abs(n.y) >= 0.9 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0);
  vec3 t1 = normalize(cross(n, a));
  vec3 t2 = cross(n, t1);
  vec4 x = vec4(position * pliantScale, 1.0);
#ifdef PLIANT_JOINTS
  mat3 rig = mat3(pliantRig());
  vec3 f1 = rig * t1 + pliantLinear(0, t1);
  vec3 f2 = rig * t2 + pliantLinear(0, t2);
#else
  vec3 f1 = t1 + pliantLinear(0, t1);
  vec3 f2 = t2 + pliantLinear(0, t2);
#endif
  for (int s = 0; s < ${SLOTS}; s++) {
    float w = pliantWeights[s >> 2][s & 3];
    if (w == 0.0) continue;
    int h = pliantHandle(s);
    vec3 moved = pliantAffine(h, x);
    f1 += w * pliantLinear(h, t1) + moved * (pliantSlopes1[s >> 2][s & 3] / pliantScale);
    f2 += w * pliantLinear(h, t2) + moved * (pliantSlopes2[s >> 2][s & 3] / pliantScale);
  }
  vec3 deformed = cross(f1, f2);
  float length2 = dot(deformed, deformed);
  return length2 > 1e-20 ? deformed * inversesqrt(length2) : n;
}
`;

/**
 * Makes a built-in material (standard, physical or depth) skin its vertices from the given uniforms; with `jointCount`,
 * a character's (its uniforms from createCharacterSkinningUniforms; its geometry is a soft body's).
 */
export function applySoftSkinning<M extends THREE.Material>(material: M, uniforms: SkinningUniforms, handles: number, jointCount = 0): M {
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    shader.defines = { ...shader.defines, PLIANT_HANDLES: handles, ...(jointCount > 0 ? { PLIANT_JOINTS: jointCount } : {}) };
    shader.vertexShader = shader.vertexShader
      .replace("#include <common>", `#include <common>\n${HEADER}`)
      .replace("#include <beginnormal_vertex>", "vec3 objectNormal = pliantNormal();\n#ifdef USE_TANGENT\nvec3 objectTangent = vec3( tangent.xyz );\n#endif")
      .replace("#include <begin_vertex>", "vec3 transformed = pliantPosition();");
  };
  material.customProgramCacheKey = () => `pliant-skinning-${handles}-${jointCount}`;
  return material;
}
