// The bake worker: fetches a baked body (or finds it in IndexedDB), decodes it and builds the GPU skinning tables
// of its render mesh, reporting progress, so that the page's main thread never does per-vertex work.

import { computeRenderInfluences, decodeBakedBody, renderWeightsOf } from "../../../shared/skinning";
import { readCachedBake, writeCachedBake } from "./bake-cache";
import { RENDER_INFLUENCES, type BakeReply, type BakeRequest } from "./bake-messages";

const post = (reply: BakeReply, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(reply, transfer);

async function download(request: BakeRequest): Promise<Uint8Array> {
  const response = await fetch(request.url);
  if (!response.ok) throw new Error(`GET ${request.url}: HTTP ${response.status}`);
  const total = Number(response.headers.get("content-length")) || 0;
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

self.onmessage = async (event: MessageEvent<BakeRequest>) => {
  const request = event.data;
  const started = performance.now();
  try {
    const cachedBytes = await readCachedBake(request.hash);
    const bytes = cachedBytes ?? (await download(request));
    const baked = decodeBakedBody(bytes);
    if (!cachedBytes) await writeCachedBake(request.hash, bytes);
    // The server sends the fields, not V x (K + 1) weights: evaluate them at the render vertices here.
    const renderWeights = await renderWeightsOf(baked, (fraction) => post({ type: "progress", hash: request.hash, stage: "fields", fraction }));
    const influences = computeRenderInfluences({ ...baked, renderWeights }, RENDER_INFLUENCES, (fraction) => post({ type: "progress", hash: request.hash, stage: "weights", fraction }));
    post(
      { type: "ready", hash: request.hash, bytes, influences, cached: Boolean(cachedBytes), ms: performance.now() - started, weightsComputed: baked.renderWeights.length === 0 },
      [bytes.buffer, influences.positions.buffer, influences.normals.buffer, influences.handles.buffer, influences.weights.buffer, influences.tangentDerivatives1.buffer, influences.tangentDerivatives2.buffer],
    );
  } catch (error) {
    post({ type: "error", hash: request.hash, message: error instanceof Error ? error.message : String(error) });
  }
};
