// CPU time of each frame's parts, kept for the last 600 frames: the HUD shows the means, the frame benchmark
// reads the raw numbers (window.pliant.frameStats).

const FRAMES = 600;

export class FrameStats {
  /** Room client update: prediction steps, replays, interpolation, ms. */
  readonly simulation = new Float64Array(FRAMES);
  /** 60 Hz simulation frames the room client ran in this rendered frame. */
  readonly steps = new Float64Array(FRAMES);
  /** Scene update: skinning uniforms, props, avatars, cameras, interaction, ms. */
  readonly scene = new Float64Array(FRAMES);
  /** Issuing the draw calls (CPU side of gl.render), ms. */
  readonly render = new Float64Array(FRAMES);
  /** Wall time between frames, ms. */
  readonly interval = new Float64Array(FRAMES);
  count = 0;
  private frameStart = 0;
  private simulationEnd = 0;
  private renderStart = 0;
  private lastFrame = 0;

  beginFrame(now: number): void {
    if (this.lastFrame) this.interval[this.count % FRAMES] = now - this.lastFrame;
    this.lastFrame = now;
    this.frameStart = now;
  }

  simulationDone(now: number, steps: number): void {
    this.simulationEnd = now;
    this.steps[this.count % FRAMES] = steps;
    this.simulation[this.count % FRAMES] = now - this.frameStart;
  }

  beginRender(now: number): void {
    this.renderStart = now;
    this.scene[this.count % FRAMES] = now - this.simulationEnd;
  }

  endFrame(now: number): void {
    this.render[this.count % FRAMES] = now - this.renderStart;
    this.count++;
  }

  /** Frames per second over the last 60 frames (0 before any). */
  fps(): number {
    const interval = this.mean(this.interval);
    return interval > 0 ? 1000 / interval : 0;
  }

  /** Mean of the last `frames` entries of a series. */
  mean(series: Float64Array, frames = 60): number {
    const n = Math.min(frames, this.count, FRAMES);
    if (!n) return 0;
    let sum = 0;
    for (let k = 1; k <= n; k++) sum += series[(this.count - k + FRAMES) % FRAMES];
    return sum / n;
  }
}

export const frameStats = new FrameStats();
