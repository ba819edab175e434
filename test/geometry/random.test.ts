import { describe, expect, it } from "vitest";
import { Random, createRandom } from "../../shared/geometry";

describe("Random", () => {
  it("repeats the same sequence for the same seed and differs between seeds", () => {
    const a = createRandom(42), b = createRandom(42), c = createRandom(43);
    const seqA = Array.from({ length: 100 }, () => a.next());
    const seqB = Array.from({ length: 100 }, () => b.next());
    const seqC = Array.from({ length: 100 }, () => c.next());
    expect(seqB).toEqual(seqA);
    expect(seqC).not.toEqual(seqA);
  });

  it("gives uniform numbers in [0, 1) with the right mean and spread", () => {
    const random = new Random(7);
    const n = 100_000;
    let sum = 0, sumSquares = 0, min = 1, max = 0;
    for (let i = 0; i < n; i++) {
      const x = random.next();
      sum += x;
      sumSquares += x * x;
      min = Math.min(min, x);
      max = Math.max(max, x);
    }
    expect(min).toBeGreaterThanOrEqual(0);
    expect(max).toBeLessThan(1);
    expect(sum / n).toBeCloseTo(0.5, 2);
    expect(sumSquares / n - (sum / n) ** 2).toBeCloseTo(1 / 12, 2);
  });

  it("gives standard normals", () => {
    const random = new Random(11);
    const n = 100_000;
    let sum = 0, sumSquares = 0, allFinite = true;
    for (let i = 0; i < n; i++) {
      const x = random.normal();
      allFinite &&= Number.isFinite(x);
      sum += x;
      sumSquares += x * x;
    }
    expect(allFinite).toBe(true);
    expect(Math.abs(sum / n)).toBeLessThan(0.02);
    expect(sumSquares / n).toBeGreaterThan(0.97);
    expect(sumSquares / n).toBeLessThan(1.03);
  });

  it("accepts any finite seed and rejects NaN", () => {
    expect(() => new Random(-3.5).next()).not.toThrow();
    expect(() => new Random(2 ** 40).next()).not.toThrow();
    expect(() => new Random(Number.NaN)).toThrow(RangeError);
  });
});
