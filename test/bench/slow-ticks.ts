// The server bench's look inside its slowest ticks: each room tick over a threshold, with the time its parts took
// and the garbage collector's pauses inside it. The parts: the world's step; of it, its soft bodies' turns
// (SceneWorld.stepBody: selecting their obstacles, the solver's step, moving their proxies); the solver's steps
// themselves (SoftBody.step, the characters' flesh included), how many and the longest; the characters; the
// snapshot's encoding. They are timed by wrapping their methods in this process, as the bench counts poses; the room
// itself is unchanged.

import { TickStats } from "../../server/room/tick-stats";
import { RoomCharacters } from "../../server/room/room-characters";
import { SnapshotSender } from "../../server/room/snapshot-sender";
import { SceneWorld } from "../../shared/scene/world";
import { SoftBody } from "../../shared/sim";

export interface SlowTick {
  /** When it ended (performance.now, ms), and how long it took. */
  endedAt: number;
  ms: number;
  worldMs: number;
  /** Of the world's step: its soft bodies' turns (SceneWorld.stepBody). */
  bodiesMs: number;
  /** The solver's steps in the tick (SoftBody.step, the characters' flesh included): how many, the longest, its iterations. */
  bodySteps: number;
  longestBodyMs: number;
  longestBodyIterations: number;
  charactersMs: number;
  snapshotMs: number;
  /** Garbage collection inside the tick, ms, and whether a major collection was among it. */
  gcMs: number;
  majorGc: boolean;
}

export interface GcPause {
  startTime: number;
  ms: number;
  major: boolean;
}

/** Starts timing the ticks' parts; ticks over `thresholdMs` are kept (the first `keep`). */
export function watchSlowTicks(thresholdMs: number, keep = 20): { slow: SlowTick[]; attributeGc(pauses: readonly GcPause[]): void } {
  const parts = { world: 0, bodies: 0, characters: 0, snapshot: 0 };
  const longest = { steps: 0, ms: 0, iterations: 0 };
  const slow: SlowTick[] = [];
  const timed = <T extends object>(proto: T, method: keyof T, part: keyof typeof parts) => {
    const original = proto[method] as unknown as (...args: unknown[]) => unknown;
    (proto as Record<keyof T, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        parts[part] += performance.now() - started;
      }
    };
  };
  timed(SceneWorld.prototype, "step", "world");
  timed(RoomCharacters.prototype, "step", "characters");
  timed(SnapshotSender.prototype, "prepare", "snapshot");
  timed(SceneWorld.prototype, "stepBody" as keyof SceneWorld, "bodies");
  const step = SoftBody.prototype.step;
  SoftBody.prototype.step = function (this: SoftBody, deadline?: number) {
    const started = performance.now(), stats = step.call(this, deadline), ms = performance.now() - started;
    longest.steps++;
    if (ms > longest.ms) {
      longest.ms = ms;
      longest.iterations = stats.iterations;
    }
    return stats;
  };
  const record = TickStats.prototype.record;
  TickStats.prototype.record = function (this: TickStats, ms: number) {
    if (ms > thresholdMs && slow.length < keep) {
      slow.push({
        endedAt: performance.now(), ms, worldMs: parts.world, bodiesMs: parts.bodies, bodySteps: longest.steps, longestBodyMs: longest.ms, longestBodyIterations: longest.iterations,
        charactersMs: parts.characters, snapshotMs: parts.snapshot, gcMs: 0, majorGc: false,
      });
    }
    parts.world = parts.bodies = parts.characters = parts.snapshot = 0;
    longest.steps = longest.ms = longest.iterations = 0;
    record.call(this, ms);
  };
  return {
    slow,
    attributeGc(pauses) {
      for (const tick of slow) {
        const start = tick.endedAt - tick.ms;
        for (const pause of pauses) {
          const overlap = Math.min(tick.endedAt, pause.startTime + pause.ms) - Math.max(start, pause.startTime);
          if (overlap <= 0) continue;
          tick.gcMs += overlap;
          tick.majorGc ||= pause.major;
        }
      }
    },
  };
}
