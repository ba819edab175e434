// React views of the room's schema state: who is here, and the room's flags.

import { useEffect, useState } from "react";
import type { PliantRoomClient } from "../../../shared/net";

export interface PlayerInfo { sessionId: string; name: string; color: string; role: string; slot: number }

type PlayerStates = Map<string, { name: string; color: string; role: string; slot: number }>;

function readPlayers(client: PliantRoomClient | null): PlayerInfo[] {
  const players = (client?.room.state as { players?: PlayerStates } | undefined)?.players;
  if (!players) return [];
  return [...players.entries()].map(([sessionId, p]) => ({ sessionId, name: p.name, color: p.color, role: p.role, slot: p.slot }));
}

/** Re-renders only when the player list really changes (state patches also carry grabs). */
export function usePlayers(client: PliantRoomClient | null): PlayerInfo[] {
  const [players, setPlayers] = useState<PlayerInfo[]>(() => readPlayers(client));
  useEffect(() => {
    let key = "";
    const refresh = () => {
      const next = readPlayers(client);
      const nextKey = JSON.stringify(next);
      if (nextKey !== key) {
        key = nextKey;
        setPlayers(next);
      }
    };
    refresh();
    if (!client) return;
    client.room.onStateChange(refresh);
    return () => client.room.onStateChange.remove(refresh);
  }, [client]);
  return players;
}

export function useRoomFlags(client: PliantRoomClient | null): { spectatorGrabs: boolean } {
  const [spectatorGrabs, setSpectatorGrabs] = useState(false);
  useEffect(() => {
    if (!client) return;
    const read = () => setSpectatorGrabs(Boolean((client.room.state as { spectatorGrabs?: boolean }).spectatorGrabs));
    read();
    client.room.onStateChange(read);
    return () => client.room.onStateChange.remove(read);
  }, [client]);
  return { spectatorGrabs };
}

export interface GrabInfo { key: string; owner: string; body: string; slot: number }

/** The grabs held in the room (who holds which body), re-rendering only when that changes. */
export function useGrabs(client: PliantRoomClient | null): GrabInfo[] {
  const [grabs, setGrabs] = useState<GrabInfo[]>([]);
  useEffect(() => {
    if (!client) return;
    let key = "";
    const refresh = () => {
      const map = (client.room.state as { grabs?: Map<string, { owner: string; body: string; slot: number }> }).grabs;
      const next = map ? [...map.entries()].map(([k, g]) => ({ key: k, owner: g.owner, body: g.body, slot: g.slot })) : [];
      const nextKey = JSON.stringify(next);
      if (nextKey !== key) {
        key = nextKey;
        setGrabs(next);
      }
    };
    refresh();
    client.room.onStateChange(refresh);
    return () => client.room.onStateChange.remove(refresh);
  }, [client]);
  return grabs;
}
