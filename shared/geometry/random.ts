/**
 * Seeded pseudo-random numbers (mulberry32). Every random choice in geometry comes from here, so the
 * same seed gives bit-identical samples on every run and on both server and client.
 */
export class Random {
  private state: number;
  private spareNormal = 0;
  private hasSpareNormal = false;

  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
    // Fold any finite number (negative, fractional, > 2^32) into 32 bits, then scramble it once so that
    // neighbouring seeds (1, 2, 3...) start far apart.
    const folded = (Math.floor(seed) % 4294967296) >>> 0;
    this.state = mix32(folded ^ 0x9e3779b9);
  }

  /** Uniform integer in [0, 2^32). */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  nextInt(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Standard normal (Box-Muller; the second value of each pair is kept for the next call). */
  normal(): number {
    if (this.hasSpareNormal) {
      this.hasSpareNormal = false;
      return this.spareNormal;
    }
    const u = 1 - this.next(); // (0, 1]: log(u) stays finite
    const angle = 2 * Math.PI * this.next();
    const radius = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = radius * Math.sin(angle);
    this.hasSpareNormal = true;
    return radius * Math.cos(angle);
  }
}

export function createRandom(seed: number): Random {
  return new Random(seed);
}

/** 32-bit integer hash (murmur3 finaliser). */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) | 0;
}
