// npm run bench:page-bytes [-- --seconds N] [--skinning model-raw] [--json]: what a cold visitor downloads. A fresh
// Chromium profile opens the room as a spectator (the default room: its bodies and the fox; with `--skinning model-raw`
// baked with the network's own fields, so the page's worker runs the decoder), and the bytes on the wire and decoded
// are counted per kind of file until the room's bodies are on screen (`window.pliant.ready`), then in all: once
// every character's secondary-motion network runs in the page (onnxruntime-web and its wasm loaded) and N more
// seconds (default 10) have passed. The room's WebSocket traffic is listed apart (it grows as long as one watches).

import { startServer } from "../../server/app";
import { fieldChoice } from "../../server/skinning/weights-source";
import { PLAYGROUND } from "../../shared/scene";
import { launchBrowser, waitForPage } from "../browser/browser";
import { MB, PAGE_BYTE_TARGETS, PageBytes, byteRows, type ByteTable } from "./page-bytes";

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const seconds = Number(argument("--seconds") ?? 10);
const characters = (PLAYGROUND.characters ?? []).map((c) => c.id);
const skinning = argument("--skinning") ?? "default";
if (skinning !== "default" && skinning !== "model-raw") throw new Error(`--skinning is default or model-raw, not ${skinning}`);

const fields = skinning === "model-raw" ? await fieldChoice("model-raw") : {};
const server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "bench", log: () => undefined, ...fields });
const origin = `http://127.0.0.1:${server.port}`;
const browser = await launchBrowser({ niced: false });
let untilVisible: ByteTable, inAll: ByteTable, bytes: PageBytes, visibleMs: number, networksMs: number;
try {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  bytes = new PageBytes(page);
  const started = Date.now();
  await page.goto(`${origin}/`);
  await waitForPage(page, "window.pliant && window.pliant.ready", 180_000);
  visibleMs = Date.now() - started;
  untilVisible = await bytes.table();
  await waitForPage(page, `${JSON.stringify(characters)}.every((id) => (window.pliant.character(id)?.learnedSteps ?? 0) > 0)`, 180_000);
  networksMs = Date.now() - started;
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  inAll = await bytes.table();
  if (errors.length) process.stderr.write(`page errors: ${errors.join(" | ")}\n`);
} finally {
  await browser.close();
  await server.close();
}

const wasm = bytes.responses.filter((r) => r.kind === "wasm").map((r) => ({ file: new URL(r.url).pathname, wire: r.wire, decoded: r.decoded, encoding: r.contentEncoding || "none", cache: r.cacheControl, atMs: r.at }));
if (process.argv.includes("--json")) {
  process.stdout.write(`${JSON.stringify({ skinning, untilVisible, inAll, socketBytes: bytes.socketBytes, visibleMs, networksMs, wasm, targets: PAGE_BYTE_TARGETS })}\n`);
} else {
  const verdict = (value: number, target: number) => `${(value / MB).toFixed(2)} MB (target <= ${target / MB} MB: ${value <= target ? "met" : "MISSED"})`;
  process.stdout.write(`A cold visitor's download: the default room${skinning === "model-raw" ? " baked with the network's own fields" : ""} as a spectator, a fresh Chromium profile, loopback\n`);
  process.stdout.write(`bodies visible after ${(visibleMs / 1000).toFixed(1)} s, characters' networks running after ${(networksMs / 1000).toFixed(1)} s, then ${seconds} s more\n\n`);
  process.stdout.write(byteRows([{ name: "until bodies visible", table: untilVisible }, { name: "in all", table: inAll }]));
  process.stdout.write(`\non the wire until the bodies are visible: ${verdict(untilVisible.total.wire, PAGE_BYTE_TARGETS.untilVisible)}\n`);
  process.stdout.write(`on the wire in all: ${verdict(inAll.total.wire, PAGE_BYTE_TARGETS.inAll)}\n`);
  process.stdout.write(`the room's WebSocket, received in all: ${(bytes.socketBytes / MB).toFixed(2)} MB (not counted above)\n`);
  for (const w of wasm) process.stdout.write(`wasm ${w.file}: ${(w.wire / MB).toFixed(2)} MB on the wire, ${(w.decoded / MB).toFixed(2)} MB decoded, encoding ${w.encoding}, Cache-Control "${w.cache}", arrived ${(w.atMs / 1000).toFixed(1)} s in\n`);
}
process.exit(0);
