// The per-player transform of mixed reality: a real table, wherever and however turned in a player's room, ends up
// under the shared room's table top; two players who align to the same real table see one shared table on it.

import { expect, it } from "vitest";
import { alignToSurface, nudgeAlignment, PLAYGROUND, realToRoom, roomToReal, tableTop, UNALIGNED } from "../../shared/scene";

const table = tableTop(PLAYGROUND)!;

it("the playground's table top is the one bodies land on", () => {
  expect(table.y).toBeCloseTo(0.75, 6);
  expect(table.halfX).toBeGreaterThan(table.halfZ);
});

it("a real table anywhere, turned any way, ends up under the table top; nudges move and turn it about its centre", () => {
  for (const [x, y, z, yaw] of [[1.2, 0.72, -0.4, 0.3], [-2, 0.9, 3, 2.8], [0, 0.68, 0, -1.5]]) {
    // The real table's centre and long axis, in the player's real space; seen in the room through the current origin.
    const current = { x: 0.3, y: 0.1, z: -0.2, yaw: 0.7 };
    const seen = realToRoom(current, x, y, z);
    const aligned = alignToSurface(current, { x: seen[0], y: seen[1], z: seen[2], yaw: yaw + current.yaw }, table);
    const centre = roomToReal(aligned, table.x, table.y, table.z);
    expect(Math.hypot(centre[0] - x, centre[1] - y, centre[2] - z)).toBeLessThan(1e-9);
    // The table's long axis (room +x) lies along the real table's, one way or the other.
    const end = roomToReal(aligned, table.x + 1, table.y, table.z);
    const along = [end[0] - centre[0], end[2] - centre[2]];
    const axis = [Math.cos(yaw), -Math.sin(yaw)];
    expect(Math.abs(along[0] * axis[0] + along[1] * axis[1])).toBeCloseTo(1, 9);
    // A nudge moves the table 5 cm along room x as the player sees it, and a turn keeps its centre where it was.
    const nudged = nudgeAlignment(aligned, 0.05, 0, 0, table);
    const moved = roomToReal(nudged, table.x, table.y, table.z);
    expect(Math.hypot(moved[0] - centre[0], moved[2] - centre[2])).toBeCloseTo(0.05, 9);
    const turned = roomToReal(nudgeAlignment(aligned, 0, 0, 0.4, table), table.x, table.y, table.z);
    expect(Math.hypot(turned[0] - centre[0], turned[1] - centre[1], turned[2] - centre[2])).toBeLessThan(1e-9);
  }
});

it("two headsets in one room, each with its own tracking space, put the shared table on the same real table", () => {
  // One physical room; each headset's tracking space is placed differently in it (real = R(a) tracking + t).
  const physicalTable = { x: 0.5, y: 0.74, z: -1.1, yaw: 0.25 };
  const headsets = [{ t: [0.2, 0, 0.3], a: 0.4 }, { t: [-1.5, 0, 2], a: -2.1 }];
  const where = headsets.map(({ t, a }) => {
    // The table in this headset's tracking space.
    const dx = physicalTable.x - t[0], dz = physicalTable.z - t[2];
    const c = Math.cos(-a), s = Math.sin(-a);
    const local = { x: c * dx + s * dz, y: physicalTable.y, z: -s * dx + c * dz, yaw: physicalTable.yaw - a };
    const aligned = alignToSurface(UNALIGNED, local, table);
    // The shared table's front-left corner, back in the physical room.
    const corner = roomToReal(aligned, table.x - table.halfX, table.y, table.z + table.halfZ);
    const cc = Math.cos(a), ss = Math.sin(a);
    return [cc * corner[0] + ss * corner[2] + t[0], corner[1], -ss * corner[0] + cc * corner[2] + t[2]];
  });
  // The same corner of the table, or its opposite (each chose the nearer way round): the same surface either way.
  const opposite = (() => {
    const centre = [physicalTable.x, physicalTable.z];
    return [2 * centre[0] - where[1][0], where[1][1], 2 * centre[1] - where[1][2]];
  })();
  const same = Math.min(Math.hypot(where[0][0] - where[1][0], where[0][2] - where[1][2]), Math.hypot(where[0][0] - opposite[0], where[0][2] - opposite[2]));
  expect(same).toBeLessThan(1e-9);
  expect(where[0][1]).toBeCloseTo(physicalTable.y, 9);
  expect(where[1][1]).toBeCloseTo(physicalTable.y, 9);
});
