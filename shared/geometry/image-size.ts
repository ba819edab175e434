// An image's width and height read from its header, without decoding it: a small file may decode to gigabytes
// (a 16,384 x 16,384 PNG of one colour is a few hundred kilobytes), so its size is known before anyone decodes it.

export interface ImageSize {
  width: number;
  height: number;
}

/** The size a PNG, JPEG or WebP says it has (`extension`: png, jpg or webp), or null when its header cannot be read. */
export function imageSize(bytes: Uint8Array, extension: string): ImageSize | null {
  const size = extension === "png" ? pngSize(bytes) : extension === "jpg" ? jpegSize(bytes) : extension === "webp" ? webpSize(bytes) : null;
  return size && size.width > 0 && size.height > 0 ? size : null;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The IHDR chunk, which must come first: width and height, big-endian, after the chunk's length and name. */
function pngSize(b: Uint8Array): ImageSize | null {
  if (b.byteLength < 24 || PNG_SIGNATURE.some((byte, i) => b[i] !== byte) || ascii(b, 12, 4) !== "IHDR") return null;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** Start-of-frame markers (baseline, extended, progressive, lossless, hierarchical, arithmetic): all but DHT, JPG and DAC. */
const JPEG_FRAME_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** The first start-of-frame segment's height and width, found by walking the segments from the start. */
function jpegSize(b: Uint8Array): ImageSize | null {
  if (b.byteLength < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let at = 2;
  while (at + 4 <= b.byteLength) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    // Markers without a length: TEM and the restart markers. Start of scan or end of image before a frame: no size.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null;
    const length = (b[at + 2] << 8) | b[at + 3];
    if (length < 2) return null;
    if (JPEG_FRAME_MARKERS.has(marker)) {
      if (at + 9 > b.byteLength) return null;
      // Length (2), precision (1), height (2), width (2). A height of 0 is given later (DNL): not read here.
      return { height: (b[at + 5] << 8) | b[at + 6], width: (b[at + 7] << 8) | b[at + 8] };
    }
    at += 2 + length;
  }
  return null;
}

/** The first chunk after RIFF....WEBP: lossy (VP8), lossless (VP8L) or extended (VP8X, the canvas size). */
function webpSize(b: Uint8Array): ImageSize | null {
  if (b.byteLength < 30 || ascii(b, 0, 4) !== "RIFF" || ascii(b, 8, 4) !== "WEBP") return null;
  const chunk = ascii(b, 12, 4), data = 20;
  if (chunk === "VP8 ") {
    // A 3-byte frame tag, the start code 9d 01 2a, then 14-bit width and height (the top 2 bits are scaling).
    if (b[data + 3] !== 0x9d || b[data + 4] !== 0x01 || b[data + 5] !== 0x2a) return null;
    return { width: ((b[data + 7] << 8) | b[data + 6]) & 0x3fff, height: ((b[data + 9] << 8) | b[data + 8]) & 0x3fff };
  }
  if (chunk === "VP8L") {
    // The signature 0x2f, then width - 1 and height - 1 in 14 bits each, least significant first.
    if (b[data] !== 0x2f) return null;
    const bits = b[data + 1] | (b[data + 2] << 8) | (b[data + 3] << 16) | (b[data + 4] << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") {
    // Flags (1) and reserved (3), then canvas width - 1 and height - 1 in 24 bits each, little-endian.
    const u24 = (at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
    return { width: u24(data + 4) + 1, height: u24(data + 7) + 1 };
  }
  return null;
}

function ascii(b: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...b.subarray(at, at + length));
}
