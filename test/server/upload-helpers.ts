// POST /meshes as raw HTTP, for the upload tests.

import { request } from "node:http";
import { expect, vi } from "vitest";
import { serverRoom, type TestServer } from "./helpers";

export interface UploadAnswer { status: number; body: { error?: string; id?: string; hash?: string } }

/** POST /meshes as raw HTTP (the protocol page's contract), from `from` (another loopback address: another visitor). */
export function upload(s: TestServer, query: string, body: Uint8Array | string, headers: Record<string, string>, from?: string): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const bytes = typeof body === "string" ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const req = request({ host: "127.0.0.1", port: s.server.port, method: "POST", path: `/meshes?${query}`, localAddress: from, headers: { "Content-Length": String(bytes.byteLength), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: UploadAnswer["body"] = {};
        try { parsed = JSON.parse(text) as UploadAnswer["body"]; } catch { parsed = { error: `not JSON: ${text.slice(0, 80)}` }; }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on("error", (error) => ((error as NodeJS.ErrnoException).code === "EPIPE" || (error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error)));
    req.end(bytes);
  });
}

/**
 * Waits until an upload is in its room (in `bodies`, or in `characters` for a rigged file); fails at once with the
 * server's reason when its bake failed.
 */
export async function uploadLanded(s: TestServer, roomId: string, id: string, where: "bodies" | "characters" = "bodies", timeout = 120_000): Promise<void> {
  const failure = await vi.waitFor(() => {
    const failed = s.logs.find((line) => line.startsWith(`upload ${id} `) && line.includes(" failed: "));
    if (failed) return failed;
    expect(serverRoom(roomId).state[where].has(id)).toBe(true);
    return undefined;
  }, { timeout, interval: 50 });
  if (failure) throw new Error(failure);
}
