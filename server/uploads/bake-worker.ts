// An upload worker: reads uploaded meshes (parse and hash, finishing at once a bake the cache holds) or bakes them,
// one job at a time, on its own thread, so that a bake of several seconds never holds up a room's tick. The baker
// (baker.ts) runs two: a reader and a baker.

import { parentPort } from "node:worker_threads";
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import path from "node:path";
import { gltfBaseColourImage, MeshError, parseMesh, type TriangleMesh } from "../../shared/geometry";
import { UPLOAD_LIMITS } from "../../shared/net";
import { buildBodyShape } from "../../shared/scene";
import { SkinningError, type SkinningFieldProvider } from "../../shared/skinning";
import { isWeightsSource, providerFor } from "../skinning/weights-source";
import { warmUpBakes } from "../skinning/bake-warm-up";
import { bakeByHash, bakeKey, cachedBake, ROOM_BAKE_OPTIONS, type CachedBake } from "../world/bake-cache";
import { keepTexture, pruneUploads, touch, UPLOAD_BAKE_DIRECTORY } from "../world/upload-store";
import { textureRefusal, uploadTexture } from "./upload-texture";
import { nativeRunsStopping, stopNativeRuns } from "../skinning/native-runs";
import { characterRefusal, withStillClip } from "./upload-character";
import type { BakeJob, BakeWorkerReply, ReadJob, StopMessage, WarmJob, WorkerJob } from "./bake-messages";

const providers = new Map<string, Promise<SkinningFieldProvider>>();

function reply(message: BakeWorkerReply, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

async function read(job: ReadJob): Promise<void> {
  let mesh;
  try {
    mesh = withStillClip(await parseMesh(job.bytes, job.format, { limits: { maxBytes: UPLOAD_LIMITS.maxBytes, maxVertices: UPLOAD_LIMITS.maxVertices, maxTriangles: UPLOAD_LIMITS.maxTriangles } }));
  } catch (error) {
    const bad = error instanceof MeshError || error instanceof RangeError || error instanceof SyntaxError;
    return reply({ id: job.id, type: "failed", reason: error instanceof Error ? error.message : String(error), bad });
  }
  // A rigged file becomes a character: one the room cannot play is refused before it is baked.
  const characterProblem = characterRefusal(mesh);
  if (characterProblem) return reply({ id: job.id, type: "failed", reason: characterProblem, bad: true });
  // An image too big for pages to decode refuses the file, before anything is baked or kept.
  const textureProblem = textureRefusal(uploadTexture(job.format, job.bytes, mesh));
  if (textureProblem) return reply({ id: job.id, type: "failed", reason: textureProblem, bad: true });
  if (!isWeightsSource(job.weights)) return reply({ id: job.id, type: "failed", reason: `this server bakes with "${job.weights}" fields, which uploads cannot use`, bad: false });
  const hash = bakeKey(mesh, job.providerKey, { ...ROOM_BAKE_OPTIONS, fitCubature: job.fitCubature });
  const counts = { hash, vertices: mesh.positions.length / 3, triangles: mesh.triangles.length / 3, character: mesh.rig !== undefined };
  // The same file again: its bake is in the cache, so it is finished here, never queued behind other bakes.
  const cached = await bakeByHash(hash, UPLOAD_BAKE_DIRECTORY).catch(() => null);
  if (cached) {
    reply({ id: job.id, type: "parsed", ...counts });
    return finish(job, mesh, cached);
  }
  reply({ id: job.id, type: "parsed", ...counts, mesh }, meshBuffers(mesh));
}

function providerOf(weights: string): Promise<SkinningFieldProvider> {
  if (!isWeightsSource(weights)) throw new Error(`this server bakes with "${weights}" fields, which uploads cannot use`);
  let provider = providers.get(weights);
  if (!provider) {
    providers.set(weights, (provider = providerFor(weights)));
    // A provider that failed to load is loaded again by the next bake, not failed for good.
    provider.catch(() => providers.delete(weights));
  }
  return provider;
}

async function warm(job: WarmJob): Promise<void> {
  let ok = true;
  try {
    await warmUpBakes(await providerOf(job.weights), { ...ROOM_BAKE_OPTIONS, fitCubature: job.fitCubature }, (body) => buildBodyShape(body, 0.2));
  } catch {
    // Nothing is lost: the first upload loads what the warm-up could not, and fails with its own reason if it must.
    ok = false;
  }
  reply({ id: 0, type: "warmed", ok });
}

async function bake(job: BakeJob): Promise<void> {
  try {
    const baked = await cachedBake(job.mesh, await providerOf(job.weights), job.providerKey, {
      ...ROOM_BAKE_OPTIONS, fitCubature: job.fitCubature, onProgress: (stage, fraction) => reply({ id: job.id, type: "progress", stage, fraction }),
    }, UPLOAD_BAKE_DIRECTORY);
    await finish(job, job.mesh, baked);
  } catch (error) {
    // Stopped (its CPU time, or the server closing): the lane tells the job why, once the thread has ended.
    if (nativeRunsStopping()) return;
    // What the bake refuses (a mesh with no inside, say) is the file's fault too.
    reply({ id: job.id, type: "failed", reason: error instanceof Error ? error.message : String(error), bad: error instanceof SkinningError || error instanceof MeshError });
  }
}

/** What a bake in the cache still needs before its room can place it: its texture kept and its body shape built. */
async function finish(job: WorkerJob, mesh: TriangleMesh, bake: CachedBake): Promise<void> {
  try {
    await touch(`${bake.hash}.bake`);
    // A glTF's base-colour image goes beside the bake, when the mesh has texture coordinates to wear it with.
    const image = (job.format === "glb" || job.format === "gltf") && mesh.uvs ? gltfBaseColourImage(job.bytes) : null;
    const texture = image ? await keepTexture(image) : null;
    await pruneUploads();
    // The quarter second of placing it that depends on the shape alone, done here rather than on a room's tick (a
    // rigged one becomes a character of UPLOAD_LIMITS.characterSize: its subspace at that size).
    const shapeSize = bake.body.rigJointNodes.length > 0 ? UPLOAD_LIMITS.characterSize : job.size;
    const shape = buildBodyShape(bake.body, shapeSize);
    reply({ id: job.id, type: "baked", hash: bake.hash, fromCache: bake.fromCache, shape, shapeSize, ...(texture ? { texture } : {}) });
  } catch (error) {
    reply({ id: job.id, type: "failed", reason: error instanceof Error ? error.message : String(error), bad: error instanceof SkinningError || error instanceof MeshError });
  }
}

/** The parsed mesh's arrays, moved rather than copied to the baker. */
function meshBuffers(mesh: TriangleMesh): ArrayBuffer[] {
  const arrays = [mesh.positions, mesh.triangles, mesh.uvs, mesh.uvTriangles, mesh.colors, mesh.colorTriangles, mesh.skinJoints, mesh.skinWeights];
  const buffers = new Set<ArrayBuffer>();
  for (const a of arrays) if (a && a.buffer instanceof ArrayBuffer && a.byteLength === a.buffer.byteLength) buffers.add(a.buffer);
  return [...buffers];
}

/**
 * The worker's thread yields the CPU to the rooms' ticks: on Linux a thread is a task of its own, and its nice
 * value can be set through its id (/proc/thread-self). Its id, or 0 elsewhere (work then runs at the process's
 * priority, and the baker cannot see this thread's CPU time).
 */
function lowerThisThreadsPriority(): number {
  try {
    const task = Number(path.basename(readlinkSync("/proc/thread-self")));
    if (!Number.isInteger(task) || task <= 0) return 0;
    try {
      setPriority(task, 19);
    } catch {
      // not allowed: work at normal priority
    }
    return task;
  } catch {
    return 0;
  }
}

reply({ id: 0, type: "thread", task: lowerThisThreadsPriority() });
let queue = Promise.resolve();
parentPort!.on("message", (job: WorkerJob | WarmJob | StopMessage) => {
  // Stopping is not queued behind the jobs: the job on hand fails at its next inference, and the thread ends.
  if (job.kind === "stop") void stopNativeRuns().then(() => process.exit(0));
  else queue = queue.then(() => (job.kind === "read" ? read(job) : job.kind === "bake" ? bake(job) : warm(job)));
});
