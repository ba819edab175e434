// The table as players change it: a body's material (any player, once a second per body at most; an admin at once)
// and putting everything back as it started (a player's reset within the reset policy's limits, an admin's, or
// the room's own after it has stood idle); everyone is told.

import type { Client } from "@colyseus/core";
import { MESSAGES, TICK_RATE, type NoticeMessage, type RoomState } from "../../shared/net";
import { MATERIALS, type SceneWorld } from "../../shared/scene";
import type { RoomBody } from "./room-uploads";
import type { TableResetPolicy } from "./table-reset";

/** Seconds a body keeps a material a player gave it before a player may change it again. */
const MATERIAL_COOLDOWN_SECONDS = 1;

export interface TableHost {
  state: RoomState;
  world: SceneWorld;
  /** The soft bodies, in the world's order. */
  bodies: readonly RoomBody[];
  policy: TableResetPolicy;
  /** Lets go of every grab and fingertip (before the table is put back). */
  releaseEverything(): void;
  broadcast(notice: NoticeMessage): void;
  log(line: string): void;
}

export class RoomTable {
  /** The tick each body last changed material by a player's hand (the cooldown). */
  private readonly materialChangedAt = new Map<string, number>();

  constructor(private readonly host: TableHost) {}

  /** A player's material change: everyone hears who made what of which body. A reason when it is refused. */
  playerSetsMaterial(who: string, body: string, material: string): string | null {
    const { state, world } = this.host;
    if (state.bodies.get(body)!.material === material) return null;
    // Each change rebuilds the body's solver matrices here and its mesh in every page: not faster than this.
    const since = (world.tick - (this.materialChangedAt.get(body) ?? -Infinity)) / TICK_RATE;
    if (since < MATERIAL_COOLDOWN_SECONDS) return `the ${body} changed material ${since.toFixed(1)} s ago; once every ${MATERIAL_COOLDOWN_SECONDS} s at most`;
    this.materialChangedAt.set(body, world.tick);
    this.changeMaterial(body, material);
    this.host.broadcast({ kind: "material", message: `${who} made the ${state.bodies.get(body)?.name || body} ${material}` });
    return null;
  }

  /** A body becomes another material (in the solver and in the room state). */
  changeMaterial(bodyId: string, material: string): void {
    const state = this.host.state.bodies.get(bodyId)!;
    const preset = MATERIALS[material as keyof typeof MATERIALS];
    const index = this.host.bodies.findIndex((p) => p.spec.id === bodyId), body = this.host.bodies[index].entity.body;
    body.setMaterial(preset);
    body.setDamping(preset.damping);
    this.host.world.wake(index);
    state.material = material;
  }

  /**
   * A player asks to reset the table (`seat`'s last refusal is kept on it): refused within the policy's limits, with
   * a notice once a second at most (even if another message of theirs was just dropped: those notices are
   * throttled).
   */
  playerResets(client: Client, seat: { role: string; resetRefusedAt: number }, name: string | undefined): void {
    const refusal = this.host.policy.refusePlayerReset(this.host.world.tick);
    if (!refusal) return this.reset(`${name || `a ${seat.role}`} reset the table`);
    const now = Date.now();
    if (now - seat.resetRefusedAt <= 1000) return;
    seat.resetRefusedAt = now;
    client.send(MESSAGES.notice, { kind: "rejected", message: refusal } satisfies NoticeMessage);
  }

  /** Everything back as it started: grabs and pokes let go, bodies and props at their spawns; everyone is told. */
  reset(why: string): void {
    const { state, world, policy } = this.host;
    this.host.releaseEverything();
    // As it started: each body's own material too.
    for (const p of this.host.bodies) if (state.bodies.get(p.spec.id)!.material !== p.spec.material) this.changeMaterial(p.spec.id, p.spec.material);
    world.reset();
    policy.noteReset(world.tick);
    this.host.log(why);
    this.host.broadcast({ kind: "reset", message: why });
  }

  /** The room's own reset once nobody has played for a while; an activity (a grab, a poke) this tick postpones it. */
  watchIdle(active: boolean): void {
    const { world, policy } = this.host;
    if (active) policy.noteActivity(world.tick);
    else if (policy.idleResetDue(world.tick)) this.reset("nobody has played for a while: the table was reset");
  }

  /** A body left the room. */
  forget(bodyId: string): void {
    this.materialChangedAt.delete(bodyId);
  }
}
