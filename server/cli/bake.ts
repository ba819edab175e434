// npm run bake -- --mesh PATH [--handles 16] [--cubature 256] [--fit-cubature | --clusters] [--weights model|eigen|baseline|model-raw] [--out FILE] [--json]

import { writeFile } from "node:fs/promises";
import { encodeBakedBody } from "../../shared/skinning";
import { loadMesh } from "../scenarios/body-from-mesh";
import { DEFAULT_WEIGHTS, providerFor } from "../skinning/weights-source";
import { bakeMesh, bakedQuality, FIT_CUBATURE_BY_DEFAULT } from "../../shared/skinning";
import { integerFlag, parseFlags, runCli, UsageError, weightsFlag } from "./cli-support";

const USAGE = `usage: npm run bake -- --mesh PATH|box:LxWxH|heldout:N [--handles 16] [--cubature 256] [--fit-cubature | --clusters]
       [--weights model|eigen|baseline|model-raw] [--seed 1] [--out FILE] [--json]
  --fit-cubature fit the cubature to the fields (the default); --clusters: at the clusters' centroids`;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    mesh: { type: "string" }, handles: { type: "string" }, cubature: { type: "string" },
    weights: { type: "string", default: DEFAULT_WEIGHTS }, seed: { type: "string" }, out: { type: "string" },
    json: { type: "boolean", default: false }, help: { type: "boolean" }, "fit-cubature": { type: "boolean" },
    clusters: { type: "boolean" },
  });
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (typeof flags.mesh !== "string") throw new UsageError("--mesh is required");
  const weights = weightsFlag(flags);
  if (flags.clusters === true && flags["fit-cubature"] === true) throw new UsageError("--clusters and --fit-cubature contradict each other");
  const fitCubature = flags.clusters === true ? false : flags["fit-cubature"] === true ? true : FIT_CUBATURE_BY_DEFAULT;
  const { mesh } = await loadMesh(flags.mesh);
  const { body, timings, fallback } = await bakeMesh(mesh, await providerFor(weights), {
    handles: integerFlag(flags, "handles", 16, 1, 64),
    cubature: integerFlag(flags, "cubature", 256, 8, 4096),
    seed: integerFlag(flags, "seed", 1, 0, 2 ** 31 - 1),
    fitCubature,
    onProgress: (stage) => process.stderr.write(`baking: ${stage}\n`),
  });
  if (fallback) process.stderr.write(`the ${weights} fields failed on this mesh (${fallback.reason}); baked with ${fallback.provider} fields instead\n`);
  let bytes: number | undefined;
  if (typeof flags.out === "string") {
    const encoded = encodeBakedBody(body);
    await writeFile(flags.out, encoded);
    bytes = encoded.length;
  }
  const volume = body.cubatureVolumes.reduce((a, b) => a + b, 0);
  const summary = {
    mesh: flags.mesh,
    vertices: body.renderPositions.length / 3,
    triangles: body.triangles.length / 3,
    weights: body.provider,
    handles: body.learnedHandles + 1,
    learnedHandles: body.learnedHandles,
    cubature: body.cubatureVolumes.length,
    fittedCubature: fitCubature,
    surfaceSamples: body.surfacePositions.length / 3,
    massSamples: body.massVolumes.length,
    normalisedVolume: volume,
    quality: bakedQuality(body),
    bakeMs: timings.total,
    timings,
    ...(fallback ? { fallback } : {}),
    ...(typeof flags.out === "string" ? { out: flags.out, bytes } : {}),
  };
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  process.stdout.write(
    `${summary.mesh}: ${summary.vertices} vertices, ${summary.triangles} triangles -> ${summary.handles} handles (${summary.weights}), ` +
      `${summary.cubature} cubature points, volume ${volume.toFixed(4)} (normalised units), ${timings.total.toFixed(0)} ms, ` +
      `quality elastic ${summary.quality.elastic.toPrecision(4)} ortho ${summary.quality.ortho.toPrecision(3)}` +
      (bytes !== undefined ? `, wrote ${bytes} bytes to ${summary.out}` : "") + "\n",
  );
}

runCli(main, USAGE);
