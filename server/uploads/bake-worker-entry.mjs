// A worker thread cannot load TypeScript by itself (the main thread runs under tsx or vitest): register tsx's
// loader here, then start the worker proper.
import { register } from "tsx/esm/api";

register();
await import("./bake-worker.ts");
