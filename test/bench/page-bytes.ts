// Counts what a page downloads, per kind of file: bytes on the wire (Chromium's `Network.loadingFinished`
// encodedDataLength, i.e. compressed body plus headers, as playwright reports it in `request.sizes()`; nothing for
// a response from the HTTP cache) and decoded bytes (the body as the page reads it). Requests of the page's dedicated workers (the bake
// worker) are included. Used by `npm run bench:page-bytes` and test/browser/page-bytes.test.ts.

import type { Page, Request } from "playwright-core";

export const BYTE_KINDS = ["wasm", "js", "bakes", "models", "textures", "profiles", "html", "other"] as const;
export type ByteKind = (typeof BYTE_KINDS)[number];

export interface ByteCount {
  wire: number;
  decoded: number;
  requests: number;
}

export type ByteTable = Record<ByteKind | "total", ByteCount>;

/** One finished HTTP response. */
export interface LoggedResponse {
  url: string;
  kind: ByteKind;
  status: number;
  contentEncoding: string;
  cacheControl: string;
  wire: number;
  decoded: number;
  /** ms since the log started. */
  at: number;
}

export function kindOf(url: string): ByteKind {
  const { pathname } = new URL(url);
  if (pathname.endsWith(".wasm")) return "wasm";
  if (/\.m?js$/.test(pathname)) return "js";
  if (pathname.startsWith("/bakes/")) return "bakes";
  if (pathname.startsWith("/models/")) return "models";
  if (pathname.startsWith("/profiles/")) return "profiles";
  if (/^\/(uploaded-)?textures\//.test(pathname) || /\.(png|jpe?g|webp|ktx2)$/.test(pathname)) return "textures";
  if (pathname === "/" || pathname.endsWith(".html") || pathname === "/admin") return "html";
  return "other";
}

/** The network log of one page and its workers; make it before `page.goto`. */
export class PageBytes {
  readonly responses: LoggedResponse[] = [];
  /** Bytes of WebSocket frames received (the room's own traffic, which grows for as long as a page watches). */
  socketBytes = 0;
  private readonly started = Date.now();
  private readonly reading = new Set<Promise<void>>();

  constructor(page: Page) {
    page.on("requestfinished", (request) => {
      const read = this.log(request).finally(() => this.reading.delete(read));
      this.reading.add(read);
    });
    page.on("websocket", (socket) => socket.on("framereceived", ({ payload }) => (this.socketBytes += typeof payload === "string" ? Buffer.byteLength(payload) : payload.length)));
  }

  /** Bytes so far per kind, and in all (HTTP only; the socket is `socketBytes`), once the responses being read are in. */
  async table(): Promise<ByteTable> {
    while (this.reading.size) await Promise.all(this.reading);
    const table = Object.fromEntries([...BYTE_KINDS, "total"].map((k) => [k, { wire: 0, decoded: 0, requests: 0 }])) as ByteTable;
    for (const r of this.responses) {
      for (const row of [table[r.kind], table.total]) {
        row.wire += r.wire;
        row.decoded += r.decoded;
        row.requests++;
      }
    }
    return table;
  }

  private async log(request: Request): Promise<void> {
    const url = request.url();
    if (!/^https?:/.test(url)) return;
    const at = Date.now() - this.started;
    const response = await request.response();
    if (!response) return;
    const [sizes, headers, body] = await Promise.all([request.sizes(), response.allHeaders(), response.body().catch(() => null)]);
    this.responses.push({
      url, kind: kindOf(url), status: response.status(), contentEncoding: headers["content-encoding"] ?? "", cacheControl: headers["cache-control"] ?? "",
      wire: sizes.responseBodySize + sizes.responseHeadersSize, decoded: body?.length ?? (await decodedLength(url)), at,
    });
  }
}

/**
 * The decoded size of a body Chromium did not keep (it keeps none over 10 MB, nor a wasm file compiled as it
 * streamed in): the same file asked for again, uncompressed, from the test's side.
 */
async function decodedLength(url: string): Promise<number> {
  const response = await fetch(url, { headers: { "accept-encoding": "identity" } });
  return (await response.arrayBuffer()).byteLength;
}

export const MB = 1e6;

/** What a cold visitor may download (issue 29): until the room's bodies are on screen, and in all. */
export const PAGE_BYTE_TARGETS = { untilVisible: 8 * MB, inAll: 10 * MB };

/** A markdown table of byte counts in MB, one column per moment. */
export function byteRows(columns: { name: string; table: ByteTable }[]): string {
  const head = `| kind | ${columns.map((c) => `${c.name}: wire MB | decoded MB | requests`).join(" | ")} |\n|---|${columns.map(() => "---|---|---|").join("")}\n`;
  const f = (v: number) => (v / MB).toFixed(2);
  return head + [...BYTE_KINDS, "total" as const].map((k) => `| ${k} | ${columns.map((c) => `${f(c.table[k].wire)} | ${f(c.table[k].decoded)} | ${c.table[k].requests}`).join(" | ")} |`).join("\n") + "\n";
}
