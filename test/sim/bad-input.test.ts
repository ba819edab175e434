// Bad parameters and bad meshes get clear errors and change nothing.

import { describe, expect, it } from "vitest";
import { MeshError } from "../../shared/geometry";
import { SimParameterError } from "../../shared/sim";
import { bakeMesh, baselineProvider, SkinningError } from "../../shared/skinning";
import { runScenario } from "../../server/scenarios/run-scenario";
import { readMeshFile } from "../../server/world/mesh-file";
import { bodyFor, JELLY, makeBody } from "./helpers";

describe("bad parameters", () => {
  it("rejects negative E, nu >= 0.5 and NaN with a message naming the parameter", async () => {
    const loaded = await bodyFor("box:0.2x0.2x0.2");
    expect(() => makeBody(loaded, {}, [0, 0, 0], { ...JELLY, youngsModulus: -1 })).toThrow(/Young's modulus/);
    expect(() => makeBody(loaded, {}, [0, 0, 0], { ...JELLY, poissonRatio: 0.5 })).toThrow(/Poisson's ratio/);
    expect(() => makeBody(loaded, {}, [0, 0, 0], { ...JELLY, density: NaN })).toThrow(/density/);
    expect(() => makeBody(loaded, { dt: NaN })).toThrow(SimParameterError);
    expect(() => makeBody(loaded, { damping: -0.1 })).toThrow(/damping/);
    expect(() => makeBody(loaded, {}, [0, NaN, 0])).toThrow(/origin/);
  });

  it("rejects a bad material change and bad grab input without touching the state", async () => {
    const loaded = await bodyFor("box:0.2x0.2x0.2");
    const body = makeBody(loaded, {}, [0, 1, 0]);
    for (let i = 0; i < 5; i++) body.step();
    const before = Float64Array.from(body.q);
    expect(() => body.setMaterial({ ...JELLY, youngsModulus: NaN })).toThrow(SimParameterError);
    expect(() => body.grab(NaN, 0, 0)).toThrow(SimParameterError);
    expect(() => body.moveGrab(99, 0, 0, 0)).toThrow(/unknown grab/);
    const grab = body.grab(0, 1.1, 0);
    expect(() => body.moveGrab(grab, 0, Infinity, 0)).toThrow(SimParameterError);
    expect(body.material.youngsModulus).toBe(JELLY.youngsModulus);
    expect(Array.from(body.q)).toEqual(Array.from(before));
  });

  it("a generalised force with a non-finite entry is refused whole: the next force and step are the same as without it", async () => {
    const loaded = await bodyFor("box:0.2x0.2x0.2");
    const pushed = makeBody(loaded, {}, [0, 1, 0]), plain = makeBody(loaded, {}, [0, 1, 0]);
    const force = new Float64Array(pushed.n).fill(5);
    force[force.length - 1] = NaN;
    expect(() => pushed.addGeneralisedForce(force)).toThrow(/generalised force must be finite/);
    expect(pushed.hasPendingForce()).toBe(false);
    // Whatever comes next adds to nothing left over from the refused one.
    const next = new Float64Array(pushed.n).fill(1);
    pushed.addGeneralisedForce(next);
    plain.addGeneralisedForce(next);
    pushed.step();
    plain.step();
    expect(Array.from(pushed.q)).toEqual(Array.from(plain.q));
  });

  it("rejects a bad scenario size and bad bake counts", async () => {
    await expect(runScenario({
      scenario: "drop", mesh: "box:0x1x1", weights: "baseline", handles: 16, cubature: 256, size: 0.3,
      youngsModulus: 1e5, poissonRatio: 0.45, density: 1000, damping: 0, dt: 1 / 60, steps: 1,
    })).rejects.toThrow(/box size/);
    const mesh = await readMeshFile("../shared/assets/meshes/suzanne.obj");
    await expect(bakeMesh(mesh, baselineProvider, { handles: 0 })).rejects.toThrow(SkinningError);
    await expect(bakeMesh(mesh, baselineProvider, { cubature: 1e9 })).rejects.toThrow(/cubature/);
  });
});

describe("bad meshes", () => {
  it("missing files, unknown formats and broken contents give MeshError", async () => {
    await expect(readMeshFile("/nonexistent/mesh.obj")).rejects.toThrow(MeshError);
    await expect(readMeshFile("/etc/hostname")).rejects.toThrow(/supported mesh files/);
  });
});
