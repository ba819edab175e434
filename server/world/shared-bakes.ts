// Bakes shared between processes through Redis (scale-out): each process publishes the client copies of the bakes
// it makes, and serves one it does not have from there, so a client that joins a room through any process can
// fetch every body of it, whichever process baked it.

import { readFile } from "node:fs/promises";
import { Redis } from "ioredis";
import path from "node:path";
import { BAKE_CACHE_DIRECTORY, clientBakeFile } from "./bake-cache";
import { UPLOAD_BAKE_DIRECTORY } from "./upload-store";

const KEY_PREFIX = "pliant:bake:";
/** The whole bake (the server's copy), for rooms in other processes: uploads are baked by whichever process got them. */
const FULL_KEY_PREFIX = "pliant:bake-full:";
const TEXTURE_KEY_PREFIX = "pliant:texture:";
/** Uploads' bakes and textures stay in Redis this long (a room rarely keeps an added body a day). */
const UPLOAD_EXPIRY_SECONDS = 7 * 24 * 3600;

export class SharedBakes {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  }

  /** Publishes the client copies of these bakes (already on this process's disk, in `directory`). */
  async publish(hashes: string[], directory = BAKE_CACHE_DIRECTORY, expirySeconds?: number): Promise<void> {
    for (const hash of hashes) {
      const key = KEY_PREFIX + hash;
      if (await this.redis.exists(key)) continue;
      const bytes = await readFile(clientBakeFile(hash, directory));
      if (expirySeconds) await this.redis.set(key, bytes, "EX", expirySeconds);
      else await this.redis.set(key, bytes);
    }
  }

  /**
   * Publishes both copies of a bake (an upload's), and its base-colour image (a file name in the bake cache), so
   * that a room in any process can take it in and every process can serve it.
   */
  async publishWhole(hash: string, texture?: string): Promise<void> {
    await this.publish([hash], UPLOAD_BAKE_DIRECTORY, UPLOAD_EXPIRY_SECONDS);
    const key = FULL_KEY_PREFIX + hash;
    if (!(await this.redis.exists(key))) await this.redis.set(key, await readFile(path.join(UPLOAD_BAKE_DIRECTORY, `${hash}.bake`)), "EX", UPLOAD_EXPIRY_SECONDS);
    if (texture) await this.redis.set(TEXTURE_KEY_PREFIX + texture, await readFile(path.join(UPLOAD_BAKE_DIRECTORY, texture)), "EX", UPLOAD_EXPIRY_SECONDS);
  }

  /** An uploaded texture another process published, or null. */
  async fetchTexture(file: string): Promise<Buffer | null> {
    return this.redis.getBuffer(TEXTURE_KEY_PREFIX + file);
  }

  /** The server's copy of a bake another process published, or null. */
  async fetchWhole(hash: string): Promise<Uint8Array | null> {
    const bytes = await this.redis.getBuffer(FULL_KEY_PREFIX + hash);
    return bytes && new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** The client copy of a bake another process published, or null. */
  async fetch(hash: string): Promise<Buffer | null> {
    return this.redis.getBuffer(KEY_PREFIX + hash);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
