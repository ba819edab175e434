// Flat meshes (a square, a lone triangle, a cut-out) become plates whatever plane they lie in: a tilted one is
// thickened like its twin in z = 0, and so is one that is only nearly flat (a sheet with a little noise, a
// paper-thin solid).

import { describe, expect, it } from "vitest";
import { boxMesh, createInsideTest, FLAT_MESH_THICKNESS, meshBounds, normaliseMesh, sampleInterior, signedVolume, sphereMesh, thickenFlatMesh, type TriangleMesh } from "../../shared/geometry";

const DEG = Math.PI / 180;

/** The mesh turned 30 degrees about x, then 20 about y (no face of it along an axis). */
function tilted(mesh: TriangleMesh, aboutX = 30 * DEG, aboutY = 20 * DEG): TriangleMesh {
  const positions = new Float64Array(mesh.positions.length);
  const [cx, sx, cy, sy] = [Math.cos(aboutX), Math.sin(aboutX), Math.cos(aboutY), Math.sin(aboutY)];
  for (let i = 0; i < positions.length; i += 3) {
    const x = mesh.positions[i], y = mesh.positions[i + 1], z = mesh.positions[i + 2];
    const y1 = cx * y - sx * z, z1 = sx * y + cx * z;
    positions[i] = cy * x + sy * z1;
    positions[i + 1] = y1;
    positions[i + 2] = -sy * x + cy * z1;
  }
  return { positions, triangles: mesh.triangles.slice() };
}

const square: TriangleMesh = { positions: new Float64Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]), triangles: new Uint32Array([0, 1, 2, 0, 2, 3]) };
const triangle: TriangleMesh = { positions: new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), triangles: new Uint32Array([0, 1, 2]) };
/** A square sheet of four triangles round its centre, the centre raised a hair (1e-4 of its size): nearly flat. */
const bentSquare: TriangleMesh = {
  positions: new Float64Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 1e-4]),
  triangles: new Uint32Array([0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4]),
};

function largestExtent(mesh: TriangleMesh): number {
  const { min, max } = meshBounds(mesh.positions);
  return Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

/** The plate is a closed, outward solid of the sheet's area times the plate thickness, with interior samples inside it. */
function expectPlate(sheet: TriangleMesh, area: number): void {
  const plate = thickenFlatMesh(sheet);
  expect(plate).not.toBe(sheet);
  const thickness = FLAT_MESH_THICKNESS * largestExtent(sheet);
  expect(signedVolume(plate) / (area * thickness)).toBeCloseTo(1, 6);
  const shape = normaliseMesh(plate).mesh;
  const samples = sampleInterior(shape, { count: 64, seed: 1 });
  const inside = createInsideTest(shape);
  for (let i = 0; i < samples.points.length; i += 3) expect(inside.contains(samples.points[i], samples.points[i + 1], samples.points[i + 2])).toBe(true);
  // The samples' volume is the plate's (normalised units: scaled by the normalisation's cube).
  const scale = normaliseMesh(plate).scale;
  expect(samples.volumes.reduce((s, v) => s + v, 0) / (area * thickness / scale ** 3)).toBeCloseTo(1, 1);
}

describe("thickenFlatMesh", () => {
  it("makes a plate of a square and of a lone triangle in z = 0", () => {
    expectPlate(square, 1);
    expectPlate(triangle, 0.5);
  });

  it("makes a plate of the same square and triangle in a tilted plane", () => {
    expectPlate(tilted(square), 1);
    expectPlate(tilted(triangle), 0.5);
    expectPlate(tilted(triangle, -75 * DEG, 110 * DEG), 0.5);
  });

  it("makes a plate of a sheet wound both ways (each triangle faces its own side)", () => {
    const mixed = { positions: square.positions, triangles: new Uint32Array([0, 1, 2, 0, 3, 2]) };
    expectPlate(mixed, 1);
    expectPlate(tilted(mixed), 1);
  });

  it("makes a plate of a nearly flat sheet, upright or tilted", () => {
    expectPlate(bentSquare, 1);
    expectPlate(tilted(bentSquare), 1);
  });

  it("makes a plate of a paper-thin closed solid, upright or tilted", () => {
    const card = boxMesh(1, 1, 0.002, 1); // thinner than a cell of a grid over its tilted box
    const plate = thickenFlatMesh(tilted(card));
    expect(signedVolume(plate)).toBeGreaterThan(0);
    for (const sheet of [card, tilted(card)]) {
      const shape = normaliseMesh(thickenFlatMesh(sheet)).mesh;
      expect(sampleInterior(shape, { count: 256, seed: 1 }).points.length).toBe(3 * 256);
    }
  });

  it("leaves solids as they are, tilted or not", () => {
    for (const solid of [sphereMesh(1, 2), boxMesh(1, 1, 0.1, 1), tilted(boxMesh(1, 1, 0.1, 1))]) expect(thickenFlatMesh(solid)).toBe(solid);
  });
});
