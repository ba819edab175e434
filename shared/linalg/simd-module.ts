// A WebAssembly SIMD module held as base64 (kernels built by `npm run build:kernels`), compiled once per page or
// process. Where WebAssembly or its SIMD is missing (an old browser), the module is null and callers run their JS
// loops instead.

// The slice of the WebAssembly JS API used here, typed locally: shared/ compiles without DOM or Node typings.
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  compile(bytes: Uint8Array): Promise<object>;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

export const WASM_PAGE = 65536;

export class SimdModule {
  private compiled: object | null | undefined;

  constructor(private readonly base64: string) {}

  /** The compiled module, compiled synchronously on first use, or null where SIMD does not run. */
  module(): object | null {
    if (this.compiled === undefined) {
      this.compiled = null;
      try {
        const bytes = this.bytes();
        if (bytes && wasm) this.compiled = new wasm.Module(bytes);
      } catch {
        this.compiled = null;
      }
    }
    return this.compiled;
  }

  /**
   * Compiles asynchronously, before the first caller needs it: a browser may refuse to compile a large module
   * synchronously on its main thread. Resolves to whether the module runs here.
   */
  async prepare(): Promise<boolean> {
    if (this.compiled === undefined) {
      try {
        const bytes = this.bytes();
        this.compiled = bytes && wasm ? await wasm.compile(bytes) : null;
      } catch {
        this.compiled = undefined; // the synchronous path may still work
      }
    }
    return this.module() !== null;
  }

  /** A new instance's exports, or null where SIMD does not run (or instantiation failed). */
  instantiate<T>(): T | null {
    const module = this.module();
    if (!module || !wasm) return null;
    try {
      return new wasm.Instance(module, {}).exports as T;
    } catch {
      return null;
    }
  }

  /** The module's bytes where WebAssembly SIMD runs (validate() is false where SIMD is missing), else null. */
  private bytes(): Uint8Array | null {
    if (!wasm || typeof atob !== "function") return null;
    const text = atob(this.base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return wasm.validate(bytes) ? bytes : null;
  }
}

const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** Grows `memory` to at least `bytes`. */
export function reserveMemory(memory: WasmMemory, bytes: number): void {
  const missing = Math.ceil((bytes - memory.buffer.byteLength) / WASM_PAGE);
  if (missing > 0) memory.grow(missing);
}
