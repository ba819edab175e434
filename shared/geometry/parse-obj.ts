import { OBJLoader } from "three/examples/jsm/loaders/OBJLoader.js";
import type { BufferGeometry, Object3D } from "three";
import { checkCountLimits, type MeshLimits } from "./limits";
import { MeshError } from "./mesh-error";
import type { TriangleMesh } from "./types";

/**
 * Reads Wavefront OBJ text with three's OBJLoader, merging every object and group into one mesh. The loader
 * fan-triangulates quads and polygons and emits three unshared vertices per triangle; cleanMesh merges them
 * afterwards. Texture coordinates are kept (TriangleMesh.uvs) when the file has any (the loader gives faces without
 * them (0, 0)), and vertex colours (`v x y z r g b`, sRGB, kept linear in TriangleMesh.colors) when every vertex
 * has one; line and point elements, normals and materials are ignored.
 */
export function parseObj(source: string, limits: MeshLimits): TriangleMesh {
  // Same normalisation the loader does, done once here so the size pre-check sees the same lines.
  let text = source.includes("\r\n") ? source.replace(/\r\n/g, "\n") : source;
  if (text.includes("\\\n")) text = text.replace(/\\\n/g, "");
  // OBJLoader turns a whole group into Points or LineSegments as soon as it meets one 'p' or 'l' element,
  // which would lose that group's faces; we ignore points and lines anyway, so drop them first.
  if (/^[ \t]*[lp][ \t]/m.test(text)) text = text.replace(/^[ \t]*[lp][ \t].*$/gm, "");

  // Refuse oversized files before the loader allocates anything for them.
  const declared = countObjElements(text);
  checkCountLimits(declared.vertices, declared.triangles, limits);
  if (declared.triangles === 0) throw new MeshError("OBJ file has no faces (no 'f' lines with 3 or more vertices)");

  let root: Object3D;
  try {
    root = new OBJLoader().parse(text);
  } catch (error) {
    throw new MeshError(`could not parse OBJ: ${error instanceof Error ? error.message : String(error)}`);
  }
  const geometries: BufferGeometry[] = [];
  root.traverse((object) => {
    if ((object as { isMesh?: boolean }).isMesh) geometries.push((object as unknown as { geometry: BufferGeometry }).geometry);
  });

  let vertexCount = 0, triangleCount = 0;
  for (const geometry of geometries) {
    vertexCount += geometry.getAttribute("position").count;
    triangleCount += Math.floor((geometry.index?.count ?? geometry.getAttribute("position").count) / 3);
  }
  if (triangleCount === 0) throw new MeshError("OBJ file has no triangles");
  const positions = new Float64Array(3 * vertexCount);
  const triangles = new Uint32Array(3 * triangleCount);
  const textured = geometries.every((geometry) => geometry.getAttribute("uv") !== undefined);
  const cornerUVs = textured ? new Float64Array(2 * vertexCount) : null;
  const coloured = geometries.every((geometry) => geometry.getAttribute("color") !== undefined);
  const cornerColours = coloured ? new Float64Array(3 * vertexCount) : null;
  let vertexOffset = 0, triangleOffset = 0;
  for (const geometry of geometries) {
    const attribute = geometry.getAttribute("position");
    const uv = geometry.getAttribute("uv");
    if (cornerUVs && uv) for (let v = 0; v < uv.count; v++) { cornerUVs[2 * (vertexOffset + v)] = uv.getX(v); cornerUVs[2 * (vertexOffset + v) + 1] = uv.getY(v); }
    const colour = geometry.getAttribute("color");
    if (cornerColours && colour) for (let v = 0; v < colour.count; v++) for (let k = 0; k < 3; k++) cornerColours[3 * (vertexOffset + v) + k] = colour.getComponent(v, k);
    for (let v = 0; v < attribute.count; v++) {
      positions[3 * (vertexOffset + v)] = attribute.getX(v);
      positions[3 * (vertexOffset + v) + 1] = attribute.getY(v);
      positions[3 * (vertexOffset + v) + 2] = attribute.getZ(v);
    }
    const index = geometry.index;
    const cornerCount = 3 * Math.floor((index?.count ?? attribute.count) / 3);
    for (let i = 0; i < cornerCount; i++) triangles[triangleOffset + i] = vertexOffset + (index ? index.getX(i) : i);
    vertexOffset += attribute.count;
    triangleOffset += cornerCount;
  }
  geometries.forEach((geometry) => geometry.dispose());
  // The loader reads both "v nan ..." and a face corner that names a missing vertex as NaN.
  const nanAt = positions.findIndex((value) => Number.isNaN(value));
  if (nanAt >= 0) {
    throw new MeshError(
      `OBJ face corner ${Math.floor(nanAt / 3)} has a non-finite coordinate (NaN): a 'v' line is not numeric or a face refers to a missing vertex`,
    );
  }
  const colours = cornerColours && cornerColours.every((value) => Number.isFinite(value)) ? sharedColours(cornerColours, triangles) : {};
  if (!cornerUVs || cornerUVs.some((value) => !Number.isFinite(value))) return { positions, triangles, ...colours };
  return { positions, triangles, ...sharedUVs(cornerUVs, triangles), ...colours };
}

/** The distinct colours (clamped to 0-1) of the loader's per-vertex colours, and each triangle corner's. */
function sharedColours(perVertex: Float64Array, triangles: Uint32Array): { colors: Float64Array; colorTriangles: Uint32Array } {
  const index = new Map<string, number>(), colors: number[] = [];
  const colorTriangles = new Uint32Array(triangles.length);
  for (let k = 0; k < triangles.length; k++) {
    const v = triangles[k], rgb = [0, 1, 2].map((c) => Math.min(1, Math.max(0, perVertex[3 * v + c]))), key = rgb.join(",");
    let i = index.get(key);
    if (i === undefined) {
      i = colors.length / 3;
      index.set(key, i);
      colors.push(...rgb);
    }
    colorTriangles[k] = i;
  }
  return { colors: Float64Array.from(colors), colorTriangles };
}

/** The distinct UV points of the loader's per-vertex UVs, and each triangle corner's. */
function sharedUVs(perVertex: Float64Array, triangles: Uint32Array): { uvs: Float64Array; uvTriangles: Uint32Array } {
  const index = new Map<string, number>(), uvs: number[] = [];
  const uvTriangles = new Uint32Array(triangles.length);
  for (let k = 0; k < triangles.length; k++) {
    const v = triangles[k], u = perVertex[2 * v], w = perVertex[2 * v + 1], key = `${u},${w}`;
    let i = index.get(key);
    if (i === undefined) {
      i = uvs.length / 2;
      index.set(key, i);
      uvs.push(u, w);
    }
    uvTriangles[k] = i;
  }
  return { uvs: Float64Array.from(uvs), uvTriangles };
}

/** Counts `v` lines and the triangles the `f` lines will become (an n-gon gives n - 2). */
export function countObjElements(text: string): { vertices: number; triangles: number } {
  let vertices = 0, triangles = 0;
  const length = text.length;
  let i = 0;
  while (i < length) {
    while (i < length && isBlank(text.charCodeAt(i))) i++;
    const first = text.charCodeAt(i), second = text.charCodeAt(i + 1);
    if (first === 118 /* v */ && isBlank(second)) {
      vertices++;
    } else if (first === 102 /* f */ && isBlank(second)) {
      let corners = 0, inToken = false;
      for (i += 1; i < length; i++) {
        const c = text.charCodeAt(i);
        if (c === 10) break;
        const blank = isBlank(c) || c === 13;
        if (!blank && !inToken) corners++;
        inToken = !blank;
      }
      if (corners >= 3) triangles += corners - 2;
    }
    const newline = text.indexOf("\n", i);
    i = newline < 0 ? length : newline + 1;
  }
  return { vertices, triangles };
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}
