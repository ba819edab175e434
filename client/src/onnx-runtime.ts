// Which onnxruntime-web build this browser gets. One per page: the main thread (the characters' secondary-motion
// networks) and the bake worker (the skinning decoder) load the same build, and the worker gets its wasm from the
// page (fetchRuntimeWasm), so it is downloaded once. A browser
// that can run WebGPU from wasm (a WebGPU adapter and JSPI) gets the JSPI build, with the WebGPU and wasm execution
// providers (a 17 MB wasm, 3.0 MB compressed); any other the plain wasm build (14 MB, 2.7 MB compressed). The
// WebGPU builds for browsers without JSPI (27-28 MB, 4.6 MB compressed) are not shipped: those browsers use wasm.

import { browserExecutionProviders } from "../../shared/skinning";
import jspiWasm from "onnxruntime-web/ort-wasm-simd-threaded.jspi.wasm?url";
import plainWasm from "onnxruntime-web/ort-wasm-simd-threaded.wasm?url";

export type OnnxRuntime = typeof import("onnxruntime-web/wasm");

let webGpu: Promise<boolean> | undefined;

/**
 * Whether this page (or worker) gets the WebGPU-capable build: JSPI, and a WebGPU adapter (navigator.gpu alone says
 * little: Chromium without a usable GPU has it, and gives no adapter).
 */
export function hasWebGpuBuild(): Promise<boolean> {
  webGpu ??= "Suspending" in WebAssembly
    ? browserExecutionProviders((navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu).then((providers) => providers.includes("webgpu"))
    : Promise.resolve(false);
  return webGpu;
}

/** The execution providers this page's networks try, in order: WebGPU first where this build has it. */
export async function pageExecutionProviders(): Promise<string[]> {
  return (await hasWebGpuBuild()) ? ["webgpu", "wasm"] : ["wasm"];
}

/** The URL of the wasm runtime this page (or worker) loads. */
export async function runtimeWasmUrl(): Promise<string> {
  return (await hasWebGpuBuild()) ? jspiWasm : plainWasm;
}

const wasmFetches = new Map<string, Promise<ArrayBuffer>>();

/**
 * A runtime's wasm, fetched once by this thread (the page's preload answers the first fetch: the same URL, mode and
 * credentials), for onnxruntime here and, copied, for the bake worker, which would otherwise download it again.
 */
export function fetchRuntimeWasm(url: string): Promise<ArrayBuffer> {
  let bytes = wasmFetches.get(url);
  if (!bytes) {
    bytes = fetch(url).then((response) => {
      if (!response.ok) throw new Error(`the onnxruntime-web runtime: HTTP ${response.status}`);
      return response.arrayBuffer();
    });
    bytes.catch(() => wasmFetches.delete(url));
    wasmFetches.set(url, bytes);
  }
  return bytes;
}

/**
 * onnxruntime-web on one thread (threads need cross-origin isolation, which the page does not ask for), its wasm
 * given by `wasmFor` (the bake worker asks the page for it).
 */
export async function loadOnnxRuntime(wasmFor: (url: string) => Promise<ArrayBuffer> = fetchRuntimeWasm): Promise<OnnxRuntime> {
  const ort = (await hasWebGpuBuild()) ? await import("onnxruntime-web/jspi") : await import("onnxruntime-web/wasm");
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmBinary ??= await wasmFor(await runtimeWasmUrl());
  return ort;
}

let preloaded: Promise<void> | undefined;

/**
 * Starts downloading the build's wasm now, while the page joins the room, rather than when a character's network
 * first asks for it; onnxruntime's own request for the file later takes this response. Low priority: the app's
 * scripts and the bodies come first. Once per page (later calls return the first's promise, resolved once the
 * preload has been asked for: which build is known only after the WebGPU adapter has answered).
 */
export function preloadOnnxRuntime(): Promise<void> {
  preloaded ??= runtimeWasmUrl().then((href) => {
    const link = document.createElement("link");
    link.rel = "preload";
    link.as = "fetch";
    // onnxruntime fetches it with credentials "same-origin", which is what an anonymous CORS preload matches.
    link.crossOrigin = "anonymous";
    link.setAttribute("fetchpriority", "low");
    link.href = href;
    document.head.append(link);
  });
  return preloaded;
}
