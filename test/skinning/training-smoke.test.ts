// The training recipe runs on CPU with Debian's torch: a few steps on a few shapes (their eigenmode teachers
// computed on the way) make the fields orthogonal and bring their span towards the teachers', and the exported
// ONNX model reproduces torch's outputs in onnxruntime (max abs difference <= 1e-4).

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parityError } from "./parity";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");

describe("training smoke test (Debian python3-torch)", () => {
  it("trains a few steps, the orthogonality and span losses fall, and the export matches torch in onnxruntime", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "pliant-train-"));
    await run("/usr/bin/python3", [path.join(ROOT, "models/train/train.py"), "--smoke", "--out", out], { timeout: 300_000 });
    const rows = readFileSync(path.join(out, "losses.csv"), "utf8").trim().split("\n").slice(1).map((l) => l.split(",").map(Number));
    expect(rows).toHaveLength(30);
    // Step 1 has all-zero fields (zero-initialised head); from there on the fields separate.
    const early = Math.max(...rows.slice(1, 6).map((r) => r[2]));
    const late = rows.slice(-5).reduce((a, r) => a + r[2], 0) / 5;
    expect(late).toBeLessThan(0.5 * early);
    // The span loss (column 7): 1 when the fields miss every teacher mode, falling as they take the modes' span.
    const mean = (some: number[][]) => some.reduce((a, r) => a + r[6], 0) / some.length;
    expect(rows[0][6]).toBeCloseTo(1, 3);
    expect(mean(rows.slice(-5))).toBeLessThan(mean(rows.slice(1, 6)));
    expect(rows.every((r) => Number.isFinite(r[1]) && Number.isFinite(r[2]) && Number.isFinite(r[6]))).toBe(true);

    await run("/usr/bin/python3", [path.join(ROOT, "models/train/export.py"), "--weights", path.join(out, "weights.pt"), "--out", out], { timeout: 300_000 });
    const error = await parityError(out, path.join(out, "skinning-parity.json"));
    expect(error.latents).toBeLessThanOrEqual(1e-4);
    expect(error.fields).toBeLessThanOrEqual(1e-4);
  }, 300_000);
});
