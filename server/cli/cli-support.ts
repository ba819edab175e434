// Shared pieces of the headless CLIs: typed flag parsing with clear errors, and running main with a clean exit.

import { isWeightsSource, WEIGHTS_SOURCES, type WeightsSource } from "../skinning/weights-source";
import { parseArgs } from "node:util";

export class UsageError extends Error {
  override name = "UsageError";
}

type FlagSpec = Record<string, { type: "string" | "boolean"; default?: string | boolean }>;

export function parseFlags(argv: string[], spec: FlagSpec): Record<string, string | boolean | undefined> {
  try {
    return parseArgs({ args: argv, options: spec, strict: true, allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function numberFlag(values: Record<string, unknown>, name: string, fallback: number, check?: (v: number) => boolean, rule?: string): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (typeof raw !== "string" || raw.trim() === "" || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number, got "${String(raw)}"`);
  if (check && !check(value)) throw new UsageError(`--${name} ${rule ?? "is out of range"}, got ${value}`);
  return value;
}

export function integerFlag(values: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  return numberFlag(values, name, fallback, (v) => Number.isInteger(v) && v >= min && v <= max, `must be an integer in [${min}, ${max}]`);
}

/** Runs a CLI: errors go to stderr as one clear line and exit code 1 (2 for usage errors). */
export function runCli(main: () => Promise<void>, usage: string): void {
  main().catch((error: Error) => {
    process.stderr.write(`error: ${error.message}\n`);
    if (error instanceof UsageError) process.stderr.write(`\n${usage}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  });
}

/** --weights: one of the field providers (WEIGHTS_SOURCES: model, eigen, baseline, model-raw). */
export function weightsFlag(values: Record<string, unknown>): WeightsSource {
  const weights = values.weights;
  if (!isWeightsSource(weights)) throw new UsageError(`--weights must be one of ${WEIGHTS_SOURCES.join(", ")}`);
  return weights;
}
