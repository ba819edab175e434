// How people and uploads look to a spectator, in real Chromium against a real server on loopback: a player in an
// emulated Meta Quest 3 (IWER) shows as a head with a face and a name tag and two hands with fingers, inside the
// kiosk's automatic camera's frame; a desktop player pulling a body shows as a pointer with their name; and two
// uploaded OBJ files (which bring no colours of their own) each wear a colour of their own, not the jelly's flat
// blue every upload used to wear, unlike each other and the bodies on the table. The desktop player is the room
// client a desktop page runs, driven from here (a pointer grab is all a desktop player shows to others): a third
// Chromium drawing a frame every few seconds on a loaded machine lets its grabs go (nothing heard for 2 s).

import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { PliantRoomClient, uploadMesh } from "../../shared/net";
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
/** A name tag's centre and top above a head's centre, m (avatar-parts.ts: 0.2 m up, 0.09 m tall). */
const TAG_CENTRE = 0.2, TAG_TOP = 0.245;

let server: RunningServer;
// One browser per page: pages of one Chromium share its GPU process (SwiftShader) and crawl.
let browsers: Browser[] = [];
let origin: string;
let spectator: WatchedPage;
let headset: WatchedPage;
let desktop: PliantRoomClient;

beforeAll(async () => {
  // Both uploads come from 127.0.0.1: the per-address rate has its own test.
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "people-look", log: () => undefined, uploadRate: { perMinute: 600, burst: 100 } });
  origin = `http://127.0.0.1:${server.port}`;
  browsers = [await launchBrowser({ viewport: VIEW }), await launchBrowser()];
  spectator = await openPage(browsers[0], origin, "/?camera=auto");
  headset = await openPage(browsers[1], origin, "/?emulate=quest3");
  for (const page of [spectator, headset]) await waitForPage(page.page, "window.pliant && window.pliant.ready", 120_000);
  // The headset's player joins with a name and enters VR, looking down at the table a little.
  await headset.page.fill("input[aria-label=name]", HEADSET_NAME);
  await headset.page.click("text=Join as player");
  await waitForPage(headset.page, "window.pliant.connection.snapshot.role === 'player' && window.pliant.ready", 120_000);
  await headset.page.click("text=Enter VR");
  await waitForPage(headset.page, "window.pliant.store.getState().session != null");
  await inPage(headset.page, "window.pliant.device.quaternion.set(-0.2164, 0, 0, 0.9763)");
  // The desktop player joins with a name.
  desktop = await PliantRoomClient.join({ endpoint: `ws://127.0.0.1:${server.port}`, options: { name: DESKTOP_NAME, role: "player" } });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 600_000);

afterAll(async () => {
  await desktop?.leave();
  for (const browser of browsers) await browser.close();
  await server?.close();
});

/**
 * Where a world point lands on the spectator's page, whether that is inside its view, and the text of the page's
 * panel over it ("" when none: a box with a background of its own, as the HUD's panels have, covers it).
 */
async function onScreen(point: Vec): Promise<{ x: number; y: number; inside: boolean; under: string }> {
  return inPage(spectator.page, `(() => {
    const [x, y] = window.pliant.project(${point.join(", ")});
    const canvas = document.querySelector("canvas");
    const panel = [...document.body.querySelectorAll("*")].find((e) => {
      if (e.contains(canvas)) return false;
      const r = e.getBoundingClientRect(), style = getComputedStyle(e);
      const painted = style.visibility !== "hidden" && !/rgba\\(.*, 0\\)|transparent/.test(style.backgroundColor);
      return painted && x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
    });
    return { x, y, inside: x >= 0 && x <= ${VIEW.width} && y >= 0 && y <= ${VIEW.height}, under: panel ? panel.textContent.slice(0, 60) : "" };
  })()`);
}

it("a headset player has a face, hands with fingers and a name tag, all in the kiosk camera's frame; a desktop player pulling shows as a named pointer", async () => {
  const people = () => inPage<People>(spectator.page, "window.pliant.people");
  // The headset player: a head with eyes and a smile, a tag with the name, two hands with a thumb and four fingers.
  const avatar = async () => (await people()).avatars.find((a) => a.name === `avatar-${HEADSET_NAME}`);
  await vi.waitFor(async () => expect((await avatar())?.head, `the spectator sees ${JSON.stringify(await people())}`).toBeTruthy(), { timeout: 60_000, interval: 200 });
  expect((await avatar())!.face, "the head's face").toEqual(expect.arrayContaining(["eye-left", "eye-right", "mouth"]));
  expect((await avatar())!.tag, "the name tag's text").toBe(HEADSET_NAME);
  await vi.waitFor(async () => {
    const hands = (await avatar())!.hands;
    expect(Object.keys(hands).sort(), "the hands with their parts shown").toEqual(["left", "right"]);
    for (const side of ["left", "right"]) expect(hands[side]).toEqual(expect.arrayContaining(["palm", "thumb", "index", "middle", "ring", "little"]));
  }, { timeout: 30_000, interval: 200 });
  // The desktop player takes the dough ball by its top with the mouse pointer and holds it 5 cm up, moving it a
  // little every frame as a hand on a mouse does.
  const body = "dough-ball";
  const grabAt = await inPage<Vec>(spectator.page, samplePoint(body, await inPage<number>(spectator.page, topSample(body))));
  let frame = 0, holding = false;
  // Its frames: what it queued goes out (the grab too), and a held grab moves.
  const frames = setInterval(() => {
    if (holding) desktop.moveGrab("pointer", [grabAt[0], grabAt[1] + 0.05 + 0.005 * Math.sin(frame++ / 3), grabAt[2]]);
    desktop.update();
  }, 50);
  try {
    const grab = await desktop.grab("pointer", body, grabAt);
    expect(grab.ok, grab.reason).toBe(true);
    holding = true;
    // The spectator sees the desktop player as a pointer with their name where they pull.
    await vi.waitFor(async () => expect((await people()).pointers.map((p) => p.text)).toEqual([DESKTOP_NAME]), { timeout: 60_000, interval: 200 });
    // The automatic camera keeps the headset player's head and name tag in view (it used to crop them), clear of
    // the page's panels, and the desktop player's pointer.
    const framed = async () => {
      const head = (await avatar())!.head!, pointer = (await people()).pointers[0]?.position;
      const seen = [await onScreen(head), await onScreen([head[0], head[1] + TAG_CENTRE, head[2]]), await onScreen([head[0], head[1] + TAG_TOP, head[2]])];
      expect(seen.every((s) => s.inside) && seen.slice(0, 2).every((s) => s.under === ""), `head, tag centre and tag top on the ${VIEW.width} x ${VIEW.height} page at ${JSON.stringify(seen)}`).toBe(true);
      expect(pointer && (await onScreen(pointer)).inside, "the pointer is in the spectator's view").toBe(true);
    };
    await vi.waitFor(framed, { timeout: 60_000, interval: 200 });
    // The picture for people: both players in it, framed so before and after it was taken (the camera circles).
    await vi.waitFor(async () => {
      await framed();
      await spectator.page.screenshot({ path: path.join(ARTIFACTS, "players.png") });
      await framed();
    }, { timeout: 60_000, interval: 200 });
  } finally {
    clearInterval(frames);
    desktop.release("pointer");
    desktop.update();
  }
  // A close-up of the headset player's face and hands, for people to look at (out/, not checked).
  const head = (await avatar())!.head!;
  await spectator.page.click("text=Orbit camera");
  await inPage(spectator.page, `window.pliant.aimCamera([${head[0] + 0.15}, ${head[1] - 0.1}, ${head[2] - 0.75}], [${head[0]}, ${head[1] - 0.2}, ${head[2]}])`);
  await waitForPage(spectator.page, `window.pliant.frameStats.count >= ${(await inPage<number>(spectator.page, "window.pliant.frameStats.count")) + 3}`, 30_000);
  await spectator.page.screenshot({ path: path.join(ARTIFACTS, "avatar-close-up.png") });
  await spectator.page.click("text=Auto camera");
  for (const page of [spectator, headset]) expect(page.errors).toEqual([]);
  expect([...spectator.offsite, ...headset.offsite]).toEqual([]);
}, 300_000);

function rgbDistance(a: string, b: string): number {
  const [p, q] = [a, b].map((c) => [1, 3, 5].map((k) => Number.parseInt(c.slice(k, k + 2), 16)));
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

it("two uploaded OBJ files each wear a colour of their own: not the jelly's blue, unlike each other and the table's bodies", async () => {
  const tableColours = await inPage<string[]>(spectator.page, "['spot', 'rubber-block', 'dough-ball'].map((id) => window.pliant.bodyLook(id).colour)");
  // The desktop player adds them as their page does: a ticket from the room, then the file.
  for (const file of ["suzanne.obj", "teapot.obj"]) {
    const { ticket } = await desktop.requestUploadTicket();
    await uploadMesh(origin, ticket, file, await readFile(path.resolve(import.meta.dirname, "../../server/assets", file)));
  }
  const names = ["suzanne", "teapot"];
  await waitForPage(spectator.page, `${JSON.stringify(names)}.every((name) => { const id = window.pliant.bodyNamed(name); return id !== null && window.pliant.bodyLook(id) !== null; })`, 540_000)
    .catch(async (error: Error) => { throw new Error(`${error.message}; the notices: ${desktop.notices.map((n) => n.message).join(" | ")}`); });
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
