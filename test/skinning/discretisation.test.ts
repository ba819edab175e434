// PhysSkin's discretisation invariance: one shape meshed at two resolutions must become the same soft body. The
// Stanford bunny and its simplification to a quarter of its triangles (meshoptimizer, the shape kept within 0.5 %
// of its size), baked with the default fields, have fields that vibrate at free-free frequencies within 3 % of each
// other, while another shape's (the cow, same size) do not: the frequencies are the shape's, not the triangles'.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MeshoptSimplifier } from "meshoptimizer";
import { afterAll, expect, it } from "vitest";
import { exactlyIntegrated } from "../../server/modes/exact-fields";
import { reducedModes } from "../../server/modes/reduced-modes";
import { loadBody, loadMesh } from "../../server/scenarios/body-from-mesh";
import { DEFAULT_WEIGHTS } from "../../server/skinning/weights-source";
import { createInsideTest, Random, refinedInside, type TriangleMesh } from "../../shared/geometry";

const MESHES = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
const MATERIAL = { youngsModulus: 1e5, poissonRatio: 0.35, density: 1000 };
const MODES = 6;
/** Cells of the dense quadrature the fields are integrated on (about a third of them inside the bunny). */
const DENSE_CELLS = 65_536;
const folder = mkdtempSync(path.join(tmpdir(), "pliant-discretisation-"));

afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The mesh with a quarter of its triangles, unused vertices dropped. */
async function quarterOf(mesh: TriangleMesh): Promise<TriangleMesh> {
  await MeshoptSimplifier.ready;
  const [indices] = MeshoptSimplifier.simplify(Uint32Array.from(mesh.triangles), Float32Array.from(mesh.positions), 3, Math.floor(mesh.triangles.length / 12) * 3, 0.005);
  const newIndex = new Map<number, number>(), positions: number[] = [];
  const triangles = indices.map((v) => {
    if (!newIndex.has(v)) {
      newIndex.set(v, positions.length / 3);
      positions.push(mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2]);
    }
    return newIndex.get(v)!;
  });
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}

function objFile(mesh: TriangleMesh, name: string): string {
  const lines: string[] = [];
  for (let i = 0; i < mesh.positions.length; i += 3) lines.push(`v ${mesh.positions[i]} ${mesh.positions[i + 1]} ${mesh.positions[i + 2]}`);
  for (let t = 0; t < mesh.triangles.length; t += 3) lines.push(`f ${mesh.triangles[t] + 1} ${mesh.triangles[t + 1] + 1} ${mesh.triangles[t + 2] + 1}`);
  const file = path.join(folder, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/**
 * The first free-free frequencies of a mesh baked with the default fields: its fields integrated over a dense cut-cell
 * quadrature of its own solid (exactlyIntegrated), and, for the log, its body's 256 fitted cubature points.
 */
async function frequencies(mesh: string): Promise<{ fields: number[]; body: number[] }> {
  const loaded = await loadBody({ mesh, weights: DEFAULT_WEIGHTS, handles: 16, cubature: 256, size: 0.3 });
  const s = loaded.size / 2, solid = { positions: loaded.baked.renderPositions.map((v) => v * s), triangles: loaded.baked.triangles };
  const inside = createInsideTest(solid);
  const dense = refinedInside(solid, DENSE_CELLS, 2, new Random(1), inside);
  const exact = await exactlyIntegrated(loaded.baked, loaded.size, dense.points, dense.volumes);
  return {
    fields: reducedModes(exact, MATERIAL).frequenciesHz.slice(0, MODES),
    body: reducedModes(loaded.subspace, MATERIAL).frequenciesHz.slice(0, MODES),
  };
}

// The fields are what is discretisation-invariant (PhysSkin's claim): integrated densely they agree within 1.1 % (the
// network's) and 1.2 % (eigen's). The body's 256 fitted cubature points add their own error, up to 2 % either way
// (model: 0.970 in the first mode), so the shipped body is logged beside them, not held to 3 %. The quadratures are
// cut cells (refinedInside): with one jittered point a cell, the bunny's thin ears got all or nothing of a cell.
it("the bunny and a quarter of its triangles vibrate within 3 % of each other with the default fields", async () => {
  const bunny = path.join(MESHES, "stanford-bunny.obj");
  const full = (await loadMesh(bunny)).mesh;
  const coarse = await quarterOf(full);
  expect(coarse.triangles.length / full.triangles.length).toBeGreaterThan(0.2);
  expect(coarse.triangles.length / full.triangles.length).toBeLessThan(0.3);
  const [fine, rough, cow] = [await frequencies(bunny), await frequencies(objFile(coarse, "bunny-quarter.obj")), await frequencies(path.join(MESHES, "cow.obj"))];
  const ratios = (of: "fields" | "body") => fine[of].map((f, i) => rough[of][i] / f);
  const hz = (f: number[]) => f.map((v) => v.toFixed(2)).join(", "), listed = (r: number[]) => r.map((v) => v.toFixed(3)).join(", ");
  console.info(`fields: bunny (${full.triangles.length / 3} triangles) ${hz(fine.fields)} Hz; a quarter (${coarse.triangles.length / 3}) ${hz(rough.fields)} Hz; ` +
    `ratios ${listed(ratios("fields"))}; the cow ${hz(cow.fields)} Hz. Bodies (256 fitted points): ${hz(fine.body)} and ${hz(rough.body)} Hz, ratios ${listed(ratios("body"))}`);
  for (const r of ratios("fields")) expect(Math.abs(r - 1)).toBeLessThan(0.03);
  // The check can tell shapes apart: another shape of the same size is further off than 3 % in some mode.
  expect(Math.max(...cow.fields.map((f, i) => Math.abs(f / fine.fields[i] - 1)))).toBeGreaterThan(0.03);
}, 600_000);
