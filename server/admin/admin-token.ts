// The admin token check, in constant time (a timing difference must not reveal how much of a guess was right).

import { timingSafeEqual } from "node:crypto";

export function adminTokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== "string" || expected.length === 0) return false;
  const a = Buffer.from(expected), b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
