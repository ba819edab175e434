// A Vite build plugin: writes a Brotli (.br) and a gzip (.gz) copy beside every built file that compresses, which
// the server sends to browsers that accept them (server/static/compressed-static.ts). Compressing the onnxruntime
// wasm takes many seconds, so the copies are kept in a cache folder by content hash: a rebuild compresses only the
// files that changed.

import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Plugin } from "vite";

const COMPRESSIBLE = /\.(html|js|mjs|css|json|svg|wasm|txt)$/;
/** Smaller files gain too little (a compressed response's headers cost some bytes too). */
const SMALLEST = 256;
/** A copy is kept only when it saves at least this share of the bytes. */
const LEAST_SAVING = 0.05;
/** Brotli 9 of 11: within 15% of the smallest output (the 14 MB wasm: 2.7 against 2.4 MB) in a fifth of the time. */
const BROTLI_QUALITY = 9;
/** Cache entries not used by a build for this long are removed. */
const CACHE_DAYS = 14;
const DAY_MS = 86_400_000;

const ENCODINGS = {
  br: promisify(brotliCompress) as (bytes: Buffer, options: object) => Promise<Buffer>,
  gz: promisify(gzip) as (bytes: Buffer, options: object) => Promise<Buffer>,
};
const options = (bytes: Buffer) => ({
  br: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length, [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS } },
  gz: { level: constants.Z_BEST_COMPRESSION },
});

export function precompress(cacheDirectory: string): Plugin {
  let outDir = "";
  return {
    name: "pliant-precompress",
    apply: "build",
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      await mkdir(cacheDirectory, { recursive: true });
      const files = (await readdir(outDir, { recursive: true })).map((f) => path.join(outDir, f)).filter((f) => COMPRESSIBLE.test(f));
      // Compression runs on libuv's thread pool: all files at once keep every core busy.
      await Promise.all(files.map((file) => compressBeside(file, cacheDirectory)));
      await forgetUnused(cacheDirectory);
    },
  };
}

async function compressBeside(file: string, cacheDirectory: string): Promise<void> {
  const bytes = await readFile(file);
  if (bytes.length < SMALLEST) return;
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 32);
  await Promise.all((Object.keys(ENCODINGS) as (keyof typeof ENCODINGS)[]).map(async (encoding) => {
    // Named by the settings too: a change of quality must not reuse copies made with the old one.
    const cached = path.join(cacheDirectory, `${hash}.${encoding === "br" ? `q${BROTLI_QUALITY}` : `l${constants.Z_BEST_COMPRESSION}`}.${encoding}`);
    const compressed: Uint8Array = (await readFile(cached).catch(() => null)) ?? (await compressInto(cached, ENCODINGS[encoding](bytes, options(bytes)[encoding])));
    await utimes(cached, new Date(), new Date());
    if (compressed.length <= bytes.length * (1 - LEAST_SAVING)) await writeFile(`${file}.${encoding}`, compressed);
  }));
}

async function compressInto(cached: string, compressing: Promise<Buffer>): Promise<Buffer> {
  const compressed = await compressing;
  // Written whole, then named: another worktree's build may read the same cache at the same time.
  await writeFile(`${cached}.${process.pid}`, compressed);
  await rename(`${cached}.${process.pid}`, cached);
  return compressed;
}

async function forgetUnused(cacheDirectory: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(cacheDirectory)) {
    const file = path.join(cacheDirectory, name);
    if (now - (await stat(file)).mtimeMs > CACHE_DAYS * DAY_MS) await rm(file, { force: true });
  }
}
