import { checkCountLimits, type MeshLimits } from "./limits";
import { MeshError } from "./mesh-error";
import { objCorners } from "./obj-corners";
import type { TriangleMesh } from "./types";

/**
 * Reads Wavefront OBJ text (obj-corners.ts: what three's OBJLoader reads, in half its time), merging every
 * object and group into one mesh. Quads and polygons are fan-triangulated into three unshared vertices per
 * triangle; cleanMesh merges them afterwards. Texture coordinates are kept (TriangleMesh.uvs) when the file has any
 * (faces without them get (0, 0)), and vertex colours (`v x y z r g b`, sRGB, kept linear in TriangleMesh.colors)
 * when every vertex has one; line and point elements, normals and materials are ignored.
 */
export function parseObj(source: string, limits: MeshLimits): TriangleMesh {
  // Line ends and continuations as three's OBJLoader normalises them, so that the size pre-check sees the lines read.
  let text = source.includes("\r\n") ? source.replace(/\r\n/g, "\n") : source;
  if (text.includes("\\\n")) text = text.replace(/\\\n/g, "");
  // A 'p' or 'l' element turns a whole group into points or lines (as in three's OBJLoader), which would lose that
  // group's faces; we ignore points and lines anyway, so drop them first.
  if (/^[ \t]*[lp][ \t]/m.test(text)) text = text.replace(/^[ \t]*[lp][ \t].*$/gm, "");

  // Refuse oversized files before anything is allocated for them.
  const declared = countObjElements(text);
  checkCountLimits(declared.vertices, declared.triangles, limits);
  if (declared.triangles === 0) throw new MeshError("OBJ file has no faces (no 'f' lines with 3 or more vertices)");

  const corners = objCorners(text);
  const { positions } = corners, cornerUVs = corners.uvs, cornerColours = corners.colours;
  if (positions.length === 0) throw new MeshError("OBJ file has no triangles");
  const triangles = Uint32Array.from({ length: positions.length / 3 }, (_, i) => i);
  // Both "v nan ..." and a face corner that names a missing vertex read as NaN.
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
