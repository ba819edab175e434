// The body predictor without a server or a socket: a scripted server (the room's SceneWorld, stepping one frame of
// the client's inputs per tick, as the room does) and a scripted network between it and a BodyPredictor (delays in
// frames, lost and reordered snapshots, a server that stalls). Everything runs on frame numbers, so a run is the
// same on any machine, loaded or not; so does the budget's clock, on which every solver step takes a set time. The
// grabber's prediction must agree with the server at 95% of the snapshots within 1 cm, for a free pull and for a
// pull that pushes the held block into a rigid prop. On a slow headset's clock no update may spend more than the
// prediction's millisecond budget plus the newest frame's step: replays are spread over updates, never a long frame.
// A display faster than 60 Hz (updates without a frame) must predict as a 60 Hz one does, and on a device where no
// replay fits (every reconciliation shifted) the held block must stay within a few centimetres of the server.

import { beforeAll, describe, expect, it, vi } from "vitest";
import { HANDS, IDLE_DISTANCE, IDLE_TURN, TICK_RATE, TICKS_PER_SNAPSHOT } from "../../shared/net";
import { BodyPredictor, PREDICTION_MS_BUDGET, type PredictionStats, type ReconcileEvent } from "../../shared/net/client/body-predictor";
import { clientBody, keepSnapshot, type ClientBody } from "../../shared/net/client/client-body";
import { GrabMirror } from "../../shared/net/client/grab-mirror";
import { InputClock } from "../../shared/net/client/input-clock";
import { limitTarget, OwnGrabs } from "../../shared/net/client/own-grabs";
import { loadRapier, MATERIALS, PLAYGROUND, SceneWorld, SoftEntity, type Rapier, type SceneLayout } from "../../shared/scene";
import { PredictedScene } from "../../shared/scene/predicted-scene";
import type { BakedBody } from "../../shared/skinning";
import { roomFields } from "../../server/room/playground-config";
import { bakeBodies } from "../../server/world/playground-bodies";

type Vec = [number, number, number];

/** The room with the rubber block as its only soft body, and its props (ball-1 among them). */
const BLOCK = PLAYGROUND.bodies.find((b) => b.id === "rubber-block")!;
const LAYOUT: SceneLayout = { ...PLAYGROUND, bodies: [BLOCK] };

interface Network {
  /** Frames an input takes to reach the server, and a snapshot to reach the client. */
  up: number;
  down: number;
  /** Whether the snapshot of server tick `tick` is lost, or arrives after the next one (swapped with it). */
  lost?: (tick: number) => boolean;
  swapped?: (tick: number) => boolean;
  /** Whether the server runs no tick in client frame `frame` (it stalls, then catches up two a frame). */
  stalled?: (frame: number) => boolean;
  /** Updates without a frame after each frame's (a display faster than 60 Hz: 1 at 120 Hz). */
  emptyUpdates?: number;
}

interface Pull {
  /** Where to grab: the block's surface sample furthest along this direction. */
  grabAt: Vec;
  /** The target over the pull (t from 0 to 1), from the grabbed point; frames of the pull, then frames held. */
  path: (start: Vec, t: number) => Vec;
  frames: number;
  hold: number;
}

interface Snapshot {
  tick: number;
  q: Float64Array;
  /** The client's frame the server applied last (the state is after it), or null. */
  ack: number | null;
  /** The props that moved visibly since they were last sent (the room's rule), by index. */
  props: Map<number, Float64Array>;
}

let rapier: Rapier;
let baked: BakedBody;
let size: number;

beforeAll(async () => {
  rapier = await loadRapier();
  const fields = await roomFields();
  [{ bake: { body: baked }, size }] = await bakeBodies([BLOCK], fields.provider, fields.providerKey);
}, 120_000);

function entityAt(): SoftEntity {
  return new SoftEntity(BLOCK.id, baked, size, MATERIALS[BLOCK.material], BLOCK.position);
}

/** The block's surface sample furthest along `direction`, at rest. */
function extremeSample(entity: SoftEntity, direction: Vec): Vec {
  const s = entity.subspace, p = new Float64Array(3);
  let best: Vec = [0, 0, 0], bestAlong = -Infinity;
  for (let i = 0; i < s.surfaceCount; i++) {
    entity.body.pointPosition(s.surfaceRows, s.surfaceRest, i, p, 0);
    const along = p[0] * direction[0] + p[1] * direction[1] + p[2] * direction[2];
    if (along > bestAlong) {
      bestAlong = along;
      best = [p[0], p[1], p[2]];
    }
  }
  return best;
}

/**
 * Runs a pull: the server world and the client's predicted world settle for a second, then the client grabs and
 * drags the block. Returns every reconciliation, and where the server's ball ended.
 */
function run(pull: Pull, network: Network, stepMs = FAST_STEP_MS, stepDeadlines = false): { events: ReconcileEvent[]; ballMoved: number; stats: PredictionStats } {
  let body: ClientBody;
  const server = entityAt();
  const world = new SceneWorld(rapier, LAYOUT, [server], 1 / TICK_RATE, Infinity);
  for (let t = 0; t < TICK_RATE; t++) world.step();
  // As the room announces it: the server's spawn (its q is relative to it).
  body = clientBody({ id: BLOCK.id, index: 0, bake: "", size, material: BLOCK.material, spawnX: server.spawn[0], spawnY: server.spawn[1], spawnZ: server.spawn[2] }, baked);
  const props = LAYOUT.props.map((p, index) => ({ index, shape: p.shape, size: p.size }));
  const scene = new PredictedScene(LAYOUT, props, [body.entity], HANDS.length);
  const grabs = new OwnGrabs();
  const mirror = new GrabMirror(() => undefined, () => "client");
  // The budget's clock: every solver step takes stepMs (with deadlines, a page's: performance.now).
  const now = stepDeadlines ? () => performance.now() : (): number => predictor.stats.steps * stepMs;
  const predictor: BodyPredictor = new BodyPredictor({ scene: () => scene, grabs, mirror, slipped: () => {}, now, stepDeadlines: () => stepDeadlines });
  predictor.growScratch(body.body.n);
  const events: ReconcileEvent[] = [];
  predictor.onReconcile = (event) => events.push(event);

  const hand = HANDS[1];
  const start = extremeSample(server, pull.grabAt);
  const inputs = new Map<number, { kind: "start" | "move"; target: Vec }>();
  const inFlight: { at: number; snapshot: Snapshot }[] = [];
  let serverGrab = -1, applied = 0, frame = 0, ticksOwed = 0;
  const clock = new InputClock(predictor.stats);
  // As PliantRoomClient.applySnapshot: a snapshot older than one already here is stale and skipped.
  const deliver = (snapshot: Snapshot) => {
    if (!clock.snapshotArrived(snapshot.tick, frame)) return;
    scene.snapshotArrived();
    for (const [index, pose] of snapshot.props) scene.setPropPose(index, pose, snapshot.tick);
    keepSnapshot(body, frame, snapshot.tick, snapshot.q);
    scene.setBodyState(body.entity, snapshot.q, snapshot.tick);
    predictor.serverState(body, snapshot.tick, snapshot.q, snapshot.ack);
  };
  const lastSent = world.props.map(() => new Float64Array(7).fill(NaN));
  const snapshotOf = (ack: number | null): Snapshot => {
    const props = new Map<number, Float64Array>();
    world.props.forEach((p, index) => {
      const t = p.body.translation(), r = p.body.rotation(), pose = Float64Array.of(t.x, t.y, t.z, r.x, r.y, r.z, r.w), last = lastSent[index];
      if (p.body.isSleeping() || pose.every((v, k) => Math.abs(v - last[k]) <= (k < 3 ? IDLE_DISTANCE : IDLE_TURN))) return;
      props.set(index, pose);
      last.set(pose);
    });
    return { tick: world.tick, q: Float64Array.from(server.body.q), ack, props };
  };
  // The settled room, as the client has it when the pull begins.
  deliver(snapshotOf(null));
  body.displayQ.set(server.body.q);
  const serverTick = () => {
    // One frame of the client's inputs per tick, as the room applies them; none arrived: the last target holds.
    const next = inputs.get(applied + 1);
    let ack: number | null = null;
    if (next && applied + 1 + network.up <= frame) {
      applied++;
      inputs.delete(applied);
      ack = applied;
      if (next.kind === "start") serverGrab = server.grabAt(next.target[0], next.target[1], next.target[2]);
      else if (serverGrab >= 0) server.body.moveGrab(serverGrab, next.target[0], next.target[1], next.target[2]);
    }
    world.step();
    if (world.tick % TICKS_PER_SNAPSHOT !== 0) return;
    // The ack rides with the snapshot only when the snapshot is the state after that frame.
    const snapshot = snapshotOf(ack);
    if (!network.lost?.(world.tick)) inFlight.push({ at: frame + network.down + (network.swapped?.(world.tick) ? TICKS_PER_SNAPSHOT + 1 : 0), snapshot });
  };

  const total = pull.frames + pull.hold;
  for (let f = 0; f <= total; f++) {
    frame++;
    // The client: this frame's input, applied at once to the prediction and sent with the frame's number.
    if (f === 0) {
      predictor.start(body);
      const grab = body.entity.grabAt(start[0], start[1], start[2]);
      grabs.hold(hand, body, grab, start);
      grabs.targets.set(hand, start);
      inputs.set(frame, { kind: "start", target: start });
    } else {
      const target = pull.path(start, Math.min(1, f / pull.frames));
      const held = grabs.held.get(hand)!;
      limitTarget(body, target);
      grabs.targets.set(hand, target);
      if (held.grab >= 0) body.body.moveGrab(held.grab, target[0], target[1], target[2]);
      inputs.set(frame, { kind: "move", target });
    }
    // The grab-result: from then on the prediction holds the server's samples.
    if (frame === 1 + network.up + network.down && serverGrab >= 0) {
      const held = server.body.grabbedSamples(serverGrab);
      grabs.confirmed({ hand, body: BLOCK.id, ok: true, point: start, samples: held.samples, offsets: held.offsets });
    }
    // The server's ticks in this frame (none while it stalls, two a frame while it catches up).
    ticksOwed++;
    if (!network.stalled?.(frame)) for (let k = 0; k < Math.min(2, ticksOwed); k++, ticksOwed--) serverTick();
    else if (ticksOwed > 1) ticksOwed = Math.min(ticksOwed, 6);
    for (let i = 0; i < inFlight.length; ) {
      if (inFlight[i].at <= frame) deliver(inFlight.splice(i, 1)[0].snapshot);
      else i++;
    }
    predictor.beginUpdate(1, 0);
    predictor.frame(frame, 0);
    predictor.endUpdate();
    for (let e = 0; e < (network.emptyUpdates ?? 0); e++) {
      predictor.beginUpdate(0, 0);
      predictor.endUpdate();
    }
  }
  const ball = world.props[LAYOUT.props.findIndex((p) => p.id === "ball-1")].body.translation(), home = LAYOUT.props.find((p) => p.id === "ball-1")!.position;
  const ballMoved = Math.hypot(ball.x - home[0], ball.z - home[2]);
  world.dispose();
  return { events, ballMoved, stats: predictor.stats };
}

function figures(events: ReconcileEvent[]) {
  const errors = events.filter((e) => Number.isFinite(e.error)).map((e) => e.error).sort((a, b) => a - b);
  const corrections = events.map((e) => e.correction).sort((a, b) => a - b);
  const mm = (v: number) => (1000 * v).toFixed(1);
  const p95 = errors[Math.floor(0.95 * (errors.length - 1))];
  return {
    errors, p95, largestCorrection: corrections[corrections.length - 1],
    report: `${errors.length} reconciliations, error p50 ${mm(errors[errors.length >> 1])} p95 ${mm(p95)} max ${mm(errors[errors.length - 1])} mm, largest correction ${mm(corrections[corrections.length - 1])} mm`,
  };
}

/**
 * A step's cost on the budget's clock: a fast machine (the budget never bites), a slow headset (it does), and a
 * device on which a replay never fits (a held body's step in a page here costs 1-1.3 ms: the live frame takes half
 * the budget, so every reconciliation replays one frame and shifts the rest).
 */
const FAST_STEP_MS = 0.1;
const SLOW_STEP_MS = 0.4;
const SLOWEST_STEP_MS = 1;

const FREE_PULL: Pull = { grabAt: [0, 1, 0], frames: 120, hold: 60, path: (s, t) => [s[0] - 0.15 * t, s[1] + 0.1 * Math.sin(Math.PI * t), s[2] + 0.1 * t] };
/** Held by its top back edge and dragged 38 cm towards +z over 2 s into ball-1, then held there for 1 s (as prediction.test.ts). */
const PUSH_INTO_BALL: Pull = { grabAt: [0, 1, -1], frames: 120, hold: 60, path: (s, t) => [s[0], s[1], s[2] + 0.38 * t] };

const NETWORKS: Record<string, Network> = {
  "a 100 ms round trip": { up: 3, down: 3 },
  "a 100 ms round trip losing one snapshot in 7": { up: 3, down: 3, lost: (tick) => tick % 21 === 9 },
  "a 100 ms round trip with snapshots swapped": { up: 3, down: 3, swapped: (tick) => tick % 24 === 6 },
  "a server that stalls for 4 frames every second": { up: 3, down: 3, stalled: (frame) => frame % 60 >= 30 && frame % 60 < 34 },
};

describe("the body predictor against a scripted server", () => {
  it("with step deadlines (a page's), the held body's new frames' steps get a deadline, no other step does; without them, none", () => {
    const deadlines: number[] = [];
    const step = SoftEntity.prototype.step;
    const spy = vi.spyOn(SoftEntity.prototype, "step").mockImplementation(function (this: SoftEntity, deadline?: number) {
      deadlines.push(deadline ?? Infinity);
      return step.call(this, deadline);
    });
    try {
      const { stats } = run(FREE_PULL, NETWORKS["a 100 ms round trip"], FAST_STEP_MS, true);
      expect(deadlines.length).toBe(stats.steps);
      // The pull holds the block for FREE_PULL.frames + hold frames, a step each; replays and the free frames after run uncut.
      const held = FREE_PULL.frames + FREE_PULL.hold;
      expect(deadlines.filter(Number.isFinite).length).toBeGreaterThanOrEqual(held - 2);
      expect(deadlines.filter(Number.isFinite).length).toBeLessThanOrEqual(held + 2);
      expect(stats.replayed, "replays ran (uncut)").toBeGreaterThan(0);
      deadlines.length = 0;
      run(FREE_PULL, NETWORKS["a 100 ms round trip"]);
      expect(deadlines.length).toBeGreaterThan(0);
      expect(deadlines.every((d) => d === Infinity)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  for (const [name, network] of Object.entries(NETWORKS)) {
    it(`a free pull over ${name}: 95% of snapshots within 1 cm, none 2 cm off`, () => {
      const f = figures(run(FREE_PULL, network).events);
      console.log(`free pull, ${name}: ${f.report}`);
      expect(f.errors.length, f.report).toBeGreaterThan(30);
      expect(f.p95, f.report).toBeLessThan(0.01);
      expect(f.errors[f.errors.length - 1], f.report).toBeLessThan(0.02);
      // No reconciliation moves the shown block by 2 cm (a stale snapshot that put the ball back did: 33 mm).
      expect(f.largestCorrection, f.report).toBeLessThan(0.02);
    });
  }

  for (const [name, network] of Object.entries(NETWORKS)) {
    it(`a push into a rigid prop over ${name}: 95% of snapshots within 1 cm, none 2 cm off`, () => {
      const { events, ballMoved } = run(PUSH_INTO_BALL, network);
      const f = figures(events);
      console.log(`push into a prop, ${name}: ${f.report}; the ball moved ${(100 * ballMoved).toFixed(1)} cm`);
      // The block reached the ball and pushed it.
      expect(ballMoved, f.report).toBeGreaterThan(0.01);
      expect(f.p95, f.report).toBeLessThan(0.01);
      expect(f.errors[f.errors.length - 1], f.report).toBeLessThan(0.02);
      // No reconciliation moves the shown block by 2 cm (a stale snapshot that put the ball back did: 33 mm).
      expect(f.largestCorrection, f.report).toBeLessThan(0.02);
    });
  }
});

describe("the body predictor on a 120 Hz display (every other update without a frame)", () => {
  for (const [name, pull] of Object.entries({ "a free pull": FREE_PULL, "a push into a rigid prop": PUSH_INTO_BALL })) {
    it(`${name} over a 200 ms round trip at 0.4 ms a step: predicted as on a 60 Hz display`, () => {
      const at120 = run(pull, { up: 6, down: 6, emptyUpdates: 1 }, SLOW_STEP_MS), at60 = run(pull, { up: 6, down: 6 }, SLOW_STEP_MS);
      const f = figures(at120.events), s = at120.stats;
      const report = `${f.report}; ${s.replays} full replays (${at60.stats.replays} at 60 Hz), ${s.shifts} shifted (${at60.stats.shifts}), ${s.spread} spread over updates`;
      console.log(`120 Hz display, ${name}: ${report}`);
      expect(f.errors.length, report).toBeGreaterThan(20);
      // An update without a frame gains no budget: a replay sliced there fell behind and was shifted (every one was).
      expect(s.replays, report).toBe(at60.stats.replays);
      expect(s.shifts, report).toBe(at60.stats.shifts);
      expect(f.p95, report).toBeLessThan(0.02);
    });
  }
});

describe("the body predictor on a device where no replay fits", () => {
  for (const [name, pull] of Object.entries({ "a free pull": FREE_PULL, "a push into a rigid prop": PUSH_INTO_BALL })) {
    it(`${name} over a 100 ms round trip at 1 ms a step: every reconciliation shifted, the held body stays near the server`, () => {
      const { events, stats } = run(pull, NETWORKS["a 100 ms round trip"], SLOWEST_STEP_MS);
      const f = figures(events);
      const report = `${f.report}; ${stats.replays} full replays, ${stats.shifts} shifted`;
      console.log(`no replay fits, ${name}: ${report}`);
      expect(f.errors.length, report).toBeGreaterThan(30);
      expect(stats.replays, report).toBe(0);
      // Weaker than a full replay's 1 cm: a shift knows the server's position at one frame, not its motion since.
      // (With the shifted velocity too, the free pull drifted to p95 374 mm, max 475 mm.)
      expect(f.p95, report).toBeLessThan(0.03);
      expect(f.errors[f.errors.length - 1], report).toBeLessThan(0.04);
    });
  }
});

describe("the body predictor on a slow headset's clock", () => {
  for (const [name, pull] of Object.entries({ "a free pull": FREE_PULL, "a push into a rigid prop": PUSH_INTO_BALL })) {
    it(`${name} over a 200 ms round trip: every update within the millisecond budget, replays spread over updates`, () => {
      // 12 frames to replay at 0.4 ms each: 4.8 ms, where the budget holds 2.
      const { events, stats } = run(pull, { up: 6, down: 6 }, SLOW_STEP_MS);
      const f = figures(events);
      const report = `${f.report}; most ${stats.mostMsInUpdate.toFixed(1)} ms and ${stats.mostStepsInUpdate} steps in an update, ${stats.replays} full replays, ${stats.shifts} shifted, ${stats.spread} spread over updates, ${stats.deferred} server states passed over, ${stats.coasted} frames coasted`;
      console.log(`slow headset, ${name}: ${report}`);
      // Server states that arrive while a spread replay runs wait, and the newest is reconciled next.
      expect(f.errors.length, report).toBeGreaterThan(20);
      // The newest frame always steps, beyond the budget if it must.
      expect(stats.mostMsInUpdate, report).toBeLessThanOrEqual(PREDICTION_MS_BUDGET + SLOW_STEP_MS + 1e-9);
      expect(stats.spread, report).toBeGreaterThan(0);
      expect(f.p95, report).toBeLessThan(0.02);
      expect(f.largestCorrection, report).toBeLessThan(0.03);
    });
  }
});
