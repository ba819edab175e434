// Static files as browsers should download them: compressed (Brotli, else gzip) when the browser accepts it, with
// the file's own Content-Type, `Vary: Accept-Encoding` and the compressed Content-Length. The built client carries
// its compressed copies beside each file (client/precompress-plugin.ts); its hashed assets are cached for good and
// its pages are revalidated on every visit. Other files worth compressing (the ONNX networks, the controller and
// hand models) are compressed on their first request and kept in memory.

import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";

/** Files named by their content hash (Vite's assets/): they never change under their name. */
export const IMMUTABLE = "public, max-age=31536000, immutable";
/** Pages name the current assets: a browser asks each time whether they changed (a 304 when not). */
export const REVALIDATE = "no-cache";

type Encoding = "br" | "gzip";
const SUFFIX: Record<Encoding, string> = { br: ".br", gzip: ".gz" };

/** The encoding to send among those a file has: Brotli (smaller) when the request accepts it, else gzip, else none. */
export function chooseEncoding(req: Request, available: Record<Encoding, boolean>): Encoding | null {
  if (available.br && req.acceptsEncodings("br") === "br") return "br";
  if (available.gzip && req.acceptsEncodings("gzip") === "gzip") return "gzip";
  return null;
}

const isFile = (file: string) => stat(file).then((s) => s.isFile(), () => false);

/** The file a request names under `root`, or null when it names none (or something outside it). */
function fileUnder(root: string, req: Request): string | null {
  let relative: string;
  try {
    relative = decodeURIComponent(req.path);
  } catch {
    return null;
  }
  if (relative.includes("\0")) return null;
  const file = path.join(root, relative.endsWith("/") ? `${relative}index.html` : relative);
  return file.startsWith(root + path.sep) ? file : null;
}

/** The built client (client/dist): compressed copies where the build made them, express.static for the rest. */
export function builtClient(root: string): RequestHandler[] {
  const cacheControl = (file: string) => (file.startsWith(path.join(root, "assets") + path.sep) ? IMMUTABLE : file.endsWith(".html") ? REVALIDATE : null);
  const precompressed: RequestHandler = async (req, res, next) => {
    const file = req.method === "GET" || req.method === "HEAD" ? fileUnder(root, req) : null;
    if (!file) return next();
    const [plain, br, gzip] = await Promise.all([file, `${file}.br`, `${file}.gz`].map(isFile));
    if (!plain || (!br && !gzip)) return next();
    res.vary("Accept-Encoding");
    const encoding = chooseEncoding(req, { br, gzip });
    if (!encoding) return next();
    res.set("Content-Encoding", encoding).type(path.extname(file));
    const policy = cacheControl(file);
    if (policy) res.set("Cache-Control", policy);
    // Content-Type is already set, so send keeps it (not the .br/.gz file's); Content-Length is the copy's size.
    res.sendFile(`${file}${SUFFIX[encoding]}`, { cacheControl: !policy }, (error) => {
      if (!error || res.headersSent) return;
      res.removeHeader("Content-Encoding");
      next(error);
    });
  };
  const rest = express.static(root, {
    index: "index.html",
    setHeaders: (res, file) => {
      const policy = cacheControl(file);
      if (policy) res.setHeader("Cache-Control", policy);
    },
  });
  return [precompressed, rest];
}

const COMPRESS_ON_REQUEST = /\.(json|glb|gltf|bin|onnx)$/i;
/** Bytes of compressed files kept in memory at most (the networks and the controller models need a few MB). */
const KEPT_BYTES = 64 * 1024 * 1024;
/** Files larger than this are sent as they are (compressing them would hold a request for long). */
const LARGEST = 32 * 1024 * 1024;
/** Brotli 9 of 11: nearly the smallest output in a fraction of the time (as for bakes). */
const BROTLI_QUALITY = 9;
const COMPRESS: Record<Encoding, (bytes: Buffer) => Promise<Buffer>> = {
  br: (bytes) => promisify(brotliCompress)(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
  gzip: (bytes) => promisify(gzip)(bytes, { level: constants.Z_BEST_COMPRESSION }),
};

/**
 * Files compressed on their first request and kept in memory, keyed by path, size and modification time. The
 * compression runs on libuv's thread pool, never on the event loop the rooms tick on.
 */
export class CompressedFiles {
  /** By key, oldest first: the compressed bytes and, once they are made, their size. */
  private readonly kept = new Map<string, { bytes: Promise<Buffer>; size: number }>();
  private keptBytes = 0;

  /**
   * Sends `file` (compressed when that pays), with `cacheControl`; calls `missing` when there is no such file.
   * A file that does not compress, or a request that accepts no compression, gets the file as express sends it.
   */
  async send(req: Request, res: Response, file: string, cacheControl: string, missing: () => void): Promise<void> {
    const stats = await stat(file).catch(() => null);
    if (!stats?.isFile()) return missing();
    res.set("Cache-Control", cacheControl);
    if (!COMPRESS_ON_REQUEST.test(file) || stats.size > LARGEST) return void res.sendFile(file, { cacheControl: false });
    res.vary("Accept-Encoding");
    const encoding = chooseEncoding(req, { br: true, gzip: true });
    if (!encoding) return void res.sendFile(file, { cacheControl: false });
    const key = `${encoding}:${file}:${stats.size}:${stats.mtimeMs}`;
    let entry = this.kept.get(key);
    if (!entry) {
      const made = { bytes: readFile(file).then(COMPRESS[encoding]), size: 0 };
      this.kept.set(key, (entry = made));
      made.bytes.then((bytes) => this.keep(key, made, bytes.length), () => this.kept.delete(key));
    }
    const compressed = await entry.bytes.catch(() => null);
    if (!compressed || compressed.length >= stats.size) return void res.sendFile(file, { cacheControl: false });
    // res.send adds Content-Length and an ETag, and answers a matching If-None-Match with a 304.
    res.set("Content-Encoding", encoding).type(path.extname(file)).send(compressed);
  }

  /** A static folder whose compressible files are sent compressed (express.static for the others). */
  folder(root: string, cacheControl: string): RequestHandler[] {
    const compressed = (req: Request, res: Response, next: NextFunction) => {
      const file = req.method === "GET" || req.method === "HEAD" ? fileUnder(root, req) : null;
      if (!file || !COMPRESS_ON_REQUEST.test(file)) return next();
      this.send(req, res, file, cacheControl, next).catch(next);
    };
    return [compressed, express.static(root, { cacheControl: false, setHeaders: (res) => res.setHeader("Cache-Control", cacheControl) })];
  }

  private keep(key: string, entry: { size: number }, size: number): void {
    if (this.kept.get(key) !== entry) return;
    entry.size = size;
    this.keptBytes += size;
    // The oldest go first; a dropped file is compressed again on its next request.
    for (const [oldest, { size: oldestSize }] of this.kept) {
      if (this.keptBytes <= KEPT_BYTES || oldest === key) break;
      this.kept.delete(oldest);
      this.keptBytes -= oldestSize;
    }
  }
}
