// npm run eval:modes -- --mesh PATH|box:LxWxH|heldout:N [--weights model|eigen|baseline|model-raw] [--handles 16] [--cubature 256] [--E 1e5]
//   [--nu 0.35] [--rho 1000] [--size 0.3] [--modes 6] [--fem] [--max-tets 3000] [--clusters] [--eigen-cells N] [--local-fields N]
//   [--ritz-span S] [--ritz-iterations N] [--ritz-degree N] [--fem-cache DIR] [--json]
// The reduced model's free-free natural frequencies (as the solver would vibrate the baked body), and with --fem
// the same solid's by full finite elements, their ratios, and the same fields integrated exactly over the FEM
// mesh (field quality apart from cubature error). Progress on stderr; the result on stdout.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { normaliseMesh, thickenFlatMesh } from "../../shared/geometry";
import { EIGEN_DEFAULTS, eigenProvider, eigenProviderWith, RITZ_FINISH_DEFAULTS, RitzFields, ritzFinishProvider, type RitzFinishOptions, type SkinningFieldProvider } from "../../shared/skinning";
import { modelProvider } from "../skinning/model-provider";
import { reducedModes } from "../modes/reduced-modes";
import { DEFAULT_MAX_TETS, femModes, type FemModes } from "../modes/fem-modes";
import { denseQuadrature, exactlyIntegrated } from "../modes/exact-fields";
import { rigComplementarity, type RigComplementarity } from "../modes/rig-overlap";
import { loadBody, loadMesh, type LoadedBody } from "../scenarios/body-from-mesh";
import { warmUpBakes } from "../skinning/bake-warm-up";
import { DEFAULT_WEIGHTS, providerFor } from "../skinning/weights-source";
import { integerFlag, numberFlag, parseFlags, runCli, UsageError, weightsFlag } from "./cli-support";

const RITZ_SPANS: Record<string, Pick<RitzFinishOptions, "coordinateProducts" | "polynomialDegree" | "fieldSquares">> = {
  fields: { coordinateProducts: false, polynomialDegree: 0, fieldSquares: false },
  xw: { coordinateProducts: true, polynomialDegree: 1, fieldSquares: false },
  "xw-p2": { coordinateProducts: true, polynomialDegree: 2, fieldSquares: false },
  "xw-p3": { coordinateProducts: true, polynomialDegree: 3, fieldSquares: false },
  "xw-p2-w2": { coordinateProducts: true, polynomialDegree: 2, fieldSquares: true },
  "xw-p3-w2": { coordinateProducts: true, polynomialDegree: 3, fieldSquares: true },
};

/** Bakes of the mesh timed after the warm-up; bakeMs is their median. */
const TIMED_BAKES = 3;

const USAGE = `usage: npm run eval:modes -- --mesh PATH|box:LxWxH|heldout:N [--weights model|eigen|baseline|model-raw] [--handles 16] [--cubature 256]
       [--E 1e5] [--nu 0.35] [--rho 1000] [--size 0.3] [--modes 6] [--fem] [--exact] [--max-tets ${DEFAULT_MAX_TETS}]
       [--clusters] [--eigen-cells N (eigen ${EIGEN_DEFAULTS.targetCells}, model ${RITZ_FINISH_DEFAULTS.targetCells})] [--local-fields ${EIGEN_DEFAULTS.localFields}]
       [--ritz-span fields] [--ritz-iterations ${RITZ_FINISH_DEFAULTS.iterations}] [--ritz-degree ${RITZ_FINISH_DEFAULTS.chebyshevDegree}] [--complementary] [--clip NAME]
       [--fem-cache DIR] [--json]
  --exact            the fields integrated over a dense grid of the solid (no cubature error) without --fem; with --fem
                     they are integrated over the FEM mesh anyway
  --clusters         cubature at the clusters' centroids instead of fitted to the fields
  --eigen-cells      grid cells inside the solid for --weights model or eigen (resolution against bake time)
  --local-fields     of the --handles fields, how many are surface bumps instead of modes, for --weights model or eigen
  --ritz-span        for --weights model, the span the network's fields are enlarged to before Rayleigh-Ritz:
                     ${Object.keys(RITZ_SPANS).join(", ")} (xw: each field times each coordinate; pN: polynomials to degree N; w2: fields squared)
  --ritz-iterations  for --weights model, Chebyshev-filtered subspace iterations after the first Rayleigh-Ritz
  --ritz-degree      their filter's degree
  --complementary    for --weights model and a rigged mesh: fields complementary to its rig (each mass-orthogonal to every
                     joint subtree's share times every quadratic; span xw-p3-w2 unless --ritz-span says otherwise; no
                     fallback to eigen: a mesh they fail on is an error)
  --clip             a rigged mesh's clip over which the rig's overlap with the fields is measured (default: its first)
  --fem-cache        a directory keeping FEM references by mesh, material, size, modes and --max-tets (reused when there)`;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    mesh: { type: "string" }, weights: { type: "string", default: DEFAULT_WEIGHTS }, handles: { type: "string" }, cubature: { type: "string" },
    E: { type: "string" }, nu: { type: "string" }, rho: { type: "string" }, size: { type: "string" }, modes: { type: "string" },
    fem: { type: "boolean", default: false }, exact: { type: "boolean", default: false }, "max-tets": { type: "string" }, json: { type: "boolean", default: false }, help: { type: "boolean" },
    clusters: { type: "boolean", default: false }, "eigen-cells": { type: "string" }, "local-fields": { type: "string" },
    "ritz-span": { type: "string" }, "ritz-iterations": { type: "string" }, "ritz-degree": { type: "string" }, "fem-cache": { type: "string" },
    complementary: { type: "boolean", default: false }, clip: { type: "string" },
  });
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (typeof flags.mesh !== "string") throw new UsageError("--mesh is required");
  const weights = weightsFlag(flags);
  const handles = integerFlag(flags, "handles", 16, 1, 64), cubature = integerFlag(flags, "cubature", 256, 8, 4096);
  const material = {
    youngsModulus: numberFlag(flags, "E", 1e5, (v) => v > 0 && v <= 1e12, "must be in (0, 1e12] Pa"),
    poissonRatio: numberFlag(flags, "nu", 0.35, (v) => v >= 0 && v <= 0.495, "must be in [0, 0.495]"),
    density: numberFlag(flags, "rho", 1000, (v) => v > 0 && v <= 1e5, "must be in (0, 1e5] kg/m^3"),
  };
  const size = numberFlag(flags, "size", 0.3, (v) => v > 0 && v <= 100, "must be in (0, 100] m");
  const modes = integerFlag(flags, "modes", 6, 1, 30);
  const maxTets = integerFlag(flags, "max-tets", DEFAULT_MAX_TETS, 100, 200_000);
  // Each provider's own grid by default: the network's finish runs on a coarser one than eigen's solve.
  const eigenCells = integerFlag(flags, "eigen-cells", weights === "model" ? RITZ_FINISH_DEFAULTS.targetCells : EIGEN_DEFAULTS.targetCells, 100, 200_000);
  const localFields = integerFlag(flags, "local-fields", EIGEN_DEFAULTS.localFields, 0, 32);
  const gridded = weights === "eigen" || weights === "model";
  for (const flag of ["eigen-cells", "local-fields"]) if (flags[flag] !== undefined && !gridded) throw new UsageError(`--${flag} is for --weights model or eigen`);
  for (const flag of ["ritz-span", "ritz-iterations", "ritz-degree"]) if (flags[flag] !== undefined && weights !== "model") throw new UsageError(`--${flag} is for --weights model`);
  const complementary = flags.complementary === true;
  if (complementary && weights !== "model") throw new UsageError("--complementary is for --weights model");
  // Complementary fields leave out every quadratic on every limb: the network's own span is too narrow for them.
  const spanName = typeof flags["ritz-span"] === "string" ? flags["ritz-span"] : complementary ? "xw-p3-w2" : RITZ_FINISH_DEFAULTS.coordinateProducts ? "xw-p2" : "fields";
  if (!(spanName in RITZ_SPANS)) throw new UsageError(`--ritz-span must be one of ${Object.keys(RITZ_SPANS).join(", ")}`);
  const ritz: RitzFinishOptions = {
    targetCells: eigenCells, localFields, ...RITZ_SPANS[spanName],
    iterations: integerFlag(flags, "ritz-iterations", RITZ_FINISH_DEFAULTS.iterations, 0, 32),
    complementary,
    chebyshevDegree: integerFlag(flags, "ritz-degree", RITZ_FINISH_DEFAULTS.chebyshevDegree, 1, 64),
  };
  const fitCubature = flags.clusters !== true;
  if (complementary || flags.clip !== undefined) {
    const { mesh } = await loadMesh(flags.mesh);
    if (!mesh.rig || !mesh.skinJoints) throw new UsageError(`--${complementary ? "complementary" : "clip"} needs a rigged mesh (a glTF with a skin); ${flags.mesh} has none`);
    if (typeof flags.clip === "string" && !mesh.rig.clips.some((c) => c.name === flags.clip)) {
      throw new UsageError(`${flags.mesh} has no clip "${flags.clip}"; it has ${mesh.rig.clips.map((c) => c.name).join(", ") || "none"}`);
    }
  }

  process.stderr.write(`baking ${flags.mesh} (${weights}, ${handles} handles, ${cubature} cubature)...\n`);
  let provider: SkinningFieldProvider | undefined = weights === "eigen" ? eigenProviderWith({ targetCells: eigenCells, localFields }) : undefined;
  // The Rayleigh-Ritz finish's own stage timings, from the fields it made.
  let ritzFields: RitzFields | undefined;
  if (weights === "model") {
    // Complementary fields have no stand-in: eigen fields in their place would be measured as if they were.
    const inner = ritzFinishProvider(await modelProvider(), complementary ? undefined : eigenProvider, ritz);
    provider = {
      ...inner,
      async fieldsFor(shape, count) {
        const fields = await inner.fieldsFor(shape, count);
        if (fields instanceof RitzFields) ritzFields = fields;
        return fields;
      },
    };
  }
  // A process's first bakes also compile the code they run; a server's upload worker bakes warm-up shapes when it
  // starts, so its uploads bake warm. firstBakeMs is the mesh's bake in this fresh process; bakeMs the median of
  // TIMED_BAKES after the worker's warm-up (bakeRunsMs all of them).
  const setup = { mesh: flags.mesh, weights, handles, cubature, size, provider: provider ?? (await providerFor(weights)), fitCubature };
  const first = await loadBody(setup);
  // Complementary fields need a rig, which the warm-up's plain shapes lack: their timed bakes follow the first alone.
  if (complementary) process.stderr.write("no warm-up: complementary fields need a rigged mesh, and the warm-up shapes have no rig\n");
  else await warmUpBakes(setup.provider, { handles, cubature, fitCubature });
  const runs: { body: LoadedBody; ritz?: RitzFields }[] = [];
  for (let run = 0; run < TIMED_BAKES; run++) {
    // Set again by this bake's fields only when they are the finish's (a fallback's are not).
    ritzFields = undefined;
    runs.push({ body: await loadBody(setup), ritz: ritzFields });
  }
  const median = [...runs].sort((a, b) => a.body.bakeMs - b.body.bakeMs)[Math.floor(TIMED_BAKES / 2)], loaded = median.body;
  ritzFields = median.ritz;
  const reduced = reducedModes(loaded.subspace, material);
  const result: Record<string, unknown> = {
    mesh: flags.mesh, weights, handles, cubature, fittedCubature: fitCubature, cubaturePoints: loaded.baked.cubatureVolumes.length,
    ...(gridded ? { eigenCells, localFields } : {}),
    ...(weights === "model" ? { ritzSpan: spanName, ritzIterations: ritz.iterations, ritzDegree: ritz.chebyshevDegree, complementary } : {}),
    E: material.youngsModulus, nu: material.poissonRatio, rho: material.density,
    size: loaded.size, frequenciesHz: reduced.frequenciesHz.slice(0, modes), nearZero: reduced.nearZero, bakeMs: loaded.bakeMs, bakeRunsMs: runs.map((run) => run.body.bakeMs), firstBakeMs: first.bakeMs,
    bakeTimings: loaded.timings, ...(loaded.fallback ? { fallback: loaded.fallback } : {}), ...(ritzFields ? { ritzTimings: ritzFields.timings, ritzSpanRank: ritzFields.spanRank } : {}),
  };
  const rig = rigComplementarity(loaded.baked, typeof flags.clip === "string" ? flags.clip : undefined);
  if (rig) result.rig = rig;
  if (flags.fem) {
    // The same solid the bake saw, in the body's metres.
    const { mesh } = await loadMesh(flags.mesh);
    const normalised = normaliseMesh(thickenFlatMesh(mesh)).mesh, s = loaded.size / 2;
    const solid = { positions: normalised.positions.map((v) => v * s), triangles: normalised.triangles };
    const key = JSON.stringify({ mesh: flags.mesh, material, size: loaded.size, modes, maxTets });
    const cached = typeof flags["fem-cache"] === "string" ? path.join(flags["fem-cache"], `${createHash("sha256").update(key).digest("hex").slice(0, 24)}.json`) : undefined;
    let fem: FemModes;
    if (cached && existsSync(cached)) {
      process.stderr.write(`full FEM from ${cached}\n`);
      fem = JSON.parse(readFileSync(cached, "utf8")) as FemModes;
    } else {
      process.stderr.write(`full FEM (quadratic tets, up to ${maxTets})...\n`);
      fem = await femModes(solid, material, modes, { maxTets, quadrature: true });
      if (cached) {
        mkdirSync(path.dirname(cached), { recursive: true });
        writeFileSync(cached, JSON.stringify(fem));
      }
    }
    result.fem = { mesher: fem.mesher, tets: fem.tets, nearZero: fem.nearZero, frequenciesHz: fem.frequenciesHz, seconds: fem.seconds };
    // Disjoint shells (a mesh of several parts) move rigidly each: the ratios would pair different modes.
    if (fem.nearZero !== 6) process.stderr.write(`warning: the FEM solid has ${fem.nearZero} rigid modes, not 6 (several disjoint parts?): its ratios compare different modes\n`);
    result.ratios = fem.frequenciesHz.map((f, i) => reduced.frequenciesHz[i] / f);
    if (weights !== "model-raw" && fem.points && fem.volumes) {
      // The same fields over the FEM mesh's quadrature: what the fields can do, without cubature error.
      process.stderr.write(`the fields integrated exactly (${fem.volumes.length} points)...\n`);
      const exact = reducedModes(await exactlyIntegrated(loaded.baked, loaded.size, fem.points, fem.volumes), material);
      result.exact = { frequenciesHz: exact.frequenciesHz.slice(0, modes), nearZero: exact.nearZero, ratios: fem.frequenciesHz.map((f, i) => exact.frequenciesHz[i] / f) };
    }
  }
  if (flags.exact === true && !flags.fem && weights !== "model-raw") {
    const dense = denseQuadrature(loaded.baked, loaded.size);
    process.stderr.write(`the fields integrated over a dense grid (${dense.volumes.length} points)...\n`);
    const exact = reducedModes(await exactlyIntegrated(loaded.baked, loaded.size, dense.points, dense.volumes), material);
    result.exact = { frequenciesHz: exact.frequenciesHz.slice(0, modes), nearZero: exact.nearZero };
  }
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const hz = (list: number[]) => list.map((f) => f.toFixed(2)).join(", ");
  process.stdout.write(`${flags.mesh} (${weights}, ${handles} handles, ${cubature} cubature): rigid modes ${reduced.nearZero}; reduced ${hz(reduced.frequenciesHz.slice(0, modes))} Hz\n`);
  if (loaded.fallback) process.stdout.write(`the ${weights} fields failed on this mesh (${loaded.fallback.reason}): these are ${loaded.fallback.provider} fields\n`);
  if (result.fem) {
    const fem = result.fem as { mesher: string; tets: number; frequenciesHz: number[] };
    const ratios = result.ratios as number[];
    const mean = (list: number[]) => (list.reduce((a, b) => a + b, 0) / list.length).toFixed(3);
    process.stdout.write(`FEM (${fem.mesher}, ${fem.tets} quadratic tets) ${hz(fem.frequenciesHz)} Hz; ratio reduced/FEM ${ratios.map((r) => r.toFixed(3)).join(", ")} (mean ${mean(ratios)})\n`);
    const exact = result.exact as { frequenciesHz: number[]; ratios: number[] } | undefined;
    if (exact) process.stdout.write(`fields integrated exactly ${hz(exact.frequenciesHz)} Hz; ratio to FEM ${exact.ratios.map((r) => r.toFixed(3)).join(", ")} (mean ${mean(exact.ratios)})\n`);
  }
  if (result.rig) {
    const { bind, clip } = result.rig as RigComplementarity;
    process.stdout.write(`rig: its motion overlaps the learned fields' directions ${bind.learnedOverlap.toFixed(3)} (all directions ${bind.rigOverlap.toFixed(3)}) at the bind pose; the exact projection leaves ${bind.complementary} of ${bind.subspace} directions`);
    process.stdout.write(clip ? `; over ${clip.name} ${clip.learnedOverlap.mean.toFixed(3)} (at most ${clip.learnedOverlap.max.toFixed(3)}), ${clip.complementary.min}-${clip.complementary.max} left\n` : "\n");
  }
  if (!result.fem && result.exact) {
    process.stdout.write(`fields integrated over a dense grid ${hz((result.exact as { frequenciesHz: number[] }).frequenciesHz)} Hz\n`);
  }
}

runCli(main, USAGE);
