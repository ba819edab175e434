// Mixed reality on a real table, in Chromium with IWER's synthetic environment (a room with a floor and a table
// plane, turned and off-centre): in immersive-ar the player points the right controller at the table and pulls
// the trigger; the shared room's table top must then lie on the real table's plane (within 1 cm), the virtual
// table hides, and the hands the page sends are in room coordinates through the same transform.

import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/app";
import { PLAYGROUND, roomToReal, realToRoom, tableTop, type RoomAlignment } from "../../shared/scene";
import { ARTIFACTS, inPage, launchBrowser, openPage, waitForPage, type Browser, type WatchedPage } from "./browser";

type Vec = [number, number, number];
/** The real table: its top's centre, its long side's turn, and its size (m). */
const TABLE = { x: 0.45, y: 0.7, z: -0.85, yaw: 0.35, width: 1.2, depth: 0.6 };
const quaternionAboutY = (a: number) => ({ x: 0, y: Math.sin(a / 2), z: 0, w: Math.cos(a / 2) });
/** Meta's scene capture format, as @iwer/sem reads it: a floor and a table, horizontal planes facing up. */
function environment() {
  // A horizontal plane's orientation in this format (as Quest captures store it: the office capture's table), turned about +y.
  const flat = { x: 1, y: 0, z: 0, w: 0 }, turn = quaternionAboutY(TABLE.yaw);
  const table = { // turn * flat
    x: turn.w * flat.x + turn.x * flat.w + turn.y * flat.z - turn.z * flat.y,
    y: turn.w * flat.y - turn.x * flat.z + turn.y * flat.w + turn.z * flat.x,
    z: turn.w * flat.z + turn.x * flat.y - turn.y * flat.x + turn.z * flat.w,
    w: turn.w * flat.w - turn.x * flat.x - turn.y * flat.y - turn.z * flat.z,
  };
  const plane = (uuid: string, label: string, orientation: object, position: object, width: number, height: number) => ({
    uuid, semanticLabel_META: label, locatable_META: { orientation, position },
    bounded2D_META: { offset: { x: -width / 2, y: -height / 2 }, extent: { width, height } },
  });
  return {
    type: "scene", version: 1, spatialEntities: [
      plane("00000000-0000-4000-8000-000000000001", "FLOOR", flat, { x: 0, y: 0, z: 0 }, 5, 5),
      plane("00000000-0000-4000-8000-000000000002", "TABLE", table, { x: TABLE.x, y: TABLE.y, z: TABLE.z }, TABLE.width, TABLE.depth),
      // Hit tests meet the scene's triangle mesh (as a Quest's room scan), not its planes: the table top and the floor.
      { uuid: "00000000-0000-4000-8000-000000000003", semanticLabel_META: "GLOBAL_MESH", locatable_META: { orientation: { x: 0, y: 0, z: 0, w: 1 }, position: { x: 0, y: 0, z: 0 } }, triangleMesh_META: sceneMesh() },
    ],
  };
}

/** The table top (a 3 cm slab) and the floor, as a triangle mesh in room coordinates: base64 float32 vertices, uint32 indices. */
function sceneMesh(): { vertices: string; indices: string } {
  const c = Math.cos(TABLE.yaw), s = Math.sin(TABLE.yaw), vertices: number[] = [], indices: number[] = [];
  const box = (cx: number, cy: number, cz: number, hx: number, hy: number, hz: number, turn: boolean) => {
    const base = vertices.length / 3;
    for (const [x, y, z] of [[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1], [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]]) {
      const lx = x * hx, lz = z * hz;
      vertices.push(cx + (turn ? c * lx + s * lz : lx), cy + y * hy, cz + (turn ? -s * lx + c * lz : lz));
    }
    for (const f of [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [3, 7, 6], [3, 6, 2], [0, 4, 7], [0, 7, 3], [1, 2, 6], [1, 6, 5]]) indices.push(...f.map((i) => base + i));
  };
  box(TABLE.x, TABLE.y - 0.015, TABLE.z, TABLE.width / 2, 0.015, TABLE.depth / 2, true);
  box(0, -0.01, 0, 2.5, 0.01, 2.5, false);
  return { vertices: Buffer.from(new Float32Array(vertices).buffer).toString("base64"), indices: Buffer.from(new Uint32Array(indices).buffer).toString("base64") };
}

let server: RunningServer;
let browser: Browser;
let headset: WatchedPage;

beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1", adminToken: "mr", log: () => undefined });
  browser = await launchBrowser();
  mkdirSync(ARTIFACTS, { recursive: true });
  headset = await openPage(browser, `http://127.0.0.1:${server.port}`, "/?emulate=quest3&sem");
  await waitForPage(headset.page, "window.pliant && window.pliant.ready");
  await inPage(headset.page, `window.pliant.device.sem.loadEnvironment(${JSON.stringify(environment())})`);
  await headset.page.click("text=Join as player");
  await waitForPage(headset.page, "window.pliant.connection.snapshot.role === 'player'");
  await headset.page.click("text=Enter AR");
  await waitForPage(headset.page, "window.pliant.store.getState().session != null && window.pliant.alignment.aligning");
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it("pointing at a real table and pulling the trigger puts the room's table top on it, within 1 cm", async () => {
  // The right controller 40 cm above the real table, pointing straight down (its ray is its -z).
  const down = { x: -Math.SQRT1_2, y: 0, z: 0, w: Math.SQRT1_2 };
  await inPage(headset.page, `(() => { const c = window.pliant.device.controllers.right; c.position.set(${TABLE.x + 0.1}, ${TABLE.y + 0.4}, ${TABLE.z + 0.05}); c.quaternion.set(${down.x}, ${down.y}, ${down.z}, ${down.w}); })()`);
  await waitForPage(headset.page, "window.pliant.alignment.reticle != null && window.pliant.alignment.surface != null", 60_000);
  // Before aligning, the virtual table shows, and the page's room coordinates are the real ones (the grip's now).
  expect(await inPage<boolean>(headset.page, "window.pliant.objectShown('table')")).toBe(true);
  const gripBefore = await inPage<Vec>(headset.page, "window.pliant.inputs.right.grip");
  await inPage(headset.page, "window.pliant.device.controllers.right.updateButtonValue('trigger', 1)");
  await waitForPage(headset.page, "window.pliant.alignment.aligned", 30_000);
  await inPage(headset.page, "window.pliant.device.controllers.right.updateButtonValue('trigger', 0)");

  const alignment = await inPage<RoomAlignment>(headset.page, "window.pliant.alignment.alignment");
  const planes = await inPage<Vec[]>(headset.page, "window.pliant.alignment.realPlanes");
  // The browser's own report of the real table (the horizontal plane that is not the floor), in its real space.
  const real = planes.find((p) => p[1] > 0.3)!;
  expect(real, JSON.stringify(planes)).toBeDefined();
  const table = tableTop(PLAYGROUND)!;
  const top = roomToReal(alignment, table.x, table.y, table.z);
  expect(Math.abs(top[1] - real[1])).toBeLessThan(0.01);
  expect(Math.hypot(top[0] - real[0], top[2] - real[2])).toBeLessThan(0.01);
  // The table's long side lies along the real table's (one way or the other).
  const end = roomToReal(alignment, table.x + 1, table.y, table.z);
  const along = Math.abs((end[0] - top[0]) * Math.cos(TABLE.yaw) - (end[2] - top[2]) * Math.sin(TABLE.yaw));
  expect(along).toBeGreaterThan(0.99);

  // The virtual table hides (passthrough shows the real one), and the hands are in room coordinates.
  const expected = realToRoom(alignment, gripBefore[0], gripBefore[1], gripBefore[2]);
  await headset.page.waitForFunction(`(() => { const g = window.pliant.inputs.right.grip; const e = ${JSON.stringify(expected)}; return g && Math.hypot(g[0] - e[0], g[1] - e[1], g[2] - e[2]) < 0.002; })()`, undefined, { timeout: 30_000 });
  await waitForPage(headset.page, "!window.pliant.objectShown('table')", 30_000);
  expect(await inPage<boolean>(headset.page, "window.pliant.objectShown('wall-north')")).toBe(false);
  // Looking down at the table, as a person standing at it would (the README's picture).
  await inPage(headset.page, "window.pliant.device.quaternion.set(-0.3, 0, 0, 0.954)");
  const frames = await inPage<number>(headset.page, "window.pliant.frameStats.count");
  await waitForPage(headset.page, `window.pliant.frameStats.count >= ${frames + 3}`, 30_000);
  await headset.page.screenshot({ path: path.join(ARTIFACTS, "mixed-reality.png") });
}, 180_000);
