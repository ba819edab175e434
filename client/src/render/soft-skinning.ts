// GPU skinning of a soft body's render mesh from its reduced coordinates q: the vertex shader moves every vertex
// by u(x) = sum_h w_h(x) T_h [x; 1] (the solver's subspace, METHOD.md section 1) and transforms the tangent plane
// with the deformation gradient for exact normals. Per frame the CPU only writes the (K + 1) 3x4 handle transforms.

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
// Body-frame position of this vertex in the deformed state.
vec3 pliantPosition() {
  vec4 x = vec4(position * pliantScale, 1.0);
  vec3 u = pliantAffine(0, x);
  for (int s = 0; s < ${SLOTS}; s++) {
    float w = pliantWeights[s >> 2][s & 3];
    if (w != 0.0) u += w * pliantAffine(pliantHandle(s), x);
  }
  return x.xyz + u;
}
// Deformed normal: F t1 x F t2, with the tangents the bake worker differentiated along (tangentOf in shared/skinning).
vec3 pliantNormal() {
  vec3 n = normalize(normal);
  vec3 a = abs(n.y) >= 0.9 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0);
  vec3 t1 = normalize(cross(n, a));
  vec3 t2 = cross(n, t1);
  vec4 x = vec4(position * pliantScale, 1.0);
  vec3 f1 = t1 + pliantLinear(0, t1);
  vec3 f2 = t2 + pliantLinear(0, t2);
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

/** Makes a built-in material (standard, physical or depth) skin its vertices from the given uniforms. */
export function applySoftSkinning<M extends THREE.Material>(material: M, uniforms: SkinningUniforms, handles: number): M {
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    shader.defines = { ...shader.defines, PLIANT_HANDLES: handles };
    shader.vertexShader = shader.vertexShader
      .replace("#include <common>", `#include <common>\n${HEADER}`)
      .replace("#include <beginnormal_vertex>", "vec3 objectNormal = pliantNormal();\n#ifdef USE_TANGENT\nvec3 objectTangent = vec3( tangent.xyz );\n#endif")
      .replace("#include <begin_vertex>", "vec3 transformed = pliantPosition();");
  };
  material.customProgramCacheKey = () => `pliant-skinning-${handles}`;
  return material;
}
