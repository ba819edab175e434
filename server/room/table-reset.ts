// When the table is put back as it started, besides a body's own flight home (shared/scene/homecoming.ts): a
// player's "reset table" (at most once per cooldown, room-wide, so a visitor cannot keep wiping others' play), an
// admin's reset (always), and an idle reset once nobody has touched anything for the room's idle minutes.

/** Seconds after any reset before a player may reset the table again. */
export const PLAYER_RESET_COOLDOWN_SECONDS = 10;
/** Minutes without a grab or a poke after which the table is reset (IDLE_RESET_MINUTES; 0 turns it off). */
export const DEFAULT_IDLE_RESET_MINUTES = 5;

export class TableResetPolicy {
  private lastResetTick = -Infinity;
  private lastActivityTick = 0;
  /** Someone touched something since the last reset: only then is an idle reset worth doing. */
  private touched = false;

  constructor(private readonly tickRate: number, public idleMinutes: number) {}

  /** The tick of the last grab or poke (0 before any). */
  get lastActivity(): number {
    return this.lastActivityTick;
  }

  /** A grab or a poke at `tick`. */
  noteActivity(tick: number): void {
    this.lastActivityTick = tick;
    this.touched = true;
  }

  noteReset(tick: number): void {
    this.lastResetTick = tick;
    this.touched = false;
  }

  /** Null when a player may reset the table at `tick`; otherwise why not. */
  refusePlayerReset(tick: number): string | null {
    const wait = PLAYER_RESET_COOLDOWN_SECONDS - (tick - this.lastResetTick) / this.tickRate;
    return wait > 0 ? `the table was just reset; try again in ${Math.ceil(wait)} s` : null;
  }

  /** Whether the table has been left untouched long enough, since someone played, for an idle reset. */
  idleResetDue(tick: number): boolean {
    return this.idleMinutes > 0 && this.touched && tick - this.lastActivityTick >= this.idleMinutes * 60 * this.tickRate;
  }
}
