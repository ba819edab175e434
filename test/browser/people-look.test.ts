// How people and uploads look to a spectator, in real Chromium against a real server on loopback: a player in an
// emulated Meta Quest 3 (IWER) shows as a head with a face and a name tag and two hands with fingers, inside the
// kiosk's automatic camera's frame; a desktop player pulling a body shows as a pointer with their name; and two
// uploaded OBJ files (which bring no colours of their own) each wear a colour of their own, not the jelly's flat
// blue every upload used to wear, unlike each other and the bodies on the table.

import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { MATERIALS } from "../../shared/scene";
import { ARTIFACTS, inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";
import { samplePoint, topSample } from "./page-probes";

type Vec = [number, number, number];
interface People {
  avatars: { name: string; tag: string; head: Vec | null; face: string[]; hands: Record<string, string[]> }[];
  pointers: { text: string; position: Vec }[];
}

const HEADSET_NAME = "Ada", DESKTOP_NAME = "Grace";
/** The spectator's page: the kiosk's automatic camera, at a size a docs screenshot keeps small. */
const VIEW = { width: 960, height: 540 };
/** The top of a name tag above a head's centre, m (avatar-parts.ts: 0.2 m up, 0.07 m tall). */
const TAG_TOP = 0.24;
const DOCS = path.resolve(import.meta.dirname, "../../docs");

let server: RunningServer;
// One browser per page: pages of one Chromium share its GPU process (SwiftShader) and crawl.
let browsers: Browser[] = [];
let origin: string;
let spectator: WatchedPage;
let headset: WatchedPage;
let desktop: WatchedPage;

beforeAll(async () => {
  // Both uploads come from 127.0.0.1: the per-address rate has its own test.
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "people-look", log: () => undefined, uploadRate: { perMinute: 600, burst: 100 } });
  origin = `http://127.0.0.1:${server.port}`;
  browsers = [await launchBrowser({ viewport: VIEW }), await launchBrowser(), await launchBrowser()];
  spectator = await openPage(browsers[0], origin, "/?camera=auto");
  headset = await openPage(browsers[1], origin, "/?emulate=quest3");
  desktop = await openPage(browsers[2], origin, "/");
  for (const page of [spectator, headset, desktop]) await waitForPage(page.page, "window.pliant && window.pliant.ready", 120_000);
  // The headset's player joins with a name and enters VR, looking down at the table a little.
  await headset.page.fill("input[aria-label=name]", HEADSET_NAME);
  await headset.page.click("text=Join as player");
  await waitForPage(headset.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready", 120_000);
  await headset.page.click("text=Enter VR");
  await waitForPage(headset.page, "window.pliant.store.getState().session != null");
  await inPage(headset.page, "window.pliant.device.quaternion.set(-0.2164, 0, 0, 0.9763)");
  // The desktop player joins with a name.
  await desktop.page.fill("input[aria-label=name]", DESKTOP_NAME);
  await desktop.page.click("text=Join as player");
  await waitForPage(desktop.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready", 120_000);
  mkdirSync(ARTIFACTS, { recursive: true });
}, 600_000);

afterAll(async () => {
  for (const browser of browsers) await browser.close();
  await server?.close();
});

/** Where a world point lands on the spectator's page, and whether that is inside its view. */
async function onScreen(point: Vec): Promise<{ x: number; y: number; inside: boolean }> {
  const [x, y] = await inPage<[number, number]>(spectator.page, `window.pliant.project(${point.join(", ")})`);
  return { x, y, inside: x >= 0 && x <= VIEW.width && y >= 0 && y <= VIEW.height };
}

it("a headset player has a face, hands with fingers and a name tag, all in the kiosk camera's frame; a desktop player pulling shows as a named pointer", async () => {
  const people = () => inPage<People>(spectator.page, "window.pliant.people");
  // The headset player: a head with eyes and a smile, a tag with the name, two hands with a thumb and four fingers.
  let avatar: People["avatars"][number] | undefined;
  await vi.waitFor(async () => {
    avatar = (await people()).avatars.find((a) => a.tag === HEADSET_NAME);
    expect(avatar, `the spectator sees ${JSON.stringify(await people())}`).toBeDefined();
    expect(avatar!.head).not.toBeNull();
    expect(Object.keys(avatar!.hands).sort()).toEqual(["left", "right"]);
  }, { timeout: 60_000, interval: 200 });
  expect(avatar!.face).toEqual(expect.arrayContaining(["eye-left", "eye-right", "mouth"]));
  for (const side of ["left", "right"]) expect(avatar!.hands[side]).toEqual(expect.arrayContaining(["palm", "thumb", "index", "middle", "ring", "little"]));
  // The desktop player drags the dough ball up with the mouse and holds it. A page drawing a frame or two a second
  // here may lose its grab ("nothing was heard from you for 2 s"): it takes hold again.
  const body = "dough-ball";
  const grabAt = await inPage<Vec>(desktop.page, samplePoint(body, await inPage<number>(desktop.page, topSample(body))));
  const [x, y] = await inPage<[number, number]>(desktop.page, `window.pliant.project(${grabAt.join(", ")})`);
  const holding = () => inPage<string | undefined>(desktop.page, "window.pliant.client.heldBody('pointer')");
  const hold = async () => {
    if ((await holding()) === body) return;
    await desktop.page.mouse.up();
    await vi.waitFor(async () => {
      await desktop.page.mouse.move(x, y);
      await desktop.page.mouse.down();
      // A grab holds from the frame after the press.
      await waitForPage(desktop.page, `window.pliant.frameStats.count >= ${(await inPage<number>(desktop.page, "window.pliant.frameStats.count")) + 2}`, 20_000);
      const held = await holding();
      if (held !== body) await desktop.page.mouse.up();
      expect(held).toBe(body);
    }, { timeout: 60_000, interval: 200 });
    for (let step = 1; step <= 4; step++) await desktop.page.mouse.move(x, y - 10 * step);
  };
  try {
    // The spectator sees the desktop player as a pointer with their name where they pull.
    await vi.waitFor(async () => {
      await hold();
      expect((await people()).pointers.map((p) => p.text)).toEqual([DESKTOP_NAME]);
    }, { timeout: 120_000, interval: 200 });
    // The automatic camera keeps the headset player's head and name tag in view (it used to crop them).
    await vi.waitFor(async () => {
      const head = (await people()).avatars.find((a) => a.tag === HEADSET_NAME)!.head!;
      const seen = [await onScreen(head), await onScreen([head[0], head[1] + TAG_TOP, head[2]])];
      expect(seen.every((s) => s.inside), `head and tag top on the ${VIEW.width} x ${VIEW.height} page at ${JSON.stringify(seen)}`).toBe(true);
    }, { timeout: 60_000, interval: 200 });
    // The picture for people: both players in it (taken again if the pointer went while it was taken).
    await vi.waitFor(async () => {
      await hold();
      const pointer = (await people()).pointers[0]?.position;
      expect(pointer && (await onScreen(pointer)).inside, "the pointer is in the spectator's view").toBe(true);
      await spectator.page.screenshot({ path: path.join(DOCS, "players.png") });
      expect((await people()).pointers.length, "the pointer stayed while the picture was taken").toBe(1);
    }, { timeout: 120_000, interval: 200 });
  } finally {
    await desktop.page.mouse.up();
  }
  // A close-up of the headset player's face and hands from the desktop player's page, for people to look at.
  const head = (await inPage<People>(desktop.page, "window.pliant.people")).avatars.find((a) => a.tag === HEADSET_NAME)?.head;
  if (head) {
    await inPage(desktop.page, `window.pliant.aimCamera([${head[0] + 0.15}, ${head[1] - 0.1}, ${head[2] - 0.75}], [${head[0]}, ${head[1] - 0.2}, ${head[2]}])`);
    await waitForPage(desktop.page, `window.pliant.frameStats.count >= ${(await inPage<number>(desktop.page, "window.pliant.frameStats.count")) + 3}`, 30_000);
    await desktop.page.screenshot({ path: path.join(ARTIFACTS, "avatar-close-up.png") });
  }
  for (const page of [spectator, headset, desktop]) expect(page.errors).toEqual([]);
  expect([...spectator.offsite, ...headset.offsite, ...desktop.offsite]).toEqual([]);
}, 300_000);

/** Drops a file on the page as a visitor dragging it from their desktop would. */
async function dropFile(page: WatchedPage, name: string, bytes: Uint8Array): Promise<void> {
  await inPage(page.page, `(() => {
    const text = atob(${JSON.stringify(Buffer.from(bytes).toString("base64"))});
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], ${JSON.stringify(name)}));
    window.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, cancelable: true }));
    window.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, cancelable: true }));
  })()`);
}

function rgbDistance(a: string, b: string): number {
  const [p, q] = [a, b].map((c) => [1, 3, 5].map((k) => Number.parseInt(c.slice(k, k + 2), 16)));
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

it("two uploaded OBJ files each wear a colour of their own: not the jelly's blue, unlike each other and the table's bodies", async () => {
  const tableColours = await inPage<string[]>(spectator.page, "['spot', 'rubber-block', 'dough-ball'].map((id) => window.pliant.bodyLook(id).colour)");
  for (const file of ["suzanne.obj", "teapot.obj"]) await dropFile(desktop, file, await readFile(path.resolve(import.meta.dirname, "../../server/assets", file)));
  const names = ["suzanne", "teapot"];
  await waitForPage(spectator.page, `${JSON.stringify(names)}.every((name) => { const id = window.pliant.bodyNamed(name); return id !== null && window.pliant.bodyLook(id) !== null; })`, 540_000)
    .catch(async (error: Error) => { throw new Error(`${error.message}; the desktop player's page says: ${await inPage<string>(desktop.page, "document.body.innerText")}`); });
  const colours = await inPage<string[]>(spectator.page, `${JSON.stringify(names)}.map((name) => window.pliant.bodyLook(window.pliant.bodyNamed(name)).colour)`);
  console.info(`uploads' colours: ${colours.join(", ")}; the table's: ${tableColours.join(", ")}`);
  expect(rgbDistance(colours[0], colours[1]), `${colours[0]} against ${colours[1]}`).toBeGreaterThanOrEqual(60);
  for (const colour of colours) {
    expect(rgbDistance(colour, MATERIALS.jelly.color), `${colour} against the jelly's ${MATERIALS.jelly.color}`).toBeGreaterThanOrEqual(60);
    for (const table of tableColours) expect(rgbDistance(colour, table), `${colour} against a table body's ${table}`).toBeGreaterThanOrEqual(60);
  }
  await spectator.page.screenshot({ path: path.join(ARTIFACTS, "uploads-palette.png") });
  expect(spectator.errors).toEqual([]);
}, 600_000);
