// The bake worker: fetches a baked body (or finds it in IndexedDB), decodes it and builds the GPU skinning tables
// of its render mesh, reporting progress, so that the page's main thread never does per-vertex work.

import { computeRenderInfluences, decodeBakedBody, inTurn, needsDecoder, refinedRenderWeights, renderWeightsOf, splitTextureSeams, type BakedBody, type DecoderRuntime, type OrtModule, type RenderInfluences } from "../../../shared/skinning";
import { hasWebGpuBuild, loadOnnxRuntime } from "../onnx-runtime";
import { readCachedBake, writeCachedBake } from "./bake-cache";
import { RENDER_INFLUENCES, type BakeReply, type BakeRequest, type Inference, type PageToWorker, type RuntimeBytes } from "./bake-messages";

const post = (reply: BakeReply, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(reply, transfer);

async function download(request: BakeRequest): Promise<Uint8Array> {
  const response = await fetch(request.url);
  if (!response.ok) throw new Error(`GET ${request.url}: HTTP ${response.status}`);
  // A compressed answer's Content-Length counts compressed bytes; the server also says the decoded size.
  const encoded = Boolean(response.headers.get("content-encoding"));
  const total = Number(response.headers.get("x-bake-length")) || (encoded ? 0 : Number(response.headers.get("content-length"))) || 0;
  if (!response.body || !total) return new Uint8Array(await response.arrayBuffer());
  const bytes = new Uint8Array(total);
  const reader = response.body.getReader();
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (received + value.length > total) throw new Error(`GET ${request.url}: more bytes than announced`);
    bytes.set(value, received);
    received += value.length;
    post({ type: "progress", hash: request.hash, stage: "download", fraction: received / total });
  }
  if (received !== total) throw new Error(`GET ${request.url}: ${received} of ${total} bytes arrived`);
  return bytes;
}

const runtimeAnswers = new Map<string, { promise: Promise<ArrayBuffer>; answer: (message: RuntimeBytes) => void }>();

/**
 * onnxruntime-web's wasm from the page, which has fetched it already (or is fetching it): no second download. One
 * question per URL at a time; a failed one is asked again next time.
 */
function runtimeFromPage(url: string): Promise<ArrayBuffer> {
  const asked = runtimeAnswers.get(url);
  if (asked) return asked.promise;
  let answer!: (message: RuntimeBytes) => void;
  const promise = new Promise<ArrayBuffer>((resolve, reject) => {
    answer = (message) => {
      runtimeAnswers.delete(url);
      if ("wasm" in message) resolve(message.wasm);
      else reject(new Error(`onnxruntime-web's runtime: ${message.error}`));
    };
  });
  runtimeAnswers.set(url, { promise, answer });
  post({ type: "runtime-wanted", url });
  return promise;
}

let decoderRuntime: Promise<DecoderRuntime & { provider: Inference["provider"] }> | undefined;
/**
 * The skinning network's decoder in onnxruntime-web, loaded once and only for bakes that need or refine with it, in
 * the build the page's main thread loads too (../onnx-runtime): on WebGPU when this browser got the WebGPU-capable
 * build (it gave an adapter) and a session starts there, on wasm otherwise. The model file comes from our server,
 * next to the bakes.
 */
function decoderFor(bakeUrl: string): Promise<DecoderRuntime & { provider: Inference["provider"] }> {
  decoderRuntime ??= (async () => {
    const [ort, response] = await Promise.all([loadOnnxRuntime(runtimeFromPage), fetch(new URL("../models/skinning-decoder.onnx", bakeUrl))]);
    if (!response.ok) throw new Error(`the skinning decoder: HTTP ${response.status}`);
    const model = new Uint8Array(await response.arrayBuffer());
    // Errors only: onnxruntime warns on every WebGPU session that it keeps shape operations on the CPU, by design.
    const logSeverityLevel = 3;
    if (await hasWebGpuBuild()) {
      try {
        return { ort: ort as unknown as OrtModule, decoder: await ort.InferenceSession.create(model, { executionProviders: ["webgpu"], logSeverityLevel }), provider: "webgpu" as const };
      } catch {
        // An adapter that cannot run the graph: the same build runs it on wasm.
      }
    }
    return { ort: ort as unknown as OrtModule, decoder: await ort.InferenceSession.create(model, { executionProviders: ["wasm"], logSeverityLevel }), provider: "wasm" as const };
  })();
  decoderRuntime.catch(() => (decoderRuntime = undefined));
  return decoderRuntime;
}

/** The body's GPU tables from its render weights. */
function influencesOf(baked: BakedBody, renderWeights: Float64Array, hash: string, reportProgress = true): RenderInfluences {
  return splitTextureSeams(
    computeRenderInfluences({ ...baked, renderWeights }, RENDER_INFLUENCES, reportProgress ? (fraction) => post({ type: "progress", hash, stage: "weights", fraction }) : undefined),
    { values: baked.renderUVs, corners: baked.renderUVTriangles }, { values: baked.renderColors, corners: baked.renderColorTriangles },
  );
}

function tableBuffers(influences: RenderInfluences): ArrayBuffer[] {
  return [influences.positions.buffer, influences.normals.buffer, influences.handles.buffer, influences.weights.buffer, influences.tangentDerivatives1.buffer, influences.tangentDerivatives2.buffer, ...(influences.uvs ? [influences.uvs.buffer] : []), ...(influences.colors ? [influences.colors.buffer] : [])] as ArrayBuffer[];
}

/**
 * After the body is on screen: the network decoded in this page refines its render weights between the grid's
 * nodes (refined-fields.ts), and the page swaps in the new tables. A failure leaves the grid's weights, which are
 * the physics' own.
 */
async function refine(request: BakeRequest, baked: BakedBody, renderWeights: Float64Array): Promise<void> {
  try {
    const decoder = await decoderFor(request.url);
    const refined = await inTurn(decoder.ort, async () => {
      const started = performance.now();
      const weights = await refinedRenderWeights(baked, renderWeights, decoder);
      return weights && { ...weights, ms: performance.now() - started };
    });
    if (!refined) return;
    const inference = { provider: decoder.provider, ms: refined.ms, queries: refined.queries };
    // No progress: the body is on screen already, and the page's loading panel must not show it again.
    const influences = influencesOf(baked, refined.weights, request.hash, false);
    post({ type: "refined", hash: request.hash, influences, inference }, tableBuffers(influences));
  } catch (error) {
    console.warn(`the network's refinement of ${request.hash} did not run: ${error instanceof Error ? error.message : String(error)}`);
  }
}

self.onmessage = (event: MessageEvent<PageToWorker>) => {
  const message = event.data;
  if (message.type === "runtime") {
    runtimeAnswers.get(message.url)?.answer(message);
  } else {
    void bake(message);
  }
};

async function bake(request: BakeRequest): Promise<void> {
  const started = performance.now();
  try {
    const cachedBytes = await readCachedBake(request.hash);
    const bytes = cachedBytes ?? (await download(request));
    const baked = decodeBakedBody(bytes);
    if (!cachedBytes) await writeCachedBake(request.hash, bytes);
    // The server sends the fields, not V x (K + 1) weights: evaluate them at the render vertices here.
    const decoder = baked.renderWeights.length === 0 && needsDecoder(baked.fieldKind) ? await decoderFor(request.url) : undefined;
    const weigh = () => renderWeightsOf(baked, (fraction) => post({ type: "progress", hash: request.hash, stage: "fields", fraction }), decoder);
    const decodeStarted = performance.now();
    const renderWeights = decoder ? await inTurn(decoder.ort, weigh) : await weigh();
    // The network's own fields (SKINNING=model-raw) are decoded at every render vertex.
    const inference = decoder ? { provider: decoder.provider, ms: performance.now() - decodeStarted, queries: baked.renderPositions.length / 3 } : undefined;
    const influences = influencesOf(baked, renderWeights, request.hash);
    post(
      { type: "ready", hash: request.hash, bytes, influences, cached: Boolean(cachedBytes), ms: performance.now() - started, weightsComputed: baked.renderWeights.length === 0, ...(inference ? { inference } : {}) },
      [bytes.buffer as ArrayBuffer, ...tableBuffers(influences)],
    );
    if (baked.fieldRefinement.length > 0) await refine(request, baked, renderWeights);
  } catch (error) {
    post({ type: "error", hash: request.hash, message: error instanceof Error ? error.message : String(error) });
  }
}
