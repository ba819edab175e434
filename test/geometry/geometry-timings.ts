// Times the geometry stages on the asset meshes: `npx tsx test/geometry/geometry-timings.ts`.
// (Not a vitest file: tests do not time things; test/bench owns the project benchmarks.)
import { readFileSync } from "node:fs";
import path from "node:path";
import { createInsideTest, normaliseMesh, parseMesh, sampleInterior, sampleSurface, MeshError, DEFAULT_INTERIOR_CANDIDATES } from "../../shared/geometry";

const meshDirectory = path.resolve(import.meta.dirname, "../../../shared/assets/meshes");
const names = ["spot", "cow", "stanford-bunny", "teapot", "suzanne", "woody"];
const repeats = Number(process.argv[2] ?? 3);

function best<T>(run: () => T): { ms: number; result: T } {
  let ms = Infinity;
  let result!: T;
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    result = run();
    ms = Math.min(ms, performance.now() - start);
  }
  return { ms, result };
}

async function bestAsync<T>(run: () => Promise<T>): Promise<{ ms: number; result: T }> {
  let ms = Infinity;
  let result!: T;
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    result = await run();
    ms = Math.min(ms, performance.now() - start);
  }
  return { ms, result };
}

const rows: Record<string, string | number>[] = [];
for (const name of names) {
  const bytes = new Uint8Array(readFileSync(path.join(meshDirectory, `${name}.obj`)));
  const parsed = await bestAsync(() => parseMesh(bytes, "obj"));
  const mesh = normaliseMesh(parsed.result).mesh;
  const surface = best(() => sampleSurface(mesh, 4096, 1));
  const build = best(() => createInsideTest(mesh));
  const inside = build.result;
  const classify = best(() => {
    let count = 0;
    for (let i = 0; i < DEFAULT_INTERIOR_CANDIDATES; i++) {
      // Same kind of points sampleInterior classifies: spread over the bounding box [-1, 1]^3.
      const x = ((i * 0.6180339887) % 1) * 2 - 1, y = ((i * 0.7548776662) % 1) * 2 - 1, z = ((i * 0.5698402910) % 1) * 2 - 1;
      if (inside.contains(x, y, z)) count++;
    }
    return count;
  });
  const row: Record<string, string | number> = {
    mesh: name,
    vertices: mesh.positions.length / 3,
    triangles: mesh.triangles.length / 3,
    "parse+clean ms": parsed.ms.toFixed(1),
    "surface 4096 ms": surface.ms.toFixed(1),
    "inside build ms": build.ms.toFixed(1),
    [`classify ${DEFAULT_INTERIOR_CANDIDATES} ms`]: classify.ms.toFixed(1),
  };
  for (const count of [256, 1024]) {
    try {
      const interior = best(() => sampleInterior(mesh, { count, seed: 7 }));
      row[`interior ${count} ms`] = interior.ms.toFixed(1);
      row[`inside cands (${count})`] = interior.result.candidates.length / 3;
    } catch (error) {
      if (!(error instanceof MeshError)) throw error;
      row[`interior ${count} ms`] = "MeshError";
    }
  }
  rows.push(row);
}
console.table(rows);
