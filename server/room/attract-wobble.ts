// The stand's big screen should never show a dead room: while a kiosk page watches and nobody has grabbed or poked
// anything for the room's attract seconds, one body at a time, in turn, gets a little bounce (everyone sees it: the
// server simulates it like any push). Without a kiosk in the room nothing bounces, so a quiet room stays silent.

import type { SceneWorld, SoftEntity } from "../../shared/scene";

/** Default seconds between bounces (ATTRACT_WOBBLE_SECONDS; 0 turns them off). */
export const ATTRACT_WOBBLE_SECONDS = 20;
/** The bounce (SoftEntity.nudge): a hop at this speed (m/s, about 5 mm high) with a squash at this rate (1/s). */
export const BOUNCE_UP_SPEED = 0.3;
export const BOUNCE_SQUASH_RATE = 3;

export class AttractWobble {
  private lastBounceTick = -Infinity;
  private turn = 0;
  private world: SceneWorld | undefined;
  private bodies: readonly { entity: SoftEntity }[] = [];

  constructor(private readonly tickRate: number, private readonly seconds: number) {}

  /** Bounces one of the world's `bodies` when it is time (bodyToBounce): one that nobody holds and that is not flying home. */
  bounce(world: SceneWorld, bodies: readonly { entity: SoftEntity }[], watched: boolean, lastActivityTick: number): void {
    if (!watched) return;
    this.world = world;
    this.bodies = bodies;
    const b = this.bodyToBounce(world.tick, watched, lastActivityTick, bodies.length, this.bounceable);
    if (b < 0) return;
    bodies[b].entity.nudge(BOUNCE_UP_SPEED, BOUNCE_SQUASH_RATE);
    world.wake(b);
  }

  private readonly bounceable = (b: number): boolean => this.bodies[b].entity.heldGrabs === 0 && !this.world!.homecoming.flying(b);

  /**
   * The body to bounce at `tick` (-1 for none), given whether a kiosk watches, the tick of the last grab or poke,
   * and which bodies may bounce now (not held, not flying home).
   */
  bodyToBounce(tick: number, watched: boolean, lastActivityTick: number, bodies: number, bounceable: (b: number) => boolean): number {
    if (!watched || bodies === 0 || !(this.seconds > 0)) return -1;
    const quiet = Math.min(tick - lastActivityTick, tick - this.lastBounceTick);
    if (quiet < this.seconds * this.tickRate) return -1;
    for (let k = 0; k < bodies; k++) {
      const b = this.turn++ % bodies;
      if (!bounceable(b)) continue;
      this.lastBounceTick = tick;
      return b;
    }
    return -1;
  }
}
