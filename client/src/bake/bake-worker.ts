// The bake worker: fetches a baked body (or finds it in IndexedDB), decodes it and builds the GPU skinning tables
// of its render mesh, reporting progress, so that the page's main thread never does per-vertex work.

import { computeRenderInfluences, decodeBakedBody, needsDecoder, renderWeightsOf, splitTextureSeams, type DecoderRuntime, type OrtModule } from "../../../shared/skinning";
import { hasWebGpuBuild, loadOnnxRuntime } from "../onnx-runtime";
import { readCachedBake, writeCachedBake } from "./bake-cache";
import { RENDER_INFLUENCES, type BakeReply, type BakeRequest } from "./bake-messages";

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

let decoderRuntime: Promise<DecoderRuntime> | undefined;

/**
 * The skinning network's decoder in onnxruntime-web, loaded once and only for bakes made with the network, in the
 * build the page's main thread loads too (../onnx-runtime): WebGPU when the browser can, wasm otherwise. The model
 * file comes from our server, next to the bakes.
 */
function decoderFor(bakeUrl: string): Promise<DecoderRuntime> {
  decoderRuntime ??= (async () => {
    const [ort, response] = await Promise.all([loadOnnxRuntime(), fetch(new URL("../models/skinning-decoder.onnx", bakeUrl))]);
    // The GPU where this browser got the WebGPU-capable build (it gave an adapter); the plain build has wasm only.
    const executionProviders = (await hasWebGpuBuild()) ? ["webgpu", "wasm"] : ["wasm"];
    if (!response.ok) throw new Error(`the skinning decoder: HTTP ${response.status}`);
    const model = new Uint8Array(await response.arrayBuffer());
    const decoder = await ort.InferenceSession.create(model, { executionProviders });
    return { ort: ort as unknown as OrtModule, decoder };
  })();
  decoderRuntime.catch(() => (decoderRuntime = undefined));
  return decoderRuntime;
}

self.onmessage = async (event: MessageEvent<BakeRequest>) => {
  const request = event.data;
  const started = performance.now();
  try {
    const cachedBytes = await readCachedBake(request.hash);
    const bytes = cachedBytes ?? (await download(request));
    const baked = decodeBakedBody(bytes);
    if (!cachedBytes) await writeCachedBake(request.hash, bytes);
    // The server sends the fields, not V x (K + 1) weights: evaluate them at the render vertices here.
    const decoder = baked.renderWeights.length === 0 && needsDecoder(baked.fieldKind) ? await decoderFor(request.url) : undefined;
    const renderWeights = await renderWeightsOf(baked, (fraction) => post({ type: "progress", hash: request.hash, stage: "fields", fraction }), decoder);
    const influences = splitTextureSeams(
      computeRenderInfluences({ ...baked, renderWeights }, RENDER_INFLUENCES, (fraction) => post({ type: "progress", hash: request.hash, stage: "weights", fraction })),
      { values: baked.renderUVs, corners: baked.renderUVTriangles }, { values: baked.renderColors, corners: baked.renderColorTriangles },
    );
    post(
      { type: "ready", hash: request.hash, bytes, influences, cached: Boolean(cachedBytes), ms: performance.now() - started, weightsComputed: baked.renderWeights.length === 0 },
      [bytes.buffer, influences.positions.buffer, influences.normals.buffer, influences.handles.buffer, influences.weights.buffer, influences.tangentDerivatives1.buffer, influences.tangentDerivatives2.buffer, ...(influences.uvs ? [influences.uvs.buffer] : []), ...(influences.colors ? [influences.colors.buffer] : [])],
    );
  } catch (error) {
    post({ type: "error", hash: request.hash, message: error instanceof Error ? error.message : String(error) });
  }
};
