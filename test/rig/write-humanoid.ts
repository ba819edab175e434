// Writes the procedural humanoid (procedural-humanoid.ts) to a GLB file, for measuring by hand:
//   npx tsx test/rig/write-humanoid.ts /tmp/humanoid.glb
//   npm run eval:secondary -- --mesh /tmp/humanoid.glb --test Running

import { writeFile } from "node:fs/promises";
import { humanoidBytes } from "./procedural-humanoid";

const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: npx tsx test/rig/write-humanoid.ts OUT.glb\n");
  process.exit(2);
}
await writeFile(out, await humanoidBytes());
process.stdout.write(`${out}\n`);
