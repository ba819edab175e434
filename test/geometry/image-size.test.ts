// An image's size from its header alone: PNG, JPEG (any start-of-frame, after other segments) and the three WebP
// kinds; anything that is not what it claims to be has no size.

import { describe, expect, it } from "vitest";
import { imageSize } from "../../shared/geometry";

const bytes = (...parts: (number[] | string)[]) => new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));
const be32 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const le32 = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24];

const png = (width: number, height: number) => bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], be32(13), "IHDR", be32(width), be32(height), [8, 6, 0, 0, 0], be32(0));
/** SOI, an APP0 (JFIF) segment, a DQT segment, then the frame header with the given marker. */
const jpeg = (width: number, height: number, frame = 0xc0) => bytes(
  [0xff, 0xd8], [0xff, 0xe0, 0, 16], "JFIF", [0, 1, 1, 0, 0, 1, 0, 1, 0, 0], [0xff, 0xdb, 0, 4, 0, 0], [0xff, 0xff],
  [0xff, frame, 0, 11, 8, height >> 8, height & 255, width >> 8, width & 255, 1, 1, 0x11, 0], [0xff, 0xd9],
);
const webp = (chunk: string, data: number[]) => bytes("RIFF", le32(4 + 8 + data.length), "WEBP", chunk, le32(data.length), data, new Array(16).fill(0));

describe("imageSize", () => {
  it("reads a PNG's IHDR", () => {
    expect(imageSize(png(16384, 16384), "png")).toEqual({ width: 16384, height: 16384 });
    expect(imageSize(png(3, 5), "png")).toEqual({ width: 3, height: 5 });
  });

  it("reads a JPEG's frame header, baseline or progressive, past the segments before it", () => {
    expect(imageSize(jpeg(640, 480), "jpg")).toEqual({ width: 640, height: 480 });
    expect(imageSize(jpeg(8000, 6000, 0xc2), "jpg")).toEqual({ width: 8000, height: 6000 });
    // A Huffman table (C4) is not a frame: the walk goes on past it and finds none.
    expect(imageSize(jpeg(640, 480, 0xc4), "jpg")).toBeNull();
  });

  it("reads lossy, lossless and extended WebP", () => {
    expect(imageSize(webp("VP8 ", [0, 0, 0, 0x9d, 0x01, 0x2a, 1000 & 255, 1000 >> 8, 700 & 255, 700 >> 8]), "webp")).toEqual({ width: 1000, height: 700 });
    const bits = (16383 - 1) | ((9000 - 1) << 14);
    expect(imageSize(webp("VP8L", [0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, bits >>> 24]), "webp")).toEqual({ width: 16383, height: 9000 });
    const w = 20000 - 1, h = 30000 - 1;
    expect(imageSize(webp("VP8X", [0, 0, 0, 0, w & 255, (w >> 8) & 255, w >> 16, h & 255, (h >> 8) & 255, h >> 16]), "webp")).toEqual({ width: 20000, height: 30000 });
  });

  it("has no size for what is not what it claims, is cut short, or says 0", () => {
    expect(imageSize(jpeg(640, 480), "png")).toBeNull();
    expect(imageSize(png(640, 480), "jpg")).toBeNull();
    expect(imageSize(png(640, 480).subarray(0, 20), "png")).toBeNull();
    expect(imageSize(jpeg(640, 480).subarray(0, 30), "jpg")).toBeNull();
    expect(imageSize(png(0, 480), "png")).toBeNull();
    expect(imageSize(jpeg(640, 0), "jpg")).toBeNull();
    expect(imageSize(bytes("GIF89a", new Array(30).fill(0)), "gif")).toBeNull();
    expect(imageSize(new Uint8Array(0), "webp")).toBeNull();
  });
});
