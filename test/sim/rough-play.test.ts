// Rough play at a stand: a hand that keeps re-grabbing a body and yanking it up (ratcheting: it once drove a
// solve to 1e9 J), and a hand whipped across 2.8 m every other frame. The solver's step is bounded (an iteration
// budget), so it may end a step unconverged: that must never feed energy in. Physics gives the bound: the body's
// energy (kinetic, elastic, gravitational) plus the grab spring's can grow only by the work the hand does moving
// the spring's anchor, W = sum f . d(anchor). Every state stays finite, and the body comes back to its rest shape
// once let go.

import { describe, expect, it } from "vitest";
import { FloorContact, type SoftBody } from "../../shared/sim";
import { MATERIALS } from "../../shared/scene/materials";
import { bodyFor, makeBody, minRestY, shapeError } from "./helpers";

const DOUGH = MATERIALS.dough;

async function doughBody(): Promise<{ body: SoftBody; loaded: Awaited<ReturnType<typeof bodyFor>> }> {
  const loaded = await bodyFor("../shared/assets/meshes/spot.obj", 16, 256, 0.16);
  const body = makeBody(loaded, { damping: DOUGH.damping }, [0, -minRestY(loaded), 0], DOUGH);
  body.addContactSurface(new FloorContact(0));
  return { body, loaded };
}

function grabStiffness(body: SoftBody): number {
  return body.defaultGrabStiffness();
}

/** The hand's grab spring: its pull on the body (N, summed over the held samples) and its energy (J). */
function spring(body: SoftBody, grab: number, target: ArrayLike<number>): { force: number[]; energy: number } {
  const { samples, offsets } = body.grabbedSamples(grab);
  const k = grabStiffness(body) / samples.length, s = body.subspace, p = new Float64Array(3), force = [0, 0, 0];
  let energy = 0;
  samples.forEach((sample, j) => {
    body.pointPosition(s.surfaceRows, s.surfaceRest, sample, p, 0);
    for (let a = 0; a < 3; a++) {
      const stretch = target[a] + offsets[3 * j + a] - p[a];
      force[a] += k * stretch;
      energy += 0.5 * k * stretch * stretch;
    }
  });
  return { force, energy };
}

function bodyEnergy(body: SoftBody): number {
  const e = body.energies();
  return e.kinetic + e.elastic + e.potential;
}

/** Energy bookkeeping of one grab: the hand's work and the largest excess of energy over it. */
class EnergyLedger {
  work = 0;
  excess = -Infinity;
  largest = 0;
  foldsReleased = 0;
  private readonly start: number;

  constructor(private readonly body: SoftBody) {
    this.start = bodyEnergy(body);
  }

  /** Moves the grab's anchor from `from` to `to`, steps, and books the hand's work (trapezoid rule). */
  step(grab: number, from: number[], to: number[]): void {
    const before = spring(this.body, grab, from).force;
    this.body.moveGrab(grab, to[0], to[1], to[2]);
    const after = spring(this.body, grab, to).force;
    for (let a = 0; a < 3; a++) this.work += 0.5 * (before[a] + after[a]) * (to[a] - from[a]);
    if (this.body.step().foldReleased) this.foldsReleased++;
    expect(this.body.q.every(Number.isFinite)).toBe(true);
    const total = bodyEnergy(this.body) + spring(this.body, grab, to).energy;
    this.excess = Math.max(this.excess, total - this.start - this.work);
    this.largest = Math.max(this.largest, Math.abs(this.work), this.body.energies().elastic);
  }
}

/**
 * Let go: `seconds` to fall, land and relax (a dough body stretched into a noodle takes seconds to come back, and
 * one balanced on its side may tip over after ten).
 */
function settle(body: SoftBody, seconds = 12): void {
  for (let i = 0; i < 60 * seconds; i++) body.step();
}

/** How far from its rest shape the dough rests on the floor when nobody touched it: it sags under its weight. */
let sag: Promise<number> | undefined;
function untouchedSag(): Promise<number> {
  sag ??= doughBody().then(({ body, loaded }) => {
    settle(body, 17);
    return shapeError(body, loaded);
  });
  return sag;
}

describe("rough play", () => {
  it("ratcheting: re-grabbed at its top 40 times and yanked up 0.6 m in 2 frames each time, it feeds no energy in and recovers", async () => {
    const { body, loaded } = await doughBody();
    const s = loaded.subspace, p = new Float64Array(3 * s.surfaceCount);
    const ledger = new EnergyLedger(body);
    for (let cycle = 0; cycle < 40; cycle++) {
      body.positions(s.surfaceRows, s.surfaceRest, p);
      let top = 0;
      for (let i = 1; i < s.surfaceCount; i++) if (p[3 * i + 1] > p[3 * top + 1]) top = i;
      const start = [p[3 * top], p[3 * top + 1], p[3 * top + 2]];
      const grab = body.grab(start[0], start[1], start[2]);
      expect(grab).toBeGreaterThanOrEqual(0);
      let at = start;
      for (let k = 1; k <= 4; k++) {
        const to = [start[0] + 0.05 * (cycle % 3), start[1] + 0.6 * Math.min(1, k / 2), start[2]];
        ledger.step(grab, at, to);
        at = to;
      }
      // Letting go releases the spring's energy from the books: it leaves with the hand.
      ledger.work -= spring(body, grab, at).energy;
      body.release(grab);
    }
    expect(ledger.largest).toBeGreaterThan(10); // J: it really was yanked
    expect(ledger.excess).toBeLessThan(0.02 * ledger.largest);
    settle(body);
    // It lands from metres up and rests on the floor, where friction may hold a few millimetres of its landing.
    expect(shapeError(body, loaded)).toBeLessThan(0.01);
  });

  // The first swing is the one this test always had. The other two (the same hand path some frames later, and at
  // 1.3 m) left the body resting in a fold before folds were released: 11 and 15 mm from its rest shape, holding
  // about 0.5 J, for ever (with eigen's fields in the first, the network's in the second). Where the body comes to
  // rest, and when, is chaotic: with one rounding it lay within 4 mm of its rest shape after 12 s, with another it
  // was still 6-11 mm off, balanced on its side, and tipped onto its feet later. So it has 30 s, and is measured
  // against the untouched dough's own sag on the floor (3.6-4.0 mm, by the side it lies on).
  it.each([
    { amplitude: 1.4, phase: 0 },
    { amplitude: 1.3, phase: 7 },
    { amplitude: 1.4, phase: 3 },
  ])("whipping: a hand swung +-$amplitude m every other frame (from frame $phase) for 5 s feeds no energy in, and the body recovers once let go", async ({ amplitude, phase }) => {
    const { body, loaded } = await doughBody();
    const grab = body.grab(0, 0.1, 0, { radius: 0.1 });
    expect(grab).toBeGreaterThanOrEqual(0);
    const ledger = new EnergyLedger(body);
    let at = [0, 0.1, 0];
    for (let i = phase; i < 300 + phase; i++) {
      const to = [(Math.floor(i / 2) % 2 === 0 ? 1 : -1) * amplitude, 0.5 + 0.3 * Math.sin(i / 7), 0.2 * Math.cos(i / 5)];
      ledger.step(grab, at, to);
      at = to;
    }
    // A body in a hand is never judged folded: its strain is the hand's.
    expect(ledger.foldsReleased).toBe(0);
    body.release(grab);
    expect(ledger.largest).toBeGreaterThan(100);
    expect(ledger.excess).toBeLessThan(0.02 * ledger.largest);
    settle(body, 30);
    expect(shapeError(body, loaded)).toBeLessThan((await untouchedSag()) + 0.001);
  });
});
