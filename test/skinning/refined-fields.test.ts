// The network's refinement of grid fields (refined-fields.ts): equal to the grid at every node, the network's own
// shape inside the cells. With a "network" whose fields are quadratics and finished fields that are combinations of
// them, the refined fields are those quadratics exactly everywhere, where trilinear interpolation of the same node
// values is not; and the combination recovered by the mass-weighted fit is the one the fields were made with.

import { describe, expect, it } from "vitest";
import { describeRefinement, GridFields, MODEL_DESCRIPTION, networkCombination, readRefinement, refinementCorrection, type GridFrame, type SkinningFields } from "../../shared/skinning";

const frame: GridFrame = { cells: [6, 5, 4], origin: [-1, -0.8, -0.6], spacing: 0.3 };
const K = 3, k = 4;
/** The stand-in network: 1, x^2, y z, x y^2 (smooth, not trilinear). */
const network: SkinningFields = {
  count: k,
  async evaluate(points, weights) {
    for (let p = 0; p < points.length / 3; p++) {
      const [x, y, z] = [points[3 * p], points[3 * p + 1], points[3 * p + 2]];
      weights.set([1, x * x, y * z, x * y * y], p * k);
    }
  },
};
const C = Float64Array.from([0.5, -1, 0, 2, 0.3, 0, 0, 1, 1, -0.5, 0.25, 0]);

async function exact(points: Float64Array): Promise<Float64Array> {
  const raw = new Float64Array((points.length / 3) * k), out = new Float64Array((points.length / 3) * K);
  await network.evaluate(points, raw);
  for (let p = 0; p < points.length / 3; p++) for (let a = 0; a < k; a++) for (let f = 0; f < K; f++) out[p * K + f] += raw[p * k + a] * C[a * K + f];
  return out;
}

describe("refined fields", () => {
  const nodes = frame.cells.reduce((a, c) => a * (c + 1), 1), nodePoints = new Float64Array(3 * nodes);
  for (let node = 0; node < nodes; node++) {
    const [nx, ny] = [frame.cells[0] + 1, frame.cells[1] + 1];
    nodePoints.set([frame.origin[0] + (node % nx) * frame.spacing, frame.origin[1] + (Math.floor(node / nx) % ny) * frame.spacing, frame.origin[2] + Math.floor(node / (nx * ny)) * frame.spacing], 3 * node);
  }

  it("the fit recovers the combination the finished fields were made of", async () => {
    const raw = new Float64Array(nodes * k);
    await network.evaluate(nodePoints, raw);
    const recovered = networkCombination(raw, await exact(nodePoints), new Float64Array(nodes).fill(0.027), k, K);
    for (let i = 0; i < C.length; i++) expect(recovered[i]).toBeCloseTo(C[i], 6);
  });

  it("is the grid at the nodes and the network between them, where trilinear interpolation is not", async () => {
    const grid = new GridFields(frame, K, await exact(nodePoints), new Uint8Array(nodes).fill(1));
    const refinement = readRefinement(describeRefinement(frame, K, { kind: MODEL_DESCRIPTION, data: new Float64Array(5) }, C));
    const points = Float64Array.from([0.11, 0.07, -0.33, -0.52, 0.41, 0.2, 0.7, -0.75, 0.55, -0.1, 0.1, 0.05, ...nodePoints.subarray(3 * 17, 3 * 19)]);
    const n = points.length / 3, trilinear = new Float64Array(n * K);
    await grid.evaluate(points, trilinear);
    const { correction, queries } = await refinementCorrection(refinement, network, points);
    expect(queries).toBeGreaterThan(n);
    const truth = await exact(points);
    let trilinearError = 0;
    for (let i = 0; i < n * K; i++) {
      expect(trilinear[i] + correction[i]).toBeCloseTo(truth[i], 10);
      trilinearError = Math.max(trilinearError, Math.abs(trilinear[i] - truth[i]));
    }
    expect(trilinearError).toBeGreaterThan(1e-3);
    // At the two nodes the correction vanishes.
    for (let i = (n - 2) * K; i < n * K; i++) expect(Math.abs(correction[i])).toBeLessThan(1e-12);
  });

  it("refuses a malformed refinement", () => {
    const good = describeRefinement(frame, K, { kind: MODEL_DESCRIPTION, data: new Float64Array(5) }, C);
    expect(() => readRefinement(good.subarray(0, good.length - 1))).toThrow(/malformed/);
    expect(() => readRefinement(Float64Array.from([0, ...good.subarray(1)]))).toThrow(/malformed/);
  });
});
