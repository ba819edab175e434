// Rayleigh-Ritz finish of the network's fields against the voxel pencil's exact eigenvalues (no FEM): for each
// mesh and variant, the mean and lowest sqrt(Ritz value / exact eigenvalue) over the lowest 12 modes (a frequency
// ratio of the Laplacian's modes, 1 = exact) and the stage timings. Usage:
//   npx tsx test/bench/ritz-finish-bench.ts MESH [MESH...]   (paths, box:LxWxH or heldout:N); JSON lines on stdout.

import { createInsideTest, meshBounds, normaliseMesh, sampleSurface, thickenFlatMesh } from "../../shared/geometry";
import { lowestEigenpairs } from "../../shared/linalg/shift-invert-lanczos";
import { createEigenFields, createRitzFields, RITZ_FINISH_DEFAULTS, voxelSolid, type RitzFinishOptions } from "../../shared/skinning";
import { loadMesh } from "../../server/scenarios/body-from-mesh";
import { modelProvider } from "../../server/skinning/model-provider";

const VARIANTS: Record<string, RitzFinishOptions> = {
  fields: { coordinateProducts: false, polynomialDegree: 0 },
  "fields+xw": { coordinateProducts: true, polynomialDegree: 1 },
  "fields+xw+p2": { coordinateProducts: true, polynomialDegree: 2 },
  "fields+xw+p3": { coordinateProducts: true, polynomialDegree: 3 },
  "fields+xw+p2+w2": { coordinateProducts: true, polynomialDegree: 2, fieldSquares: true },
  "p2 cheb8 x1": { iterations: 1, chebyshevDegree: 8 },
  "p2 cheb8 x2": { iterations: 2, chebyshevDegree: 8 },
  "p2 cheb8 x4": { iterations: 4, chebyshevDegree: 8 },
  "p2 cheb16 x2": { iterations: 2, chebyshevDegree: 16 },
  "fields cheb8 x1": { coordinateProducts: false, polynomialDegree: 0, iterations: 1, chebyshevDegree: 8 },
  "fields cheb8 x2": { coordinateProducts: false, polynomialDegree: 0, iterations: 2, chebyshevDegree: 8 },
  "fields cheb16 x2": { coordinateProducts: false, polynomialDegree: 0, iterations: 2, chebyshevDegree: 16 },
  "fields+xw cheb8 x1": { coordinateProducts: true, polynomialDegree: 1, iterations: 1, chebyshevDegree: 8 },
  "p3": { coordinateProducts: false, polynomialDegree: 3 },
  "p3 cheb8 x2": { coordinateProducts: false, polynomialDegree: 3, iterations: 2, chebyshevDegree: 8 },
  "p3 cheb16 x2": { coordinateProducts: false, polynomialDegree: 3, iterations: 2, chebyshevDegree: 16 },
  "p3 cheb8 x4": { coordinateProducts: false, polynomialDegree: 3, iterations: 4, chebyshevDegree: 8 },
};

async function main(): Promise<void> {
  const provider = await modelProvider();
  const only = process.env.VARIANTS?.split(",");
  for (const spec of process.argv.slice(2)) {
    const { mesh } = await loadMesh(spec);
    const shapeMesh = normaliseMesh(thickenFlatMesh(mesh)).mesh;
    const surface = sampleSurface(shapeMesh, 4096, 1);
    const inside = createInsideTest(shapeMesh);
    const solidOf = { inside, ...meshBounds(shapeMesh.positions) };
    const shape = { surfacePoints: surface.points, surfaceNormals: surface.normals, interiorPoints: new Float64Array(0), solid: solidOf };
    const te = performance.now();
    createEigenFields(solidOf, 16);
    const eigenMs = performance.now() - te;
    // The finish's own grid (coarser than eigen's), so that the ratios are the finish's error alone.
    const solid = voxelSolid(inside, solidOf.min, solidOf.max, RITZ_FINISH_DEFAULTS);
    let volume = 0;
    for (let i = 0; i < solid.unknowns; i++) volume += solid.mass[i];
    const exact = lowestEigenpairs(solid.stiffness, solid.mass, 12, { shift: 1, deflate: [new Float64Array(solid.unknowns).fill(1 / Math.sqrt(volume))] }).values;
    const tn = performance.now();
    // NETWORK=none: no network, the span is the polynomials alone (the iterations' start without the network).
    const network = process.env.NETWORK === "none" ? { count: 16, evaluate: async (_points: Float64Array, weights: Float64Array) => void weights.fill(0) } : await provider.fieldsFor(shape, 16);
    const encodeMs = performance.now() - tn;
    for (const [name, options] of Object.entries(VARIANTS)) {
      if (only && !only.includes(name)) continue;
      const t0 = performance.now();
      const fields = await createRitzFields(solidOf, network, 16, { ...options, localFields: 4 });
      const ms = performance.now() - t0;
      const ratios = Array.from(exact, (e, i) => Math.sqrt(fields.eigenvalues[i] / e));
      const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
      process.stdout.write(`${JSON.stringify({ mesh: spec, variant: name, unknowns: solid.unknowns, spanRank: fields.spanRank, mean: +mean.toFixed(4), lowest: +Math.min(...ratios).toFixed(4), highest: +Math.max(...ratios).toFixed(4), ms: Math.round(ms), timings: Object.fromEntries(Object.entries(fields.timings).map(([k, v]) => [k, Math.round(v)])), eigenMs: Math.round(eigenMs), encodeMs: Math.round(encodeMs) })}\n`);
    }
    inside.dispose?.();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
