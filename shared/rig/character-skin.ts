// A character's render mesh as it is shown: each vertex where the rig's pose puts it (linear blend skinning of the
// bind pose), plus the soft part (the subspace's displacement, from its strongest influences), in the character's
// frame (a page's mesh carries the frame, RigMotion's framePosition and frameYaw, as its object transform). Pages
// compute the same in their vertex shader (client/src/render/soft-skinning.ts); this CPU statement of it is what
// tests judge the drawn flesh by (test/server/fox-pull.test.ts). Works on a page's render table (vertices split at
// texture seams), so each vertex finds its skin weights at the bake's vertex it came from. Allocates nothing.

import type { BakedBody } from "../skinning/baked-body";
import type { RigMotion } from "./rig-motion";
import { skinWeightsAt } from "../skinning/point-skin";

export class CharacterSkin {
  private readonly rest: Float64Array;
  private readonly joints: Uint16Array;
  private readonly weights: Float32Array;

  /**
   * `positions`: the render table's normalised rest positions (3 per vertex); `handles` and `weights`: its
   * `influences` learned handles (1..K) and weights per vertex (RenderInfluences).
   */
  constructor(baked: BakedBody, size: number, positions: ArrayLike<number>, private readonly handles: ArrayLike<number>, private readonly handleWeights: ArrayLike<number>, private readonly influences: number) {
    const count = positions.length / 3, s = size / 2;
    ({ joints: this.joints, weights: this.weights } = skinWeightsAt(baked, positions));
    this.rest = new Float64Array(3 * count);
    for (let i = 0; i < 3 * count; i++) this.rest[i] = positions[i] * s;
  }

  /** Every vertex (3 per vertex) in the character's frame for the motion's pose and the soft coordinates q. */
  write(motion: RigMotion, q: Float64Array, out: Float32Array): void {
    const rest = this.rest, mat = motion.jointMatrices, m = q.length / 3, inf = this.influences;
    for (let v = 0; v < rest.length / 3; v++) {
      const x = rest[3 * v], y = rest[3 * v + 1], z = rest[3 * v + 2];
      // The soft part: the constant handle, then the vertex's strongest learned handles.
      let ux = q[0] * x + q[1] * y + q[2] * z + q[3];
      let uy = q[m] * x + q[m + 1] * y + q[m + 2] * z + q[m + 3];
      let uz = q[2 * m] * x + q[2 * m + 1] * y + q[2 * m + 2] * z + q[2 * m + 3];
      for (let s = 0; s < inf; s++) {
        const w = this.handleWeights[v * inf + s];
        if (w === 0) continue;
        const o = 4 * this.handles[v * inf + s];
        ux += w * (q[o] * x + q[o + 1] * y + q[o + 2] * z + q[o + 3]);
        uy += w * (q[m + o] * x + q[m + o + 1] * y + q[m + o + 2] * z + q[m + o + 3]);
        uz += w * (q[2 * m + o] * x + q[2 * m + o + 1] * y + q[2 * m + o + 2] * z + q[2 * m + o + 3]);
      }
      let sx = 0, sy = 0, sz = 0;
      for (let k = 0; k < 4; k++) {
        const w = this.weights[4 * v + k];
        if (w === 0) continue;
        const o = 16 * this.joints[4 * v + k];
        sx += w * (mat[o] * x + mat[o + 4] * y + mat[o + 8] * z + mat[o + 12]);
        sy += w * (mat[o + 1] * x + mat[o + 5] * y + mat[o + 9] * z + mat[o + 13]);
        sz += w * (mat[o + 2] * x + mat[o + 6] * y + mat[o + 10] * z + mat[o + 14]);
      }
      out[3 * v] = sx + ux; out[3 * v + 1] = sy + uy; out[3 * v + 2] = sz + uz;
    }
  }
}
