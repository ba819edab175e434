// The fast OBJ reader against three's OBJLoader, the reference for what every line means: the same corners
// (positions, texture coordinates, vertex colours, NaN where a corner names nothing) on every asset OBJ and on
// hand-written files that exercise the loader's rules.

import { describe, expect, it } from "vitest";
import type { BufferGeometry, Object3D } from "three";
import { OBJLoader } from "three/examples/jsm/loaders/OBJLoader.js";
import { objCorners, type ObjCorners } from "../../shared/geometry/obj-corners";
import { ASSET_NAMES, readAsset } from "./helpers";

/** The corners of OBJLoader's meshes, as parseObj read them before it had its own reader. */
function loaderCorners(text: string): ObjCorners {
  const geometries: BufferGeometry[] = [];
  new OBJLoader().parse(text).traverse((object: Object3D) => {
    if ((object as { isMesh?: boolean }).isMesh) geometries.push((object as unknown as { geometry: BufferGeometry }).geometry);
  });
  const corners = geometries.reduce((n, g) => n + g.getAttribute("position").count, 0);
  const positions = new Float64Array(3 * corners);
  const textured = geometries.every((g) => g.getAttribute("uv") !== undefined), coloured = geometries.every((g) => g.getAttribute("color") !== undefined);
  const uvs = textured ? new Float64Array(2 * corners) : null, colours = coloured ? new Float64Array(3 * corners) : null;
  let offset = 0;
  for (const g of geometries) {
    const position = g.getAttribute("position"), uv = g.getAttribute("uv"), colour = g.getAttribute("color");
    for (let v = 0; v < position.count; v++) {
      for (let k = 0; k < 3; k++) positions[3 * (offset + v) + k] = position.getComponent(v, k);
      if (uvs) for (let k = 0; k < 2; k++) uvs[2 * (offset + v) + k] = uv.getComponent(v, k);
      if (colours) for (let k = 0; k < 3; k++) colours[3 * (offset + v) + k] = colour.getComponent(v, k);
    }
    offset += position.count;
  }
  return { positions, uvs, colours };
}

/** Equal entry by entry, NaN equal to NaN. */
function expectSame(actual: Float64Array | null, expected: Float64Array | null, what: string): void {
  expect(actual === null, `${what}: present`).toBe(expected === null);
  if (!actual || !expected) return;
  expect(actual.length, `${what}: length`).toBe(expected.length);
  for (let i = 0; i < actual.length; i++) {
    if (!Object.is(actual[i], expected[i]) && !(Number.isNaN(actual[i]) && Number.isNaN(expected[i]))) {
      expect(actual[i], `${what}[${i}]`).toBe(expected[i]);
    }
  }
}

function expectLikeLoader(text: string): ObjCorners {
  const ours = objCorners(text), reference = loaderCorners(text);
  expectSame(ours.positions, reference.positions, "positions");
  expectSame(ours.uvs, reference.uvs, "uvs");
  expectSame(ours.colours, reference.colours, "colours");
  return ours;
}

describe("objCorners reads OBJ as three's OBJLoader does", () => {
  for (const name of ASSET_NAMES) {
    it(`on ${name}`, async () => {
      const text = new TextDecoder().decode(await readAsset(name));
      const ours = expectLikeLoader(text.replace(/\r\n/g, "\n"));
      expect(ours.positions.length).toBeGreaterThan(0);
    });
  }

  it("on polygons, negative indices, objects and groups, missing vertices and UVs, and stray whitespace", () => {
    const cases = [
      // A quad and a pentagon in two objects, relative indices, normals in the corners.
      ["o first", "v 0 0 0", "v 1 0 0", "v 1 1 0", "v 0 1 0", "vt 0 0", "vt 1 0", "vn 0 0 1", "f 1/1/1 2/2/1 3/1/1 4/2/1", "o second", "g part",
        "v 0 0 1", "v 1 0 1", "v 1.5 0.5 1", "v 1 1 1", "v 0 1 1", "f -5 -4 -3 -2 -1"],
      // UVs on some faces only (the others get (0, 0)), and on none in a second group (no UVs at all).
      ["v 0 0 0", "v 1 0 0", "v 0 1 0", "v 0 0 1", "vt 0.25 0.5", "vt 1 1", "f 1/1 2/2 3/1", "f 1 2 4"],
      ["v 0 0 0", "v 1 0 0", "v 0 1 0", "v 0 0 1", "vt 0.25 0.5", "f 1/1 2/1 3/1", "g other", "f 1 2 4"],
      // A corner naming a missing vertex or UV, index 0, unreadable indices, "v" with too few numbers.
      ["v 0 0 0", "v 1 0 0", "v 0 1 0", "vt 0 0", "f 1/1 2/7 3/1", "f 1 2 9", "f 0 1 2", "f a b c", "v 5", "f 1 2 4"],
      // Tabs, leading blanks, comments, blank lines, a face without spaces after 'f', double slashes.
      ["# comment", "", "  v\t0 0 0", "\tv 1 0 0  ", "v 0 1 0", "v 0 0 1", "f\t1//1  2//1 3//1", "f1 2 4", "   ", "s off", "usemtl red", "f 2 3 4"],
      // Vertex colours: on every vertex, on some only (the loader's colours move up), trailing blanks (an empty sixth number).
      ["v 0 0 0 1 0 0", "v 1 0 0 0 1 0", "v 0 1 0 0.5 0.5 0.5", "v 0 0 1 0 0 1", "f 1 2 3", "f 1 3 4"],
      ["v 0 0 0 1 0 0", "v 1 0 0", "v 0 1 0 0.5 0.5 0.5", "v 0 0 1 0 0 1", "f 1 2 3", "f 2 3 4"],
      ["v 0 0 0 1 0 0", "v 1 0 0 0 1 ", "v 0 1 0 0.5 0.5 0.5", "f 1 2 3"],
      // Coloured in one group, not in the other; a line element turning a group into lines.
      ["v 0 0 0 1 0 0", "v 1 0 0 1 0 0", "v 0 1 0 1 0 0", "v 0 0 1", "v 1 1 1", "f 1 2 3", "g second", "f 4 5 1"],
      ["v 0 0 0", "v 1 0 0", "v 0 1 0", "v 0 0 1", "f 1 2 3", "g wire", "l", "f 1 2 4", "g third", "f 2 3 4"],
    ];
    for (const lines of cases) expectLikeLoader(lines.join("\n"));
  });
});
