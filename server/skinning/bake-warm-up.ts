// The bakes a process runs before it serves or times a bake: the first bakes of a fresh process also compile the
// code they run (woody's network bake: 824-858 ms in a fresh process, about 280 warm), so the upload worker warms up
// when it starts and eval:modes times its bakes after the same shapes (with its own bake options).

import { boxMesh, sphereMesh, type TriangleMesh } from "../../shared/geometry";
import { bakeMesh, type BakedBody, type BakeOptions, type SkinningFieldProvider } from "../../shared/skinning";

/**
 * The warm-up's shapes (m): large enough for the room's options (16 handles need a few hundred grid nodes), and
 * several, so that the compiler has seen the bake's code run more than once, with more than one shape (once is not
 * enough: the first upload after a one-box warm-up still took half as long again as the later ones). One is open
 * (a box with a hole): the inside test of a mesh with holes is another code path (the winding-number tree) than a
 * closed one's (ray crossings), and many real files have holes.
 */
const WARM_UP_SHAPES: readonly TriangleMesh[] = [boxMesh(0.2, 0.2, 0.2), sphereMesh(0.1), withHole(boxMesh(0.3, 0.1, 0.12))];

/** The mesh without its last two triangles. */
function withHole(mesh: TriangleMesh): TriangleMesh {
  return { positions: mesh.positions, triangles: mesh.triangles.slice(0, -6) };
}

/**
 * Rounds of the warm-up shapes. After one, woody's next two network bakes still took 378-425 ms against about 300
 * once the process had baked a dozen times: the compiler had not yet settled on the code of functions a bake runs
 * once or twice.
 */
const WARM_UP_ROUNDS = 2;

/** Bakes the warm-up shapes WARM_UP_ROUNDS times with `provider` and `options`, handing each body to `use` (whatever a bake is for). */
export async function warmUpBakes(provider: SkinningFieldProvider, options: BakeOptions, use: (body: BakedBody) => void = () => {}): Promise<void> {
  for (let round = 0; round < WARM_UP_ROUNDS; round++) for (const mesh of WARM_UP_SHAPES) use((await bakeMesh(mesh, provider, options)).body);
}
