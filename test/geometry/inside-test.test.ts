import { describe, expect, it } from "vitest";
import { MeshError, Random, WindingNumberTree, boxMesh, createInsideTest, meshBounds, signedVolume, sphereMesh, thickenFlatMesh } from "../../shared/geometry";
import { isClosedSurface } from "../../shared/geometry/inside-test";
import { RayCrossings } from "../../shared/geometry/ray-crossings";
import { flipped, loadNormalisedAsset, torusMesh, withoutFace } from "./helpers";

/** Uniform random points in [-extent, extent]^3. */
function randomPoints(count: number, extent: number, seed: number): Float64Array {
  const random = new Random(seed);
  const points = new Float64Array(3 * count);
  for (let i = 0; i < points.length; i++) points[i] = (2 * random.next() - 1) * extent;
  return points;
}

describe("createInsideTest", () => {
  it("matches the analytic answer for a sphere on random points", () => {
    const inside = createInsideTest(sphereMesh(1, 4));
    const points = randomPoints(4000, 1.5, 1);
    let checked = 0, wrong = 0;
    for (let i = 0; i < 4000; i++) {
      const r = Math.hypot(points[3 * i], points[3 * i + 1], points[3 * i + 2]);
      if (Math.abs(r - 1) < 0.005) continue; // the icosphere deviates from the true sphere by < 0.002
      checked++;
      if (inside.contains(points[3 * i], points[3 * i + 1], points[3 * i + 2]) !== r < 1) wrong++;
    }
    expect(checked).toBeGreaterThan(3900);
    expect(wrong).toBe(0);
  });

  it("matches the analytic answer for a box, right up to its faces", () => {
    const inside = createInsideTest(boxMesh(2, 1, 0.5));
    const random = new Random(2);
    let wrong = 0;
    for (let i = 0; i < 3000; i++) {
      const x = (random.next() * 2 - 1) * 1.2, y = (random.next() * 2 - 1) * 0.6, z = (random.next() * 2 - 1) * 0.3;
      if (inside.contains(x, y, z) !== (Math.abs(x) < 1 && Math.abs(y) < 0.5 && Math.abs(z) < 0.25)) wrong++;
    }
    expect(wrong).toBe(0);
    expect(inside.contains(0.999999, 0, 0)).toBe(true);
    expect(inside.contains(1.000001, 0, 0)).toBe(false);
  });

  it("gives winding number 1 inside, 0 outside, and -1 inside an inward-wound mesh (still 'inside')", () => {
    const sphere = sphereMesh(1, 3);
    const outward = createInsideTest(sphere);
    const inward = createInsideTest(flipped(sphere));
    // The fast far field is good to a few hundredths; the exact sum is exact.
    expect(Math.abs(outward.windingNumber(0.1, 0.2, -0.3) - 1)).toBeLessThan(0.08);
    expect(Math.abs(outward.windingNumber(3, 0, 0))).toBeLessThan(0.01);
    expect(Math.abs(inward.windingNumber(0.1, 0.2, -0.3) + 1)).toBeLessThan(0.08);
    const exact = new WindingNumberTree(sphere.positions, sphere.triangles, { accuracy: Infinity });
    expect(exact.windingNumber(0.1, 0.2, -0.3)).toBeCloseTo(1, 12);
    expect(exact.windingNumber(3, 0, 0)).toBeCloseTo(0, 12);
    expect(inward.contains(0.1, 0.2, -0.3)).toBe(true);
    expect(inward.contains(3, 0, 0)).toBe(false);
  });

  it("copes with a box that has one face missing: centre inside (w = 5/6), far points outside", () => {
    const open = withoutFace(boxMesh(1, 1, 1), 2, 1);
    expect(open.triangles.length).toBeLessThan(boxMesh(1, 1, 1).triangles.length);
    const inside = createInsideTest(open);
    // The open face subtends 1/6 of all directions seen from the centre.
    expect(new WindingNumberTree(open.positions, open.triangles, { accuracy: Infinity }).windingNumber(0, 0, 0)).toBeCloseTo(5 / 6, 12);
    expect(Math.abs(inside.windingNumber(0, 0, 0) - 5 / 6)).toBeLessThan(0.05);
    expect(inside.contains(0, 0, 0)).toBe(true);
    expect(inside.contains(0.3, -0.3, -0.3)).toBe(true);
    for (const [x, y, z] of [[0, 0, 2], [0, 0, -2], [3, 0, 0], [0, -5, 1], [10, 10, 10]]) expect(inside.contains(x, y, z)).toBe(false);
  });

  it("classifies a torus's hole as outside and its tube as inside", () => {
    const inside = createInsideTest(torusMesh(1, 0.3));
    expect(inside.contains(0, 0, 0)).toBe(false);
    expect(inside.contains(1, 0, 0)).toBe(true);
    expect(inside.contains(0, -1.2, 0.1)).toBe(true);
    expect(inside.contains(1, 0, 0.35)).toBe(false);
  });

  it("agrees with the exact (unaccelerated) winding number on the real meshes", async () => {
    for (const name of ["spot", "stanford-bunny", "teapot", "suzanne"] as const) {
      const mesh = await loadNormalisedAsset(name);
      const fast = createInsideTest(mesh);
      const exact = new WindingNumberTree(mesh.positions, mesh.triangles, { accuracy: Infinity });
      const points = randomPoints(name === "stanford-bunny" ? 60 : 300, 1, 3);
      for (let i = 0; i < points.length / 3; i++) {
        const [x, y, z] = [points[3 * i], points[3 * i + 1], points[3 * i + 2]];
        const w = exact.windingNumber(x, y, z);
        expect(Math.abs(fast.windingNumber(x, y, z) - w)).toBeLessThan(0.08);
        if (Math.abs(Math.abs(w) - 0.5) > 0.1) expect(fast.contains(x, y, z)).toBe(Math.abs(w) > 0.5);
      }
    }
  });

  it("counts a closed mesh's winding number exactly by a ray's crossings: the integer the exact sum rounds to", async () => {
    for (const name of ["spot", "cow", "woody"] as const) {
      // Woody is a flat figure: the bake sees it thickened, a closed solid.
      const mesh = thickenFlatMesh(await loadNormalisedAsset(name));
      expect(isClosedSurface(mesh.triangles)).toBe(true);
      const rays = RayCrossings.create(mesh.positions, mesh.triangles)!;
      const exact = new WindingNumberTree(mesh.positions, mesh.triangles, { accuracy: Infinity });
      const points = randomPoints(800, 1, 5);
      let inside = 0;
      for (let i = 0; i < points.length / 3; i++) {
        const [x, y, z] = [points[3 * i], points[3 * i + 1], points[3 * i + 2]];
        const w = exact.windingNumber(x, y, z), r = rays.windingNumber(x, y, z);
        expect(Number.isInteger(r)).toBe(true);
        // Off the surface the exact sum is an integer up to rounding; on it (not hit by random points) anything goes.
        if (Math.abs(w - Math.round(w)) < 1e-6) expect(r).toBe(Math.round(w) + 0); // + 0: no -0
        if (Math.abs(r) === 1) inside++;
      }
      expect(inside).toBeGreaterThan(5);
    }
  });

  it("counts one crossing where a ray passes through an edge or a vertex shared by several triangles", () => {
    // A cube of edge 2: rays at y, z in {-0.5, 0, 0.5} run through its faces' diagonals and, at 0, their shared corner.
    const box = boxMesh(2, 2, 2), boxRays = RayCrossings.create(box.positions, box.triangles)!;
    for (const y of [-0.5, 0, 0.5]) for (const z of [-0.5, 0, 0.5]) {
      for (const x of [-1.5, -0.999, -0.5, 0, 0.5, 0.999, 1.5]) expect(boxRays.windingNumber(x, y, z)).toBe(Math.abs(x) < 1 ? 1 : 0);
    }
    // An octahedron: the ray along the x axis enters and leaves through vertices where four triangles meet.
    const octahedron = { positions: Float64Array.from([1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1]), triangles: Uint32Array.from([0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5]) };
    expect(signedVolume(octahedron)).toBeGreaterThan(0);
    const octahedronRays = RayCrossings.create(octahedron.positions, octahedron.triangles)!;
    for (const x of [-2, -0.5, 0, 0.7, 2]) expect(octahedronRays.windingNumber(x, 0, 0)).toBe(Math.abs(x) < 1 ? 1 : 0);
    for (const x of [-0.3, 0.3]) expect(octahedronRays.windingNumber(x, 0.2, -0.1)).toBe(1);
  });

  it("leaves a closed mesh of long thin triangles across its shadow to the tree, and still classifies it", () => {
    // A cylinder along x with fan caps: every cap triangle's shadow box spans a large share of the bins.
    const n = 1000, positions: number[] = [], triangles: number[] = [];
    for (const x of [-1, 1]) for (let i = 0; i < n; i++) positions.push(x, Math.cos((2 * Math.PI * i) / n), Math.sin((2 * Math.PI * i) / n));
    for (let i = 1; i + 1 < n; i++) triangles.push(0, i + 1, i, n, n + i, n + i + 1);
    for (let i = 0; i < n; i++) triangles.push(i, (i + 1) % n, n + ((i + 1) % n), i, n + ((i + 1) % n), n + i);
    const cylinder = { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
    expect(isClosedSurface(cylinder.triangles)).toBe(true);
    expect(RayCrossings.create(cylinder.positions, cylinder.triangles)).toBeNull();
    const inside = createInsideTest(cylinder);
    expect(inside.contains(0.3, 0.2, -0.4)).toBe(true);
    expect(inside.contains(0.3, 0.8, 0.8)).toBe(false);
    expect(inside.contains(1.2, 0, 0)).toBe(false);
  });

  it("counts one crossing where a ray runs along a wall parallel to it, whatever the caps' vertex order", () => {
    // A triangular prism along x, its back cap numbered the other way round: its side walls' shadows are the caps' edges.
    const corners = [0.3, 0.3 + (2 * Math.PI) / 3, 0.3 + (4 * Math.PI) / 3].map((t) => [Math.cos(t), Math.sin(t)]);
    const positions = Float64Array.from([-1, ...corners[0], -1, ...corners[1], -1, ...corners[2], 1, ...corners[2], 1, ...corners[1], 1, ...corners[0]]);
    const triangles = Uint32Array.from([0, 2, 1, 5, 4, 3, 0, 1, 4, 0, 4, 5, 1, 2, 3, 1, 3, 4, 2, 0, 5, 2, 5, 3]);
    expect(isClosedSurface(triangles)).toBe(true);
    const rays = RayCrossings.create(positions, triangles)!;
    for (let k = 1; k < 20; k++) {
      // Points on the line of the walls' edges, before, inside and beyond the prism along x.
      const u = k / 20, y = corners[0][0] + u * (corners[1][0] - corners[0][0]), z = corners[0][1] + u * (corners[1][1] - corners[0][1]);
      expect(rays.windingNumber(-3, y, z)).toBe(0);
      expect(rays.windingNumber(3, y, z)).toBe(0);
      expect([0, 1]).toContain(rays.windingNumber(0, y, z));
      // Just inside the wall: inside.
      expect(rays.windingNumber(0, 0.999 * y, 0.999 * z)).toBe(1);
    }
  });

  it("finds the centre of the holey bunny, teapot and suzanne inside and their bounding-box corners outside", async () => {
    for (const name of ["stanford-bunny", "teapot", "suzanne"] as const) {
      const mesh = await loadNormalisedAsset(name);
      const inside = createInsideTest(mesh);
      expect(inside.windingNumber(0, 0, 0)).toBeGreaterThan(0.9);
      const { min, max } = meshBounds(mesh.positions);
      for (const x of [min[0], max[0]]) for (const y of [min[1], max[1]]) for (const z of [min[2], max[2]]) expect(inside.contains(x, y, z)).toBe(false);
    }
  });

  it("classifies spot's volume correctly: inside fraction x box volume = mesh volume", async () => {
    const spot = await loadNormalisedAsset("spot");
    const inside = createInsideTest(spot);
    const { min, max } = meshBounds(spot.positions);
    const random = new Random(4);
    const n = 20_000;
    let hits = 0;
    for (let i = 0; i < n; i++) {
      const x = min[0] + random.next() * (max[0] - min[0]), y = min[1] + random.next() * (max[1] - min[1]), z = min[2] + random.next() * (max[2] - min[2]);
      if (inside.contains(x, y, z)) hits++;
    }
    const boxVolume = (max[0] - min[0]) * (max[1] - min[1]) * (max[2] - min[2]);
    expect((hits / n) * boxVolume).toBeCloseTo(signedVolume(spot), 1);
    expect(Math.abs(((hits / n) * boxVolume) / signedVolume(spot) - 1)).toBeLessThan(0.03);
  });

  it("refuses a mesh with no triangles", () => {
    expect(() => createInsideTest({ positions: new Float64Array(0), triangles: new Uint32Array(0) })).toThrow(MeshError);
  });
});
