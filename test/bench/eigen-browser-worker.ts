// The work eigen-browser-bench.ts times, shared by its two sides: Node imports these functions, and the bench
// bundles this file as a dedicated Web Worker for Chromium, where it answers { id, mesh, handles } messages (mesh:
// a URL of an OBJ file) with { id, ms, eigenvalues, cells }. The solid is prepared as bakeMesh prepares it
// (shared/skinning/bake.ts) and kept per mesh; only createEigenFields is timed.

import { createInsideTest, meshBounds, normaliseMesh, parseMesh, thickenFlatMesh } from "../../shared/geometry";
import { createEigenFields } from "../../shared/skinning/eigen";
import type { ShapeSamples } from "../../shared/skinning/fields";

export type Solid = NonNullable<ShapeSamples["solid"]>;

export interface EigenRun {
  /** Milliseconds in createEigenFields. */
  ms: number;
  eigenvalues: number[];
  /** Cells of the voxel grid along x, y, z. */
  cells: [number, number, number];
}

/** Parses the OBJ with the repo's parser and builds what bakeMesh hands providers as `solid`. */
export async function prepareSolid(obj: Uint8Array): Promise<Solid> {
  const mesh = await parseMesh(obj, "obj");
  const shape = normaliseMesh(thickenFlatMesh(mesh)).mesh;
  return { inside: createInsideTest(shape), ...meshBounds(shape.positions) };
}

export function timeEigenFields(solid: Solid, handles: number): EigenRun {
  const start = performance.now();
  const fields = createEigenFields(solid, handles);
  const ms = performance.now() - start;
  return { ms, eigenvalues: Array.from(fields.eigenvalues), cells: fields.frame.cells };
}

interface Request { id: number; mesh: string; handles: number }

if (typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined") {
  const scope = globalThis as unknown as { onmessage: ((event: { data: Request }) => void) | null; postMessage(message: unknown): void };
  const solids = new Map<string, Promise<Solid>>();
  const solidOf = (url: string) => {
    let solid = solids.get(url);
    if (!solid) {
      solid = fetch(url).then(async (response) => {
        if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
        return prepareSolid(new Uint8Array(await response.arrayBuffer()));
      });
      solids.set(url, solid);
    }
    return solid;
  };
  scope.onmessage = async ({ data }) => {
    try {
      const solid = await solidOf(data.mesh);
      scope.postMessage({ id: data.id, ...timeEigenFields(solid, data.handles) });
    } catch (error) {
      scope.postMessage({ id: data.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
  };
}
