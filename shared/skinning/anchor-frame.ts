// The anchor frame of an animated shape (issue 16, after SPRig): of the frames a provider predicts fields on, the
// one whose prediction the others agree with most (the medoid under the subspace distance), rather than trusting
// the bind pose. The frame of least deformation (edge strain against the bind pose) is the other candidate, reported
// beside it. Also: a provider's prediction on one frame at given points, which the bake and the eval share.

import { subspaceDistance, type FieldTable } from "./field-agreement";
import type { SkinningFieldProvider, SkinningFields } from "./fields";
import { intoFrameView, type FrameView } from "./posed-frames";

export interface AnchorChoice {
  /** The chosen frame: the consensus one. */
  index: number;
  rule: "consensus";
  /** The medoid: least mean subspace distance to the other frames' predictions. */
  consensus: { index: number; meanDistance: number };
  /** The least strained frame and its strain energy (absent when no energies were given). */
  leastStrain?: { index: number; energy: number; meanDistance: number };
  /** Each frame's mean subspace distance to the others. */
  meanDistances: number[];
}

/** The provider's fields on a frame: its surface shown, evaluated at `points` (the frame's units). */
export async function predictOnFrame(provider: SkinningFieldProvider, view: FrameView, points: Float64Array, k: number): Promise<{ table: FieldTable; fields: SkinningFields }> {
  const inside = new Float64Array(points.length);
  intoFrameView(view, points, inside);
  const fields = await provider.fieldsFor({ surfacePoints: view.surfacePoints, surfaceNormals: view.surfaceNormals, interiorPoints: inside }, k);
  const count = points.length / 3, values = new Float64Array(count * k);
  await fields.evaluate(inside, values);
  return { table: { values, count, k }, fields };
}

/** Each frame's mean subspace distance to every other frame's prediction (same material points in each). */
export function meanAgreement(predictions: FieldTable[]): number[] {
  const n = predictions.length, sums = new Float64Array(n);
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const d = subspaceDistance(predictions[a], predictions[b]);
      sums[a] += d;
      sums[b] += d;
    }
  }
  return Array.from(sums, (s) => (n > 1 ? s / (n - 1) : 0));
}

/** The consensus anchor of the frames' predictions, with the least strained frame (energies[i]) beside it. */
export function chooseAnchor(predictions: FieldTable[], energies?: ArrayLike<number>): AnchorChoice {
  if (predictions.length === 0) throw new Error("an anchor needs at least one frame");
  const meanDistances = meanAgreement(predictions);
  let best = 0;
  for (let i = 1; i < meanDistances.length; i++) if (meanDistances[i] < meanDistances[best]) best = i;
  const choice: AnchorChoice = { index: best, rule: "consensus", consensus: { index: best, meanDistance: meanDistances[best] }, meanDistances };
  if (energies && energies.length === predictions.length) {
    let least = 0;
    for (let i = 1; i < energies.length; i++) if (energies[i] < energies[least]) least = i;
    choice.leastStrain = { index: least, energy: energies[least], meanDistance: meanDistances[least] };
  }
  return choice;
}
