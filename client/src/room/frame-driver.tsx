// Orders each frame: room client update (prediction) first, then everyone's scene updates (priority -1), then
// the draw, timing each part for the HUD and the benchmark. It skips its update and draw while a join waits for its
// seat (FrameControl), and keeps the room's heartbeat (heartbeat.ts).

import { useFrame, useThree } from "@react-three/fiber";
import { useEffect, useRef } from "react";
import type { PliantRoomClient } from "../../../shared/net";
import { frameStats } from "../hud/frame-stats";
import { useHeartbeat } from "./heartbeat";

/** A slow device, emulated for tests: see FrameControl.emulateSlowDevice. */
export interface SlowDevice {
  /** Each frame keeps the main thread busy this long, ms (a device whose frames are CPU-bound). */
  busyMs: number;
  /** A frame only every this many ms, the main thread free meanwhile (a device whose GPU is slow). */
  everyMs: number;
  /** Frames drawn slowly before the page is fast again (Infinity: until told otherwise). */
  frames: number;
}

/**
 * What the page's frames may do. Held (RoomConnection, while a join waits for its seat), the frame driver neither
 * updates nor draws, except in an XR session (what a headset shows must not stop).
 */
export class FrameControl {
  private holds = 0;
  private device: SlowDevice = { busyMs: 0, everyMs: 0, frames: Infinity };
  private readonly listeners = new Set<() => void>();
  /**
   * Benchmarks: false runs every frame's update and scene but not its draw, so that a software rasteriser (whose
   * draws set this machine's frame rate to a few a second) does not: frames then come at the display's rate.
   */
  drawing = true;

  /** Stops the updates and draws until the returned function is called (any number of holds may overlap). */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
    };
  }

  get held(): boolean {
    return this.holds > 0;
  }

  get slowDevice(): Readonly<SlowDevice> {
    return this.device;
  }

  /** Tests and benchmarks: makes this page draw as a slow device would (zeros: as fast as it can). */
  emulateSlowDevice(device: Partial<SlowDevice>): void {
    this.device = { busyMs: device.busyMs ?? 0, everyMs: device.everyMs ?? 0, frames: device.frames ?? Infinity };
    for (const listener of this.listeners) listener();
  }

  /** A frame was drawn: counts down the slow ones (FrameDriver). */
  frameDrawn(): void {
    if (this.device.frames === Infinity || (this.device.busyMs === 0 && this.device.everyMs === 0)) return;
    if (--this.device.frames <= 0) this.emulateSlowDevice({});
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function FrameDriver({ client, control }: { client: PliantRoomClient | null; control: FrameControl }) {
  const gl = useThree((s) => s.gl);
  const setFrameloop = useThree((s) => s.setFrameloop);
  const advance = useThree((s) => s.advance);
  /** When the render loop last ran (performance.now clock): the heartbeat stops when it stops. */
  const lastFrameAt = useRef(performance.now());
  useHeartbeat(client, gl, lastFrameAt);
  const skip = () => control.held && !gl.xr.isPresenting;
  useFrame(() => {
    const now = performance.now();
    lastFrameAt.current = now;
    if (skip()) return;
    frameStats.beginFrame(now);
    const before = client?.frameNumber ?? 0;
    client?.update();
    frameStats.simulationDone(performance.now(), (client?.frameNumber ?? 0) - before);
  }, -2);
  // A positive priority hands the draw to us (R3F stops its own), so it can be timed.
  useFrame(({ gl, scene, camera }) => {
    if (skip()) return;
    frameStats.beginRender(performance.now());
    if (control.drawing) gl.render(scene, camera);
    const busyUntil = performance.now() + control.slowDevice.busyMs;
    while (performance.now() < busyUntil);
    control.frameDrawn();
    frameStats.endFrame(performance.now());
  }, 1);
  // An emulated slow GPU: frames on a timer, none in between.
  useEffect(() => {
    let timer: ReturnType<typeof setInterval> | undefined;
    const apply = () => {
      clearInterval(timer);
      const everyMs = control.slowDevice.everyMs;
      setFrameloop(everyMs > 0 ? "never" : "always");
      if (everyMs > 0) timer = setInterval(() => advance(performance.now()), everyMs);
    };
    const unsubscribe = control.subscribe(apply);
    return () => {
      unsubscribe();
      clearInterval(timer);
    };
  }, [control, setFrameloop, advance]);
  return null;
}
