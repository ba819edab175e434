// The obstacles a soft body's contacts query, against their geometry written out here: a body asks each surface once a
// step for all of its samples (ContactSurface.signedDistances), and the room's surfaces answer with the nearest of the
// obstacles near the body (NearbyObstacles), or for a character's flesh in its turned frame (FramedSurface).

import path from "node:path";
import { describe, expect, it } from "vitest";
import { BoxObstacle, NearbyObstacles, SphereObstacle, SphereSetObstacle } from "../../shared/scene";
import { FloorContact, PlaneContact } from "../../shared/sim";
import { FramedSurface } from "../../shared/rig/framed-surface";
import { RigMotion } from "../../shared/rig/rig-motion";
import { rigOf } from "../../shared/skinning/baked-rig";
import { loadBody } from "../../server/scenarios/body-from-mesh";
import { randoms } from "../sim/helpers";

const FOX = path.resolve(import.meta.dirname, "../../../shared/assets/characters/fox.glb");

/** Signed distance and outward normal of a box (centre, half extents, rotation row-major body -> world) at p. */
function boxDistance(center: number[], half: number[], r: number[], p: number[]): { distance: number; normal: number[] } {
  const d = [p[0] - center[0], p[1] - center[1], p[2] - center[2]];
  const local = [0, 1, 2].map((a) => r[a] * d[0] + r[3 + a] * d[1] + r[6 + a] * d[2]);
  const q = local.map((v, a) => Math.abs(v) - half[a]);
  const outside = q.map((v) => Math.max(v, 0)), out = Math.hypot(...outside);
  let localNormal: number[];
  let distance: number;
  if (out > 0) {
    distance = out;
    localNormal = outside.map((v, a) => (v / out) * Math.sign(local[a]));
  } else {
    distance = Math.max(...q);
    const face = q.indexOf(distance);
    localNormal = [0, 1, 2].map((a) => (a === face ? Math.sign(local[a]) || 1 : 0));
  }
  return { distance, normal: [0, 1, 2].map((a) => r[3 * a] * localNormal[0] + r[3 * a + 1] * localNormal[1] + r[3 * a + 2] * localNormal[2]) };
}

function sphereDistance(center: number[], radius: number, p: number[]): { distance: number; normal: number[] } {
  const d = [p[0] - center[0], p[1] - center[1], p[2] - center[2]], length = Math.hypot(...d);
  return { distance: length - radius, normal: d.map((v) => v / length) };
}

/** Points scattered around the obstacles, and each one's margin (how far it asks). */
function scatter(count: number, seed: number): { points: Float64Array; margins: Float64Array } {
  const u = randoms(4 * count, seed);
  const points = new Float64Array(3 * count), margins = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    points[3 * i] = 0.6 * u[4 * i];
    points[3 * i + 1] = 0.3 + 0.4 * u[4 * i + 1];
    points[3 * i + 2] = 0.6 * u[4 * i + 2];
    margins[i] = 0.05 + 0.1 * Math.abs(u[4 * i + 3]);
  }
  return { points, margins };
}

describe("obstacles", () => {
  it("the obstacles near a body answer each of its samples with the nearest one's distance and normal, or nothing past its margin", () => {
    const [x, y, z, w] = [0.1, 0.3, -0.2, Math.sqrt(1 - 0.14)];
    const box = new BoxObstacle([0.2, 0.05, 0.1]);
    box.setPose(0.1, 0.3, -0.1, x, y, z, w);
    // The unit quaternion's rotation matrix (row-major, body -> world).
    const rotation = [
      1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
      2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
      2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
    ];
    const ball = new SphereObstacle(0.08, [-0.2, 0.5, 0.1]);
    const set = new SphereSetObstacle(Float64Array.from([0.05, 0.07]));
    set.centers.set([0.25, 0.55, 0.25, 0.3, 0.5, 0.3]);
    set.updateBound();
    const nearby = new NearbyObstacles([box, ball, set]);
    nearby.select(0, 0.5, 0, 0.6, 0.5);
    expect(nearby.selected).toBe(3);

    const count = 400, { points, margins } = scatter(count, 11);
    const distances = new Float64Array(count), normals = new Float64Array(3 * count);
    nearby.signedDistances(count, points, margins, distances, normals);
    /** Which obstacle was nearest, for the samples within their margin: the box, the ball, the set. */
    const seen = new Set<number>();
    for (let i = 0; i < count; i++) {
      const p = [points[3 * i], points[3 * i + 1], points[3 * i + 2]];
      const answers = [boxDistance([0.1, 0.3, -0.1], [0.2, 0.05, 0.1], rotation, p), sphereDistance([-0.2, 0.5, 0.1], 0.08, p), sphereDistance([0.25, 0.55, 0.25], 0.05, p), sphereDistance([0.3, 0.5, 0.3], 0.07, p)];
      const nearest = answers.reduce((a, b) => (b.distance < a.distance ? b : a)), which = Math.min(2, answers.indexOf(nearest));
      if (nearest.distance > margins[i]) {
        // Past the margin an obstacle may answer +Infinity; whatever it answers is not nearer than the margin.
        expect(distances[i]).toBeGreaterThan(margins[i]);
        continue;
      }
      seen.add(which);
      expect(distances[i]).toBeCloseTo(nearest.distance, 12);
      for (let a = 0; a < 3; a++) expect(normals[3 * i + a]).toBeCloseTo(nearest.normal[a], 9);
    }
    // The scatter comes within reach of each of them.
    expect([...seen].sort()).toEqual([0, 1, 2]);
  });

  it("a floor and a wall answer their planes' signed distances", () => {
    const count = 50, { points, margins } = scatter(count, 12);
    const distances = new Float64Array(count), normals = new Float64Array(3 * count);
    new FloorContact(0.4).signedDistances(count, points, margins, distances, normals);
    for (let i = 0; i < count; i++) {
      expect(distances[i]).toBeCloseTo(points[3 * i + 1] - 0.4, 14);
      expect(Array.from(normals.subarray(3 * i, 3 * i + 3))).toEqual([0, 1, 0]);
    }
    // A wall facing -x at x = 0.2 (solid beyond it), given with an unnormalised normal.
    new PlaneContact([-2, 0, 0], -0.2).signedDistances(count, points, margins, distances, normals);
    for (let i = 0; i < count; i++) {
      expect(distances[i]).toBeCloseTo(0.2 - points[3 * i], 14);
      expect(Array.from(normals.subarray(3 * i, 3 * i + 3))).toEqual([-1, 0, 0]);
    }
  });

  it("a character's flesh meets an obstacle where its turned and moved frame puts the samples, with the normals turned back", async () => {
    const loaded = await loadBody({ mesh: FOX, weights: "baseline", handles: 8, cubature: 64, size: 0.8 });
    const motion = new RigMotion(rigOf(loaded.baked)!, loaded.baked, 0.8);
    const yaw = 0.7, c = Math.cos(yaw), s = Math.sin(yaw);
    motion.setFrame(0.3, 0.1, -0.2, yaw);
    const box = new BoxObstacle([0.3, 0.2, 0.3], [0.2, 0.3, 0]);
    const nearby = new NearbyObstacles([box]);
    nearby.select(0, 0, 0, 10, 10);
    const framed = new FramedSurface(nearby, motion);
    const count = 200, { points, margins } = scatter(count, 13);
    const distances = new Float64Array(count), normals = new Float64Array(3 * count), world = new Float64Array(3);
    framed.signedDistances(count, points, margins, distances, normals);
    let near = 0;
    for (let i = 0; i < count; i++) {
      // Where the character's frame puts the point.
      motion.toWorld(points[3 * i], points[3 * i + 1], points[3 * i + 2], world);
      const expected = boxDistance([0.2, 0.3, 0], [0.3, 0.2, 0.3], [1, 0, 0, 0, 1, 0, 0, 0, 1], Array.from(world));
      if (expected.distance > margins[i]) continue;
      near++;
      expect(distances[i]).toBeCloseTo(expected.distance, 12);
      // The world normal in the frame: R^T n.
      const n = expected.normal, inFrame = [c * n[0] - s * n[2], n[1], s * n[0] + c * n[2]];
      for (let a = 0; a < 3; a++) expect(normals[3 * i + a]).toBeCloseTo(inFrame[a], 9);
    }
    expect(near).toBeGreaterThan(count / 10);
  });
});
