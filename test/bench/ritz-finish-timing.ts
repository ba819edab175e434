// Bake time of the Rayleigh-Ritz finish against the eigen provider's, in one warmed-up process, median of REPS
// (default 3), stage by stage: voxel solid, network decode at the nodes, Rayleigh-Ritz, iterations, bumps for the
// finish; voxel solid, Lanczos (factor + iterations), bumps (factor + solves) for eigen; then whole bakes (fitted
// cubature) with each. Usage: [SPAN=fields] [REPS=3] npx tsx test/bench/ritz-finish-timing.ts MESH [MESH...]; JSON lines
// on stdout.

import { createInsideTest, meshBounds, normaliseMesh, sampleSurface, thickenFlatMesh } from "../../shared/geometry";
import { lowestEigenpairs, shiftedStiffness } from "../../shared/linalg/shift-invert-lanczos";
import { SparseCholesky } from "../../shared/linalg/sparse-cholesky";
import { bakeMesh, createEigenFields, createRitzFields, EIGEN_DEFAULTS, eigenProvider, ritzFinishProvider, surfaceBumpSources, voxelSolid } from "../../shared/skinning";
import { loadMesh } from "../../server/scenarios/body-from-mesh";
import { modelProvider } from "../../server/skinning/model-provider";

const REPS = Number(process.env.REPS ?? 3);
/** SPAN=fields: the network's fields alone, not enlarged (the finish's default span otherwise). */
const SPAN = process.env.SPAN === "fields" ? { coordinateProducts: false, polynomialDegree: 0 } : {};
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const round = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v)]));

async function main(): Promise<void> {
  const model = await modelProvider();
  for (const spec of process.argv.slice(2)) {
    const { mesh } = await loadMesh(spec);
    const shapeMesh = normaliseMesh(thickenFlatMesh(mesh)).mesh;
    const surface = sampleSurface(shapeMesh, 4096, 1);
    const inside = createInsideTest(shapeMesh);
    const solidOf = { inside, ...meshBounds(shapeMesh.positions) };
    const shape = { surfacePoints: surface.points, surfaceNormals: surface.normals, interiorPoints: new Float64Array(0), solid: solidOf };
    const samples: Record<string, Record<string, number[]>> = {};
    const add = (name: string, stage: string, ms: number) => ((samples[name] ??= {})[stage] ??= []).push(ms);
    for (let rep = 0; rep <= REPS; rep++) {
      // Eigen, stage by stage (as createEigenFields does them), then whole.
      let t = performance.now();
      const solid = voxelSolid(inside, solidOf.min, solidOf.max, EIGEN_DEFAULTS);
      const voxels = performance.now() - t;
      let volume = 0;
      for (let i = 0; i < solid.unknowns; i++) volume += solid.mass[i];
      t = performance.now();
      lowestEigenpairs(solid.stiffness, solid.mass, 12, { shift: 1, deflate: [new Float64Array(solid.unknowns).fill(1 / Math.sqrt(volume))] });
      const lanczos = performance.now() - t;
      t = performance.now();
      const sources = surfaceBumpSources(solid, 4, 0.5);
      const factor = SparseCholesky.factor(shiftedStiffness(solid.stiffness, solid.mass, 4));
      for (const g of sources) factor.solve(g);
      const bumps = performance.now() - t;
      t = performance.now();
      createEigenFields(solidOf, 16);
      const whole = performance.now() - t;
      if (rep > 0) {
        add("eigen", "voxels", voxels); add("eigen", "lanczos", lanczos); add("eigen", "bumps", bumps); add("eigen", "fields", whole);
      }
      for (const iterations of [0, 1, 2]) {
        t = performance.now();
        const network = await model.fieldsFor(shape, 16);
        const encode = performance.now() - t;
        const fields = await createRitzFields(solidOf, network, 16, { ...SPAN, iterations });
        const total = performance.now() - t;
        if (rep === 0) continue;
        const name = `ritz${iterations}`;
        add(name, "encode", encode);
        for (const [stage, ms] of Object.entries(fields.timings)) add(name, stage, ms);
        add(name, "fields", total);
      }
    }
    for (const [name, stages] of Object.entries(samples)) {
      process.stdout.write(`${JSON.stringify({ mesh: spec, provider: name, medianMs: round(Object.fromEntries(Object.entries(stages).map(([s, v]) => [s, median(v)]))) })}\n`);
    }
    inside.dispose?.();
    // Whole bakes, fitted cubature: eigen against the finish with 2 iterations.
    for (const [name, provider] of [["eigen", eigenProvider], ["ritz2", ritzFinishProvider(model, undefined, { ...SPAN, iterations: 2 })]] as const) {
      const runs: Record<string, number[]> = {};
      for (let rep = 0; rep <= REPS; rep++) {
        const { timings } = await bakeMesh(mesh, provider);
        if (rep === 0) continue;
        for (const [stage, ms] of Object.entries(timings)) (runs[stage] ??= []).push(ms);
      }
      process.stdout.write(`${JSON.stringify({ mesh: spec, bake: name, medianMs: round(Object.fromEntries(Object.entries(runs).map(([s, v]) => [s, median(v)]))) })}\n`);
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
