import { describe, expect, it } from "vitest";
import { MeshError, boxMesh, createInsideTest, meshBounds, sampleInterior, signedVolume, sphereMesh, type InteriorSamples, type TriangleMesh } from "../../shared/geometry";
import { loadNormalisedAsset, torusMesh } from "./helpers";

function total(values: Float64Array): number {
  return values.reduce((sum, v) => sum + v, 0);
}

function expectAllInside(mesh: TriangleMesh, points: Float64Array): void {
  const inside = createInsideTest(mesh);
  let outside = 0;
  for (let i = 0; i < points.length; i += 3) if (!inside.contains(points[i], points[i + 1], points[i + 2])) outside++;
  expect(outside).toBe(0);
}

/** Largest distance from any inside candidate to its nearest cubature point. */
function coverageRadius(samples: InteriorSamples): number {
  const { points, candidates } = samples;
  let worst = 0;
  for (let i = 0; i < candidates.length; i += 3) {
    let nearest = Infinity;
    for (let c = 0; c < points.length; c += 3) {
      nearest = Math.min(nearest, Math.hypot(candidates[i] - points[c], candidates[i + 1] - points[c + 1], candidates[i + 2] - points[c + 2]));
    }
    worst = Math.max(worst, nearest);
  }
  return worst;
}

describe("sampleInterior", () => {
  it("gives volumes summing to a sphere's volume, with all points inside", () => {
    const sphere = sphereMesh(1, 4);
    const samples = sampleInterior(sphere, { count: 256, seed: 1, candidates: 16_384 });
    expect(samples.points.length).toBe(3 * 256);
    expect(samples.volumes.length).toBe(256);
    expect(Math.abs(total(samples.volumes) / ((4 / 3) * Math.PI) - 1)).toBeLessThan(0.02);
    expect(Math.abs(total(samples.volumes) / signedVolume(sphere) - 1)).toBeLessThan(0.015);
    expectAllInside(sphere, samples.points);
    expectAllInside(sphere, samples.candidates);
  });

  it("gives a box's volume and spreads points evenly through it", () => {
    const box = boxMesh(2, 1, 0.5);
    const samples = sampleInterior(box, { count: 128, seed: 2, candidates: 8192 });
    expect(total(samples.volumes)).toBeCloseTo(1, 9); // every cell of the box's own bounding box is inside
    // Every candidate is within about one cubature spacing of a cubature point: no big gaps.
    const spacing = Math.cbrt(1 / 128);
    expect(coverageRadius(samples)).toBeLessThan(1.1 * spacing);
    // No cluster is tiny or huge compared with the mean.
    const mean = 1 / 128;
    for (const v of samples.volumes) {
      expect(v).toBeGreaterThan(0.3 * mean);
      expect(v).toBeLessThan(2 * mean);
    }
  });

  it("reports consistent candidates: count x candidateVolume = total volume, clusters match volumes", () => {
    const samples = sampleInterior(sphereMesh(0.5, 3), { count: 64, seed: 3, candidates: 4096 });
    const candidateCount = samples.candidates.length / 3;
    expect(candidateCount * samples.candidateVolume).toBeCloseTo(total(samples.volumes), 12);
    const sizes = new Array<number>(64).fill(0);
    for (const c of samples.candidateCluster) sizes[c]++;
    sizes.forEach((size, c) => expect(size * samples.candidateVolume).toBeCloseTo(samples.volumes[c], 12));
    expect(Math.min(...sizes)).toBeGreaterThan(0);
    // Each cubature point is its cluster's centroid.
    const sums = new Float64Array(3 * 64);
    samples.candidateCluster.forEach((c, i) => {
      for (let k = 0; k < 3; k++) sums[3 * c + k] += samples.candidates[3 * i + k];
    });
    for (let c = 0; c < 64; c++) for (let k = 0; k < 3; k++) expect(samples.points[3 * c + k]).toBeCloseTo(sums[3 * c + k] / sizes[c], 12);
  });

  it("is bit-identical for the same seed and different for another", () => {
    const box = boxMesh(1, 0.1, 0.1);
    const a = sampleInterior(box, { count: 32, seed: 5, candidates: 4096 });
    const b = sampleInterior(box, { count: 32, seed: 5, candidates: 4096 });
    const c = sampleInterior(box, { count: 32, seed: 6, candidates: 4096 });
    expect(b.points).toEqual(a.points);
    expect(b.volumes).toEqual(a.volumes);
    expect(b.candidates).toEqual(a.candidates);
    expect(c.points).not.toEqual(a.points);
    expect(c.candidates).not.toEqual(a.candidates);
  });

  it("keeps cluster points inside when a cluster's centroid falls in a hole (torus)", () => {
    const torus = torusMesh(1, 0.2);
    // Two clusters are two half rings, whose centroids lie in the hole; they must be moved into the tube.
    const samples = sampleInterior(torus, { count: 2, seed: 1, candidates: 8192 });
    expectAllInside(torus, samples.points);
    expect(Math.abs(total(samples.volumes) / (2 * Math.PI ** 2 * 1 * 0.2 ** 2) - 1)).toBeLessThan(0.03);
  });

  it("matches the volume of the watertight spot and cow within 3 %", async () => {
    for (const name of ["spot", "cow"] as const) {
      const mesh = await loadNormalisedAsset(name);
      const samples = sampleInterior(mesh, { count: 256, seed: 1 });
      expect(Math.abs(total(samples.volumes) / signedVolume(mesh) - 1)).toBeLessThan(0.03);
      expectAllInside(mesh, samples.points);
    }
  });

  it("finds a plausible interior in the holey bunny, teapot and suzanne", async () => {
    for (const name of ["stanford-bunny", "teapot", "suzanne"] as const) {
      const mesh = await loadNormalisedAsset(name);
      const samples = sampleInterior(mesh, { count: 256, seed: 1, candidates: 16_384 });
      const { min, max } = meshBounds(mesh.positions);
      const fillFraction = total(samples.volumes) / ((max[0] - min[0]) * (max[1] - min[1]) * (max[2] - min[2]));
      expect(fillFraction).toBeGreaterThan(0.15);
      expect(fillFraction).toBeLessThan(0.5);
      // The holes are small, so the signed volume of the (nearly closed) surface is still a fair reference.
      expect(Math.abs(total(samples.volumes) / signedVolume(mesh) - 1)).toBeLessThan(name === "suzanne" ? 0.08 : 0.05);
      expectAllInside(mesh, samples.points);
    }
  });

  it("refuses the flat woody mesh, saying it is flat", async () => {
    const woody = await loadNormalisedAsset("woody");
    expect(() => sampleInterior(woody, { count: 16, seed: 1 })).toThrow(MeshError);
    expect(() => sampleInterior(woody, { count: 16, seed: 1 })).toThrow(/flat/);
  });

  it("refuses to return more points than inside candidates, and bad counts", () => {
    const sphere = sphereMesh(1, 2);
    expect(() => sampleInterior(sphere, { count: 600, seed: 1, candidates: 1000 })).toThrow(/only \d+ of \d+ candidate points are inside/);
    expect(() => sampleInterior(sphere, { count: 0, seed: 1 })).toThrow(MeshError);
    expect(() => sampleInterior(sphere, { count: 10, seed: 1, candidates: 5 })).toThrow(/candidates/);
    // A lone triangle encloses nothing (an unused vertex gives its bounding box some depth).
    const sheet = { positions: new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0.5]), triangles: new Uint32Array([0, 1, 2]) };
    expect(() => sampleInterior(sheet, { count: 4, seed: 1, candidates: 1000 })).toThrow(/looks flat, very thin or open/);
  });
});

describe("sampleInterior on thin shapes", () => {
  it("samples a thin slab with about the asked-for number of candidates and the right volume", () => {
    const slab = boxMesh(1, 1, 1e-5, 2); // far thinner than a cubic cell of 1/4096 of its box
    const samples = sampleInterior(slab, { count: 16, seed: 1, candidates: 4096 });
    expect(samples.candidates.length / 3).toBeGreaterThan(3500);
    expect(samples.candidates.length / 3).toBeLessThan(4700);
    expect(Math.abs(total(samples.volumes) / 1e-5 - 1)).toBeLessThan(1e-9);
  });
});
