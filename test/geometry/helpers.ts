import { readFileSync } from "node:fs";
import path from "node:path";
import { normaliseMesh, parseMesh, type TriangleMesh } from "../../shared/geometry";

/** The shared asset meshes live next to the repository: /work/shared/assets/meshes. */
export const MESH_DIRECTORY = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");

export const ASSET_NAMES = ["spot", "cow", "stanford-bunny", "teapot", "suzanne", "woody"] as const;
export type AssetName = (typeof ASSET_NAMES)[number];

export function readAsset(name: AssetName): Uint8Array {
  return new Uint8Array(readFileSync(path.join(MESH_DIRECTORY, `${name}.obj`)));
}

const parsed = new Map<AssetName, Promise<TriangleMesh>>();

/** Parsed and cleaned asset in file units (cached across tests in one file). */
export function loadAsset(name: AssetName): Promise<TriangleMesh> {
  let mesh = parsed.get(name);
  if (!mesh) {
    mesh = parseMesh(readAsset(name), "obj");
    parsed.set(name, mesh);
  }
  return mesh;
}

/** Parsed asset normalised into [-1, 1]^3. */
export async function loadNormalisedAsset(name: AssetName): Promise<TriangleMesh> {
  return normaliseMesh(await loadAsset(name)).mesh;
}

export function encodeText(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Undirected edge -> number of triangles using it. */
export function edgeUseCounts(triangles: Uint32Array): Map<string, number> {
  const uses = new Map<string, number>();
  for (let f = 0; f < triangles.length; f += 3) {
    for (let e = 0; e < 3; e++) {
      const a = triangles[f + e], b = triangles[f + ((e + 1) % 3)];
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      uses.set(key, (uses.get(key) ?? 0) + 1);
    }
  }
  return uses;
}

/** Removes every triangle whose unit normal points along `axis` with sign `side` (opens a box face). */
export function withoutFace(mesh: TriangleMesh, axis: number, side: 1 | -1): TriangleMesh {
  const { positions: p, triangles: t } = mesh;
  const kept: number[] = [];
  for (let f = 0; f < t.length; f += 3) {
    const a = 3 * t[f], b = 3 * t[f + 1], c = 3 * t[f + 2];
    const u = [p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]];
    const v = [p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2]];
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const length = Math.hypot(n[0], n[1], n[2]);
    if (side * n[axis] > 0.99 * length) continue;
    kept.push(t[f], t[f + 1], t[f + 2]);
  }
  return { positions: p, triangles: Uint32Array.from(kept) };
}

/** The same mesh with every triangle's winding reversed (normals pointing inward). */
export function flipped(mesh: TriangleMesh): TriangleMesh {
  const triangles = mesh.triangles.slice();
  for (let f = 0; f < triangles.length; f += 3) [triangles[f + 1], triangles[f + 2]] = [triangles[f + 2], triangles[f + 1]];
  return { positions: mesh.positions, triangles };
}

/** A closed, outward-wound torus around the z axis (ring radius R, tube radius r). */
export function torusMesh(ringRadius: number, tubeRadius: number, ringSegments = 64, tubeSegments = 24): TriangleMesh {
  const positions = new Float64Array(3 * ringSegments * tubeSegments);
  const triangles = new Uint32Array(6 * ringSegments * tubeSegments);
  const index = (i: number, j: number) => (i % ringSegments) * tubeSegments + (j % tubeSegments);
  for (let i = 0; i < ringSegments; i++) {
    const u = (2 * Math.PI * i) / ringSegments;
    for (let j = 0; j < tubeSegments; j++) {
      const v = (2 * Math.PI * j) / tubeSegments;
      const radius = ringRadius + tubeRadius * Math.cos(v);
      positions.set([radius * Math.cos(u), radius * Math.sin(u), tubeRadius * Math.sin(v)], 3 * index(i, j));
      const a = index(i, j), b = index(i + 1, j), c = index(i + 1, j + 1), d = index(i, j + 1);
      triangles.set([a, b, c, a, c, d], 6 * a);
    }
  }
  return { positions, triangles };
}
