// The full-FEM reference for `npm run eval:modes --fem`: the solid meshed with quadratic tetrahedra (Debian's
// tetgen, or a voxel grid classified by the winding-number inside test when tetgen cannot mesh the surface),
// linear elasticity, consistent mass, a sparse eigensolve (models/eval/fem_modes.py, numpy and scipy).

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createInsideTest, meshBounds, signedVolume, type TriangleMesh } from "../../shared/geometry";
import type { Material } from "../../shared/sim";

const run = promisify(execFile);
const SCRIPT = path.resolve(import.meta.dirname, "../../models/eval/fem_modes.py");
const PYTHON = "/usr/bin/python3";
/** Linear tets asked of tetgen (each becomes one quadratic tet): a 1 x 0.1 x 0.1 m beam's first frequency moves by 0.02% from 1,300 to 9,300. */
export const DEFAULT_MAX_TETS = 3000;

export interface FemOptions {
  /** Largest number of (linear) tetrahedra tetgen is asked for, by volume. */
  maxTets?: number;
  /** Voxels along the largest extent of the fallback grid (default: as many as maxTets allows, at most 48). */
  voxels?: number;
  /** Also return the quadrature points (metres) and their volumes: 4 per quadratic tet. */
  quadrature?: boolean;
}

export interface FemModes {
  mesher: "tetgen" | "voxels";
  tets: number;
  nodes: number;
  nearZero: number;
  frequenciesHz: number[];
  seconds: number;
  points?: number[];
  volumes?: number[];
}

/** Free-free frequencies of the solid bounded by `mesh` (positions in metres). */
export async function femModes(mesh: TriangleMesh, material: Material, modes: number, options: FemOptions = {}): Promise<FemModes> {
  const work = mkdtempSync(path.join(tmpdir(), "pliant-fem-"));
  try {
    const off = path.join(work, "surface.off");
    writeFileSync(off, offText(mesh));
    const spec = {
      E: material.youngsModulus, nu: material.poissonRatio, rho: material.density, modes,
      maxTets: options.maxTets ?? DEFAULT_MAX_TETS, volume: Math.abs(signedVolume(mesh)), off,
      voxels: fallbackGrid(mesh, options.voxels, options.maxTets ?? DEFAULT_MAX_TETS), quadrature: options.quadrature ?? false,
    };
    const specPath = path.join(work, "spec.json");
    writeFileSync(specPath, JSON.stringify(spec));
    const { stdout } = await run(PYTHON, [SCRIPT, specPath], { maxBuffer: 1 << 30, timeout: 20 * 60_000 });
    return JSON.parse(stdout) as FemModes;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function offText(mesh: TriangleMesh): string {
  const p = mesh.positions, t = mesh.triangles, lines = [`OFF`, `${p.length / 3} ${t.length / 3} 0`];
  for (let i = 0; i < p.length; i += 3) lines.push(`${p[i]} ${p[i + 1]} ${p[i + 2]}`);
  for (let i = 0; i < t.length; i += 3) lines.push(`3 ${t[i]} ${t[i + 1]} ${t[i + 2]}`);
  return `${lines.join("\n")}\n`;
}

/** The voxel grid for when tetgen cannot mesh the surface: 6 tets a voxel, about 2 maxTets in all. */
function fallbackGrid(mesh: TriangleMesh, voxels: number | undefined, maxTets: number): ReturnType<typeof voxelGrid> {
  if (voxels) return voxelGrid(mesh, voxels);
  const coarse = voxelGrid(mesh, 16);
  const inside = coarse.inside.reduce((a, b) => a + b, 0);
  const count = Math.max(6, Math.min(48, Math.floor(16 * Math.cbrt((2 * maxTets) / (6 * Math.max(1, inside))))));
  return count === 16 ? coarse : voxelGrid(mesh, count);
}

/** Voxel centres classified by the winding number, `count` along the largest extent (x fastest). */
function voxelGrid(mesh: TriangleMesh, count: number): { dims: number[]; origin: number[]; spacing: number; inside: number[] } {
  const { min, max } = meshBounds(mesh.positions);
  const spacing = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / count;
  const dims = [0, 1, 2].map((a) => Math.max(1, Math.ceil((max[a] - min[a]) / spacing)));
  const origin = [0, 1, 2].map((a) => 0.5 * (min[a] + max[a]) - 0.5 * dims[a] * spacing);
  const test = createInsideTest(mesh), inside: number[] = [];
  for (let k = 0; k < dims[2]; k++) {
    for (let j = 0; j < dims[1]; j++) {
      for (let i = 0; i < dims[0]; i++) {
        inside.push(test.contains(origin[0] + (i + 0.5) * spacing, origin[1] + (j + 0.5) * spacing, origin[2] + (k + 0.5) * spacing) ? 1 : 0);
      }
    }
  }
  return { dims, origin, spacing, inside };
}
