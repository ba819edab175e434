// The bake worker: parses an uploaded mesh and bakes it (or finds it in the cache), one job at a time, on its own
// thread, so that a bake of several seconds never holds up a room's tick.

import { parentPort } from "node:worker_threads";
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import path from "node:path";
import { gltfBaseColourImage, MeshError, parseMesh } from "../../shared/geometry";
import { UPLOAD_LIMITS } from "../../shared/net";
import { buildBodyShape } from "../../shared/scene";
import { SkinningError, type SkinningFieldProvider } from "../../shared/skinning";
import { isWeightsSource, providerFor } from "../scenarios/body-from-mesh";
import { bakeKey, cachedBake, ROOM_BAKE_OPTIONS } from "../world/bake-cache";
import { keepTexture, pruneUploads, touch, UPLOAD_BAKE_DIRECTORY } from "./upload-store";
import { textureRefusal, uploadTexture } from "./upload-texture";
import type { BakeJob, BakeWorkerReply } from "./bake-messages";


const providers = new Map<string, Promise<SkinningFieldProvider>>();

function reply(message: BakeWorkerReply): void {
  parentPort!.postMessage(message);
}

async function run(job: BakeJob): Promise<void> {
  let mesh;
  try {
    mesh = await parseMesh(job.bytes, job.format, { limits: { maxBytes: UPLOAD_LIMITS.maxBytes, maxVertices: UPLOAD_LIMITS.maxVertices, maxTriangles: UPLOAD_LIMITS.maxTriangles } });
  } catch (error) {
    const bad = error instanceof MeshError || error instanceof RangeError || error instanceof SyntaxError;
    return reply({ id: job.id, type: "failed", reason: error instanceof Error ? error.message : String(error), bad });
  }
  // An image too big for pages to decode refuses the file, before anything is baked or kept.
  const textureProblem = textureRefusal(uploadTexture(job.format, job.bytes, mesh));
  if (textureProblem) return reply({ id: job.id, type: "failed", reason: textureProblem, bad: true });
  if (!isWeightsSource(job.weights)) return reply({ id: job.id, type: "failed", reason: `this server bakes with "${job.weights}" fields, which uploads cannot use`, bad: false });
  const options = { ...ROOM_BAKE_OPTIONS, fitCubature: job.fitCubature };
  const hash = bakeKey(mesh, job.providerKey, options);
  reply({ id: job.id, type: "parsed", hash, vertices: mesh.positions.length / 3, triangles: mesh.triangles.length / 3 });
  try {
    let provider = providers.get(job.weights);
    if (!provider) providers.set(job.weights, (provider = providerFor(job.weights)));
    const bake = await cachedBake(mesh, await provider, job.providerKey, {
      ...options, onProgress: (stage, fraction) => reply({ id: job.id, type: "progress", stage, fraction }),
    }, UPLOAD_BAKE_DIRECTORY);
    await touch(`${bake.hash}.bake`);
    // A glTF's base-colour image goes beside the bake, when the mesh has texture coordinates to wear it with.
    const image = (job.format === "glb" || job.format === "gltf") && mesh.uvs ? gltfBaseColourImage(job.bytes) : null;
    const texture = image ? await keepTexture(image) : null;
    await pruneUploads();
    // The quarter second of placing it that depends on the shape alone, done here rather than on a room's tick.
    const shape = buildBodyShape(bake.body, job.size);
    reply({ id: job.id, type: "baked", hash: bake.hash, fromCache: bake.fromCache, shape, ...(texture ? { texture } : {}) });
  } catch (error) {
    // What the bake refuses (a mesh with no inside, say) is the file's fault too.
    reply({ id: job.id, type: "failed", reason: error instanceof Error ? error.message : String(error), bad: error instanceof SkinningError || error instanceof MeshError });
  }
}

/**
 * The bake thread yields the CPU to the rooms' ticks: on Linux a thread is a task of its own, and its nice value
 * can be set through its id (/proc/thread-self). Elsewhere bakes run at the process's priority.
 */
function lowerThisThreadsPriority(): void {
  try {
    const task = Number(path.basename(readlinkSync("/proc/thread-self")));
    if (Number.isInteger(task) && task > 0) setPriority(task, 19);
  } catch {
    // not Linux, or not allowed: bake at normal priority
  }
}

lowerThisThreadsPriority();
let queue = Promise.resolve();
parentPort!.on("message", (job: BakeJob) => {
  queue = queue.then(() => run(job));
});
