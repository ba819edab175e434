// What a room's character does, tick by tick, on the server's clock: which clips it plays (crossfading between
// them), where it is along its loop and which way it faces. "auto" walks the loop and now and then stops to look
// around; an admin can make it walk, run, look around or stop where it is. Props on the floor do not feel it, so it
// walks round them: wherever one lies within CHARACTER_PROP_CLEARANCE of its body's path (a visitor kicked it there,
// it fell off the table), the loop bends aside by as much, over a stretch as long as its body, easing in and out.

import type { CharacterMode, ClipMix } from "../../shared/net";
import type { RigClip } from "../../shared/rig";
import { CHARACTER_PROP_CLEARANCE } from "../../shared/rig/character-defaults";
import type { CharacterSpec } from "../../shared/scene/layout";

/** In "auto", seconds of walking between stops to look around (a stop lasts one play of the look clip). */
export const AUTO_WALK_SECONDS = 12;
/** Seconds a change of clip takes to fade over. */
export const CROSSFADE_SECONDS = 0.4;
/** Samples of the loop's arc length table. */
const PATH_SAMPLES = 512;
/** A detour eases in and out over this many of the character's sizes of path, each side (a cosine ramp). */
const DETOUR_RAMP_SIZES = 1.5;
/** Fastest it steps aside, m/s (only a prop that jumps, flown home or thrown, asks for more). */
const SIDESTEP_SPEED = 1;

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
  /** The loop's samples (x, z) and their outward unit normals (x, z). */
  private readonly loop = new Float64Array(2 * PATH_SAMPLES);
  private readonly normals = new Float64Array(2 * PATH_SAMPLES);
  /** How far it walks aside of the loop (m, outwards positive), and how fast that changed on the last tick (m/s). */
  private aside = 0;
  private asideSpeed = 0;
  /** The floor's obstacles it walks round, (x, z, radius) each, as the room last set them. */
  private obstacles: ArrayLike<number> = [];
  private obstacleCount = 0;

  /** `body`: how far its body reaches from where it stands in its clips, to either side and ahead or behind (m). */
  constructor(private readonly spec: CharacterSpec, private readonly clips: readonly RigClip[], private readonly body: { halfWidth: number; halfLength: number } = { halfWidth: 0, halfLength: spec.size / 2 }) {
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
    const [cx, cz] = spec.path.centre;
    for (let i = 0; i < PATH_SAMPLES; i++) {
      const t = (2 * Math.PI * i) / PATH_SAMPLES, nx = b * Math.cos(t), nz = a * Math.sin(t), length = Math.hypot(nx, nz);
      this.loop[2 * i] = cx + a * Math.cos(t); this.loop[2 * i + 1] = cz + b * Math.sin(t);
      this.normals[2 * i] = nx / length; this.normals[2 * i + 1] = nz / length;
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

  /**
   * The obstacles on the floor it must walk round, from the next tick on: `count` of them in `obstacles` as (x, z,
   * radius) each, world metres (the array is read each tick, not copied).
   */
  avoid(obstacles: ArrayLike<number>, count: number): void {
    this.obstacles = obstacles;
    this.obstacleCount = count;
  }

  /** Moves the clock on by dt seconds. */
  advance(dt: number): void {
    this.now += dt;
    // (A character whose look clip is its walk clip just walks: no phase to turn to.)
    if (this.mode === "auto" && this.clipIndex.look !== this.clipIndex.walk) {
      const walking = this.current.clip === this.clipIndex.walk, elapsed = this.now - this.phaseStart;
      const lookSeconds = this.clips[this.clipIndex.look].duration;
      if (walking && elapsed >= AUTO_WALK_SECONDS) this.switchPhase("look");
      else if (!walking && elapsed >= lookSeconds) this.switchPhase("walk");
    }
    const speed = this.speed(), length = this.loopLength;
    // A loop that is a point (radii 0): it plays where it stands.
    this.distance = length > 0 ? (this.distance + dt * speed) % length : 0;
    // It steps aside only as it goes: standing (looking around, stopped by an admin) it holds its place.
    const most = speed > 0 ? SIDESTEP_SPEED * dt : 0;
    const step = Math.max(-most, Math.min(most, this.detour(this.distance) - this.aside));
    this.aside += step;
    this.asideSpeed = dt > 0 ? step / dt : 0;
  }

  /**
   * How far aside of the loop (m, outwards positive) its root must be at a distance along it to keep its body
   * CHARACTER_PROP_CLEARANCE from every obstacle: each obstacle near the loop asks for a bend away from itself, full
   * while any of the body is level with it and easing out over DETOUR_RAMP_SIZES; the largest bend wins.
   */
  private detour(distance: number): number {
    const o = this.obstacles, length = this.loopLength, ramp = DETOUR_RAMP_SIZES * this.spec.size;
    let bend = 0;
    if (!(length > 0)) return bend;
    for (let k = 0; k < this.obstacleCount; k++) {
      const x = o[3 * k], z = o[3 * k + 1], need = o[3 * k + 2] + this.body.halfWidth + CHARACTER_PROP_CLEARANCE;
      let nearest = 0, best = Infinity;
      for (let i = 0; i < PATH_SAMPLES; i++) {
        const d = (this.loop[2 * i] - x) ** 2 + (this.loop[2 * i + 1] - z) ** 2;
        if (d < best) { best = d; nearest = i; }
      }
      // Its side of the loop (outwards positive), and the bend that puts the body `need` from it on the other side.
      const side = (x - this.loop[2 * nearest]) * this.normals[2 * nearest] + (z - this.loop[2 * nearest + 1]) * this.normals[2 * nearest + 1];
      if (Math.abs(side) >= need) continue;
      const away = side >= 0 ? side - need : side + need;
      let along = Math.abs(distance - this.arc[nearest]) % length;
      along = Math.min(along, length - along);
      const flat = this.body.halfLength + need, weight = along <= flat ? 1 : along >= flat + ramp ? 0 : 0.5 * (1 + Math.cos((Math.PI * (along - flat)) / ramp));
      if (Math.abs(away * weight) > Math.abs(bend)) bend = away * weight;
    }
    return bend;
  }

  pose(out: CharacterPose): void {
    const w = this.fadeWeight();
    const from = this.previous ?? this.current;
    out.clip = from.clip;
    out.time = this.clipTime(from);
    out.clip2 = this.current.clip;
    out.time2 = this.clipTime(this.current);
    out.blend = this.previous ? w : 1;
    // A clip of no length (a rig's still rest pose) holds still: its pose is sent once, not every tick.
    out.running = from.frozen === null && this.clips[from.clip].duration > 0;
    out.running2 = this.current.frozen === null && this.clips[this.current.clip].duration > 0;
    const [a, b] = this.spec.path.radii, [cx, cz] = this.spec.path.centre, angle = this.angleAt(this.distance);
    // The loop's outward normal there (b cos, a sin), normalised, and its unit tangent (-a sin, b cos).
    const nx = b * Math.cos(angle), nz = a * Math.sin(angle), n = Math.sqrt(nx * nx + nz * nz);
    if (!(n > 0)) {
      out.x = cx;
      out.z = cz;
      out.yaw = this.spec.facing ?? 0;
      return;
    }
    out.x = cx + a * Math.cos(angle) + (this.aside * nx) / n;
    out.z = cz + b * Math.sin(angle) + (this.aside * nz) / n;
    // Facing where it goes (the clips face +z): along the loop, turned by its step aside while it walks.
    const forward = this.speed(), tx = -nz / n, tz = nx / n;
    out.yaw = forward > 1e-6 ? Math.atan2(forward * tx + this.asideSpeed * nx / n, forward * tz + this.asideSpeed * nz / n) : Math.atan2(tx, tz);
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
    const duration = this.clips[playing.clip].duration;
    return duration > 0 ? (this.now - playing.start) % duration : 0;
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
