// The CLIs as scripts use them: real processes, stdout JSON only, clear errors with non-zero exit codes.

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DEFAULT_WEIGHTS } from "../../server/skinning/weights-source";
import { decodeBakedBody } from "../../shared/skinning";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");

async function cli(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(TSX, [path.join(ROOT, "server/cli", script), ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("npm run sim", () => {
  it("prints one JSON object with the documented fields and nothing else on stdout", async () => {
    const { code, stdout } = await cli("sim.ts", ["--mesh", "box:1x0.1x0.1", "--scenario", "cantilever", "--steps", "30", "--E", "5e7", "--nu", "0.3", "--json"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(Object.keys(result)).toEqual(expect.arrayContaining(["scenario", "handles", "cubature", "dt", "steps", "bakeMs", "stepMs", "frames", "final"]));
    expect(result.frames).toHaveLength(30);
    expect(result.handles).toBe(17);
    expect(Object.keys(result.frames[0])).toEqual(expect.arrayContaining(["t", "centroid", "minY", "tip", "energy"]));
    expect(result.frames[29].tip[1]).toBeLessThan(0); // the free end sags
    expect(result.final.tipDeflection).toBeGreaterThan(0);
    expect(result.stepMs.median).toBeGreaterThan(0);
  });

  it("exits 2 with a clear message on bad flags and 1 on bad physics", async () => {
    const bad = await cli("sim.ts", ["--mesh", "box:1x1x1", "--scenario", "fly"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--scenario must be one of/);
    const nan = await cli("sim.ts", ["--mesh", "box:1x1x1", "--scenario", "drop", "--E", "abc"]);
    expect(nan.code).toBe(2);
    expect(nan.stderr).toMatch(/--E must be a number/);
    const nu = await cli("sim.ts", ["--mesh", "box:1x1x1", "--scenario", "drop", "--nu", "0.5", "--steps", "1"]);
    expect(nu.code).toBe(1);
    expect(nu.stderr).toMatch(/Poisson's ratio/);
    expect(nu.stdout).toBe("");
  });
});

describe("npm run bake", () => {
  it("writes a BakedBody that decodes to the same fields and reports JSON", async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), "pliant-")), "suzanne.bake");
    const { code, stdout } = await cli("bake.ts", ["--mesh", "../shared/assets/meshes/suzanne.obj", "--handles", "8", "--cubature", "128", "--out", out, "--json"]);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ handles: 9, learnedHandles: 8, cubature: 128, weights: DEFAULT_WEIGHTS, out });
    const body = decodeBakedBody(new Uint8Array(readFileSync(out)));
    expect(body.learnedHandles).toBe(8);
    // Fitted cubature keeps at most the points asked for (the fit may need fewer).
    expect(body.cubatureVolumes.length).toBeGreaterThan(0);
    expect(body.cubatureVolumes.length).toBeLessThanOrEqual(128);
    expect(body.renderPositions.length / 3).toBe(summary.vertices);
    expect(body.renderWeights.length).toBe(summary.vertices * 9);
    // The constant channel is 1 everywhere.
    for (let i = 0; i < summary.vertices; i++) expect(body.renderWeights[i * 9]).toBe(1);
  });

  it("fails clearly on a missing mesh", async () => {
    const { code, stderr } = await cli("bake.ts", ["--mesh", "/no/such/mesh.obj"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/no such file/);
  });
});

describe("npm run eval:secondary", () => {
  const FOX = "../shared/assets/characters/fox.glb";

  it("fits on every clip but the held-out one by default, reports velocity skinning and the linearised dynamics, and skips a network made for another bake with the reason", async () => {
    const { code, stdout } = await cli("eval-secondary.ts", ["--mesh", FOX, "--test", "Run", "--weights", "baseline", "--handles", "8", "--cubature", "128", "--json"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.train).toEqual(["Survey", "Walk"]);
    for (const layer of ["none", "springs", "springsFree", "velocitySkinning", "linear"]) {
      expect(Number.isFinite(result[layer].rmsErrorMm), layer).toBe(true);
      expect(Number.isFinite(result[layer].stopErrorMm), layer).toBe(true);
    }
    expect(Number.isFinite(result.velocitySkinning.floppiness)).toBe(true);
    // The shipped network answers the shipped bake's 204 coordinates, not this one's.
    expect(result.rnn).toBeNull();
    expect(result.rnnSkipped).toMatch(/answers 204 coordinates; this bake has 108/);
  }, 180_000);

  it("exits 2 naming the clips the mesh has when asked for one it lacks", async () => {
    const { code, stderr, stdout } = await cli("eval-secondary.ts", ["--mesh", FOX, "--test", "Jump", "--weights", "baseline", "--handles", "8", "--cubature", "128"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/has no clip "Jump": it has Survey, Walk, Run/);
    expect(stdout).toBe("");
  }, 180_000);
});

describe("npm run eval:modes", () => {
  it("times the mesh's bake in the fresh process, then three bakes after the upload worker's warm-up, and reports their median", async () => {
    const { code, stdout, stderr } = await cli("eval-modes.ts", ["--mesh", "box:0.3x0.1x0.1", "--weights", "baseline", "--json"]);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/no warm-up/);
    const result = JSON.parse(stdout);
    expect(result.weights).toBe("baseline");
    expect(result.firstBakeMs).toBeGreaterThan(0);
    expect(result.bakeRunsMs).toHaveLength(3);
    expect(result.bakeMs).toBe([...result.bakeRunsMs].sort((a: number, b: number) => a - b)[1]);
    // A free box: six rigid modes, then elastic ones.
    expect(result.nearZero).toBe(6);
    expect(result.frequenciesHz[0]).toBeGreaterThan(0);
  }, 180_000);
});
