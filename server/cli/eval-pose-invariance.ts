// npm run eval:pose-invariance -- --mesh PATH [--clip NAME] [--frames 8] [--anchored-model DIR] [--dump DIR] [--json]
// Whether the network's fields stay put on deformed frames of a shape (server/scenarios/pose-invariance.ts): raw
// against the rest pose, anchored against the automatically chosen anchor frame. stdout carries only the result.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { evaluatePoseInvariance, type PoseFrame } from "../scenarios/pose-invariance";
import { MODEL_DIRECTORY, modelProvider, POSE_CONSISTENT_DIRECTORY } from "../skinning/model-provider";
import { integerFlag, parseFlags, runCli, UsageError } from "./cli-support";

const USAGE = `usage: npm run eval:pose-invariance -- --mesh PATH [--clip NAME] [--frames 8] [--surface-points 4096] [--material-points 1024]
       [--anchored-model DIR (default models/pose-consistent when it exists, else the shipped network)] [--dump DIR] [--json]`;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    mesh: { type: "string" }, clip: { type: "string" }, frames: { type: "string" }, "surface-points": { type: "string" }, "material-points": { type: "string" },
    "anchored-model": { type: "string" }, dump: { type: "string" }, json: { type: "boolean", default: false }, help: { type: "boolean" },
  });
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (typeof flags.mesh !== "string") throw new UsageError("--mesh is required");
  const anchoredDir = typeof flags["anchored-model"] === "string" ? path.resolve(flags["anchored-model"]) : existsSync(POSE_CONSISTENT_DIRECTORY) ? POSE_CONSISTENT_DIRECTORY : MODEL_DIRECTORY;
  const raw = await modelProvider();
  const anchored = anchoredDir === MODEL_DIRECTORY ? raw : await modelProvider(anchoredDir);
  const dumped: PoseFrame[] = [];
  const result = await evaluatePoseInvariance({
    mesh: flags.mesh,
    clip: typeof flags.clip === "string" ? flags.clip : undefined,
    raw, anchored,
    framesPerClip: integerFlag(flags, "frames", 8, 2, 256),
    surfacePoints: integerFlag(flags, "surface-points", 4096, 64, 65536),
    materialPoints: integerFlag(flags, "material-points", 1024, 32, 65536),
    onProgress: (what) => process.stderr.write(`${what}...\n`),
    onFrame: typeof flags.dump === "string" ? (frame) => dumped.push(frame) : undefined,
  });
  if (typeof flags.dump === "string") dumpFrames(flags.dump, dumped, result.anchor.index + 1);
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify({ ...result, anchoredModel: anchoredDir })}\n`);
    return;
  }
  const row = (name: string, frames: number, r: { temporalL1: number; subspaceDistance: number }, a: { temporalL1: number; subspaceDistance: number }) =>
    `| ${name} | ${frames} | ${r.temporalL1} | ${r.subspaceDistance} | ${a.temporalL1} | ${a.subspaceDistance} |`;
  const lines = [
    `${result.mesh}: anchor ${result.anchor.group} t=${result.anchor.t} s (consensus; least strained: frame ${result.anchor.leastStrain?.index}), anchored network: ${anchoredDir}`,
    "| frames of | n | raw temporal L1 | raw subspace distance | anchored temporal L1 | anchored subspace distance |",
    "|---|---|---|---|---|---|",
    ...result.groups.map((g) => row(g.name, g.frames, g.raw, g.anchored)),
    row("all", result.frames, result.raw, result.anchored),
  ];
  const groupNames = result.rawBind.groups.map((g) => g.name);
  const relative = (groups: { name: string; reconstruction: { relative: number } }[]) => groups.map((g) => g.reconstruction.relative).join(" | ");
  lines.push(
    "",
    "Anchor rules (the anchored network's fields on the rule's frame): the other frames' subspace distance to them, and the share of each frame's",
    "non-affine deformation their subspace misses (reconstruction, 0 exact, 1 no better than one affine map), mean and per group:",
    `| rule | frame | subspace distance | reconstruction | rms / size | ${groupNames.join(" | ")} |`,
    `|---|---|---|---|---|${groupNames.map(() => "---|").join("")}`,
    ...result.rules.map((r) => `| ${r.rule} | ${r.group} t=${r.t} | ${r.anchored.subspaceDistance} | ${r.reconstruction.relative} | ${r.reconstruction.rms} | ${relative(r.groups)} |`),
    `| shipped network, bind pose | rest | | ${result.rawBind.reconstruction.relative} | ${result.rawBind.reconstruction.rms} | ${relative(result.rawBind.groups)} |`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
}

/**
 * The frames as the raw network saw them, for models/train/pose_consistency.py: index.json (per frame its group,
 * time and counts; which frame is the anchor) and frames.f32 (per frame: surface points + normals, N x 6, then the
 * material points, Q x 3, float32). Frame 0 is the rest pose.
 */
function dumpFrames(directory: string, frames: PoseFrame[], anchor: number): void {
  mkdirSync(directory, { recursive: true });
  let size = 0;
  for (const f of frames) size += 2 * f.surface.length + f.points.length;
  const data = new Float32Array(size);
  let offset = 0;
  const index = frames.map((f) => {
    const n = f.surface.length / 3, start = offset;
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < 3; a++) {
        data[offset + 6 * i + a] = f.surface[3 * i + a];
        data[offset + 6 * i + 3 + a] = f.normals[3 * i + a];
      }
    }
    offset += 6 * n;
    data.set(f.points, offset);
    offset += f.points.length;
    return { group: f.group, t: f.t, offset: start, surfaceCount: n, pointCount: f.points.length / 3 };
  });
  writeFileSync(path.join(directory, "frames.f32"), new Uint8Array(data.buffer));
  writeFileSync(path.join(directory, "index.json"), JSON.stringify({ anchor, frames: index }));
}

runCli(main, USAGE);
