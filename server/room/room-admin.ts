// What an admin may do to a room (the admin page and the wrist menu with the admin token): reset the table, set its
// idle reset, change a body's material, direct a character, remove a visitor, let spectators play or not. The room
// checks the token; this carries the action out and says what was done, for the admin and the log.

import type { Client } from "@colyseus/core";
import type { AdminMessage, RoomFigures, RoomState } from "../../shared/net";
import type { RoomCharacter } from "./room-character";
import { setCharacterMode } from "./room-characters";
import type { RoomGrabs } from "./room-grabs";
import type { RoomPokes } from "./room-pokes";
import type { RoomTable } from "./room-table";
import type { Seat } from "./seats";
import type { TableResetPolicy } from "./table-reset";
import type { TickStats } from "./tick-stats";

export interface AdminHost {
  readonly state: RoomState;
  readonly table: RoomTable;
  readonly tableReset: TableResetPolicy;
  readonly characters: readonly RoomCharacter[];
  readonly seats: ReadonlyMap<string, Seat>;
  readonly grabs: RoomGrabs;
  readonly pokes: RoomPokes;
  kick(client: Client, message: string): void;
}

/** Carries out an admin's (validated) action: what was done, or why it could not be. */
export function carryOutAdmin(host: AdminHost, message: AdminMessage): { done: string } | { refused: string } {
  const { state, seats } = host;
  switch (message.action) {
    case "reset":
      host.table.reset("an admin reset the table");
      return { done: "the room was reset" };
    case "idle-reset":
      host.tableReset.idleMinutes = message.minutes;
      state.idleResetMinutes = message.minutes;
      return { done: message.minutes > 0 ? `the table resets after ${message.minutes} idle minutes` : "the table never resets by itself" };
    case "material":
      host.table.changeMaterial(message.body, message.material);
      return { done: `the ${state.bodies.get(message.body)?.name || message.body} is now ${message.material}` };
    case "character": {
      const character = host.characters.find((c) => c.id === message.character)!;
      setCharacterMode(character, state, message.mode);
      return { done: `the ${character.name} ${message.mode === "auto" ? "walks its loop" : message.mode === "stop" ? "stops where it is" : `${message.mode}s`}` };
    }
    case "kick": {
      const target = seats.get(message.sessionId);
      if (!target) return { refused: `no client ${message.sessionId} in this room` };
      const name = state.players.get(message.sessionId)?.name || "a visitor";
      host.kick(target.client, "kicked by an admin");
      return { done: `removed ${name} from the room` };
    }
    case "spectator-grabs":
      state.spectatorGrabs = message.allowed;
      // Turned off, it applies to grabs already held too (their holders are told, as for a slip).
      if (!message.allowed) {
        host.grabs.releaseWhere((holder) => seats.get(holder)?.role === "spectator", "an admin turned spectator grabs off");
        host.pokes.endAll((key) => seats.get(key.slice(0, key.lastIndexOf(":")))?.role === "spectator");
      }
      return { done: `spectators ${message.allowed ? "may" : "may not"} grab` };
  }
}

/**
 * Tick time (p99 of the last 4,096 ticks, overruns), snapshot bytes sent so far, and each connection's round-trip
 * time (null before its first answer).
 */
export function roomFigures(roomId: string, clients: number, stats: TickStats, idleResetMinutes: number, seats: ReadonlyMap<string, Seat>): RoomFigures {
  return {
    roomId, clients, tickMsP99: stats.ticks.p99(), overruns: stats.overruns, ticks: stats.ticks.count, snapshotBytes: stats.snapshotBytes, idleResetMinutes,
    players: [...seats].map(([sessionId, seat]) => {
      const rtt = seat.latency?.rttMs ?? NaN;
      return { sessionId, rttMs: Number.isNaN(rtt) ? null : Math.round(rtt * 10) / 10 };
    }),
  };
}
