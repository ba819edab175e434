// The GPU skinning tables: the strongest weights per vertex, and tangential weight derivatives good enough for
// the shader's normals (n' = F t1 x F t2).

import { describe, expect, it } from "vitest";
import { sphereMesh } from "../../shared/geometry";
import { computeRenderInfluences, tangentOf, truncationError } from "../../shared/skinning";

/** A unit sphere whose learned fields are known functions: x, y, z, x^2 - y^2 and 0.1 z (the weakest). */
function sphereWithFields() {
  const mesh = sphereMesh(1, 4);
  const v = mesh.positions.length / 3, k = 5, h = k + 1;
  const renderWeights = new Float64Array(v * h);
  for (let i = 0; i < v; i++) {
    const x = mesh.positions[3 * i], y = mesh.positions[3 * i + 1], z = mesh.positions[3 * i + 2];
    renderWeights.set([1, x, y, z, x * x - y * y, 0.1 * z], i * h);
  }
  return { renderPositions: mesh.positions, triangles: mesh.triangles, renderWeights, learnedHandles: k };
}

describe("render influences", () => {
  it("estimates each weight's derivative along the two tangents to within 3% of the exact gradient", () => {
    const body = sphereWithFields();
    const table = computeRenderInfluences(body, 8);
    const frame = new Float64Array(6);
    let worst = 0;
    for (let i = 0; i < table.vertexCount; i++) {
      const x = body.renderPositions[3 * i], y = body.renderPositions[3 * i + 1];
      tangentOf(table.normals[3 * i], table.normals[3 * i + 1], table.normals[3 * i + 2], frame);
      for (let s = 0; s < 5; s++) {
        const handle = table.handles[i * 8 + s];
        const gradient = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [2 * x, -2 * y, 0], [0, 0, 0.1]][handle - 1];
        const exact1 = gradient[0] * frame[0] + gradient[1] * frame[1] + gradient[2] * frame[2];
        const exact2 = gradient[0] * frame[3] + gradient[1] * frame[4] + gradient[2] * frame[5];
        worst = Math.max(worst, Math.abs(table.tangentDerivatives1[i * 8 + s] - exact1), Math.abs(table.tangentDerivatives2[i * 8 + s] - exact2));
      }
    }
    // Gradients here are O(1) (up to 2): 0.06 is 3%.
    expect(worst).toBeLessThan(0.06);
  });

  it("keeps the strongest weights, and only truncated ones cost accuracy", () => {
    const body = sphereWithFields();
    const all = computeRenderInfluences(body, 8);
    const four = computeRenderInfluences(body, 4);
    // Slot order is strongest first, and the unused slots of a wide table are empty.
    for (let i = 0; i < all.vertexCount; i++) {
      for (let s = 1; s < 5; s++) expect(Math.abs(all.weights[i * 8 + s])).toBeLessThanOrEqual(Math.abs(all.weights[i * 8 + s - 1]));
      expect(all.weights[i * 8 + 5]).toBe(0);
    }
    // A state that moves every handle: full tables reproduce it exactly, four of five fields do not.
    const q = new Float64Array(3 * 4 * 6).map((_, j) => 0.01 * Math.sin(j));
    expect(truncationError(body, all, q, 2)).toBeLessThan(1e-12);
    expect(truncationError(body, four, q, 2)).toBeGreaterThan(1e-4);
  });

  it("refuses influence counts the shader does not support", () => {
    expect(() => computeRenderInfluences(sphereWithFields(), 6)).toThrow(/influences must be one of/);
  });
});
