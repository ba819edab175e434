// What a room's character does, tick by tick, on the server's clock: which clips it plays (crossfading between
// them), where it is along its loop and which way it faces. "auto" walks the loop and now and then stops to look
// around; an admin can make it walk, run, look around or stop where it is.

import type { CharacterMode, ClipMix } from "../../shared/net";
import type { RigClip } from "../../shared/rig";
import type { CharacterSpec } from "../../shared/scene/layout";

/** In "auto", seconds of walking between stops to look around (a stop lasts one play of the look clip). */
export const AUTO_WALK_SECONDS = 12;
/** Seconds a change of clip takes to fade over. */
export const CROSSFADE_SECONDS = 0.4;
/** Samples of the loop's arc length table. */
const PATH_SAMPLES = 512;

/** A pose as snapshots carry it: its clips, and where on the floor it stands, facing yaw. */
export interface CharacterPose extends ClipMix {
  x: number;
  z: number;
  yaw: number;
}

interface Playing {
  clip: number;
  /** Room time the clip started at (its time is now - start, looped), or the time it is frozen at. */
  start: number;
  frozen: number | null;
  speed: number;
}

export class CharacterDirector {
  mode: CharacterMode = "auto";
  /** Room time, s. */
  private now = 0;
  /** Along the loop, m. */
  private distance = 0;
  private current: Playing;
  private previous: Playing | null = null;
  private fadeStart = 0;
  /** When "auto" last started walking or looking. */
  private phaseStart = 0;
  private readonly clipIndex: { walk: number; run: number; look: number };
  private readonly arc = new Float64Array(PATH_SAMPLES + 1);

  constructor(private readonly spec: CharacterSpec, private readonly clips: readonly RigClip[]) {
    const find = (name: string) => {
      const index = clips.findIndex((c) => c.name === name);
      if (index < 0) throw new Error(`character ${spec.id}: no clip "${name}" (it has ${clips.map((c) => c.name).join(", ")})`);
      return index;
    };
    this.clipIndex = { walk: find(spec.clips.walk), run: find(spec.clips.run), look: find(spec.clips.look) };
    const [a, b] = spec.path.radii;
    for (let i = 1; i <= PATH_SAMPLES; i++) {
      const t0 = (2 * Math.PI * (i - 1)) / PATH_SAMPLES, t1 = (2 * Math.PI * i) / PATH_SAMPLES;
      this.arc[i] = this.arc[i - 1] + Math.hypot(a * (Math.cos(t1) - Math.cos(t0)), b * (Math.sin(t1) - Math.sin(t0)));
    }
    this.current = { clip: this.clipIndex.walk, start: 0, frozen: null, speed: spec.speeds.walk };
  }

  /** The loop's length, m. */
  get loopLength(): number {
    return this.arc[PATH_SAMPLES];
  }

  setMode(mode: CharacterMode): void {
    if (mode === this.mode) return;
    this.mode = mode;
    this.phaseStart = this.now;
    if (mode === "stop") {
      // Holds the pose it has now, where it is.
      this.play({ clip: this.current.clip, start: 0, frozen: this.clipTime(this.current), speed: 0 });
      return;
    }
    this.play(this.playingFor(mode === "auto" ? "walk" : mode));
  }

  /** Moves the clock on by dt seconds. */
  advance(dt: number): void {
    this.now += dt;
    if (this.mode === "auto") {
      const walking = this.current.clip === this.clipIndex.walk, elapsed = this.now - this.phaseStart;
      const lookSeconds = this.clips[this.clipIndex.look].duration;
      if (walking && elapsed >= AUTO_WALK_SECONDS) this.switchPhase("look");
      else if (!walking && elapsed >= lookSeconds) this.switchPhase("walk");
    }
    this.distance = (this.distance + dt * this.speed()) % this.loopLength;
  }

  pose(out: CharacterPose): void {
    const w = this.fadeWeight();
    const from = this.previous ?? this.current;
    out.clip = from.clip;
    out.time = this.clipTime(from);
    out.clip2 = this.current.clip;
    out.time2 = this.clipTime(this.current);
    out.blend = this.previous ? w : 1;
    out.running = from.frozen === null;
    out.running2 = this.current.frozen === null;
    const [a, b] = this.spec.path.radii, [cx, cz] = this.spec.path.centre, angle = this.angleAt(this.distance);
    out.x = cx + a * Math.cos(angle);
    out.z = cz + b * Math.sin(angle);
    // Facing along the loop (the clips face +z): the tangent (-a sin, b cos).
    out.yaw = Math.atan2(-a * Math.sin(angle), b * Math.cos(angle));
  }

  private switchPhase(what: "walk" | "look"): void {
    this.phaseStart = this.now;
    this.play(this.playingFor(what));
  }

  private playingFor(what: "walk" | "run" | "look"): Playing {
    const speed = what === "look" ? 0 : this.spec.speeds[what];
    return { clip: this.clipIndex[what], start: this.now, frozen: null, speed };
  }

  private play(next: Playing): void {
    // A fade still under way is cut short where it is: the clip shown most becomes the one faded from.
    this.previous = this.previous && this.fadeWeight() < 0.5 ? this.previous : this.current;
    this.current = next;
    this.fadeStart = this.now;
  }

  private fadeWeight(): number {
    if (!this.previous) return 1;
    const w = (this.now - this.fadeStart) / CROSSFADE_SECONDS;
    if (w >= 1) {
      this.previous = null;
      return 1;
    }
    return w;
  }

  private speed(): number {
    const w = this.fadeWeight();
    return this.previous ? this.previous.speed + w * (this.current.speed - this.previous.speed) : this.current.speed;
  }

  private clipTime(playing: Playing): number {
    if (playing.frozen !== null) return playing.frozen;
    const duration = Math.max(this.clips[playing.clip].duration, 1e-6);
    return (this.now - playing.start) % duration;
  }

  /** The angle on the ellipse at an arc length (linear within the table's samples). */
  private angleAt(distance: number): number {
    const arc = this.arc;
    let lo = 0, hi = PATH_SAMPLES;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (arc[mid] <= distance) lo = mid;
      else hi = mid;
    }
    const span = arc[hi] - arc[lo], f = span > 0 ? (distance - arc[lo]) / span : 0;
    return (2 * Math.PI * (lo + f)) / PATH_SAMPLES;
  }
}
