// Fields predicted on a posed frame, read in the bind pose: a bind-pose point is carried to where the frame's pose
// puts it (linear blend skinning, the material correspondence the animation gives), into the frame's renormalised
// units, and the frame's fields are read there. Gradients follow by the chain rule through the carry's Jacobian.
// Not describable: a client gets the render weights, so browsers need no rig-aware decoder.

import type { SkinningFields } from "./fields";
import { intoFrameView, type FrameView, type ShapePoser } from "./posed-frames";

export class CarriedFields implements SkinningFields {
  readonly count: number;

  /** `poser` must hold the frame's pose whenever these fields are evaluated (the bake does nothing else with it). */
  constructor(private readonly inner: SkinningFields, private readonly poser: ShapePoser, private readonly view: FrameView) {
    this.count = inner.count;
  }

  async evaluate(points: Float64Array, weights: Float64Array, gradients?: Float64Array): Promise<void> {
    const n = points.length / 3, k = this.count;
    const skin = this.poser.skinAt(points);
    const posed = new Float64Array(points.length);
    this.poser.carry(points, skin, posed);
    intoFrameView(this.view, posed, posed);
    const inner = gradients ? new Float64Array(n * k * 3) : undefined;
    await this.inner.evaluate(posed, weights, inner);
    if (!gradients || !inner) return;
    // d(frame units)/d(bind) = J / scale, so the bind-pose gradient is J^T g / scale.
    const jacobian = new Float64Array(9), s = 1 / this.view.scale;
    for (let i = 0; i < n; i++) {
      this.poser.jacobian(skin, i, jacobian);
      for (let f = 0; f < k; f++) {
        const o = 3 * (i * k + f), gx = inner[o], gy = inner[o + 1], gz = inner[o + 2];
        for (let a = 0; a < 3; a++) gradients[o + a] = s * (jacobian[3 * a] * gx + jacobian[3 * a + 1] * gy + jacobian[3 * a + 2] * gz);
      }
    }
  }
}
