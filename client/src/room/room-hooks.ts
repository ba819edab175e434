// React views of the room's schema state: who is here, who holds what, and the room's flags. Each view re-renders
// only when what it reads really changes (state patches come with every grab).

import { useCallback, useRef, useSyncExternalStore } from "react";
import type { PliantRoomClient, RoomState } from "../../../shared/net";

export interface PlayerInfo { sessionId: string; name: string; color: string; role: string; slot: number }
export interface GrabInfo { key: string; owner: string; body: string; slot: number }


export interface UploadInfo { id: string; name: string; stage: string; progress: number; ahead: number; secondsLeft: number; x: number; y: number; z: number; size: number }

/**
 * `read(state)` of the client's room state (null before a client), the same object until its JSON changes.
 * `read` must not change between renders (a module-level function).
 */
export function useRoomView<T>(client: PliantRoomClient | null, read: (state: RoomState | null) => T): T {
  const last = useRef<{ client: PliantRoomClient | null; key: string; value: T } | null>(null);
  const subscribe = useCallback((listener: () => void) => {
    if (!client) return () => undefined;
    client.room.onStateChange(listener);
    return () => client.room.onStateChange.remove(listener);
  }, [client]);
  const snapshot = () => {
    const value = read(client?.room.state ?? null), key = JSON.stringify(value);
    if (!last.current || last.current.client !== client || last.current.key !== key) last.current = { client, key, value };
    return last.current.value;
  };
  return useSyncExternalStore(subscribe, snapshot);
}

const readPlayers = (state: RoomState | null): PlayerInfo[] =>
  [...(state?.players?.entries() ?? [])].map(([sessionId, p]) => ({ sessionId, name: p.name, color: p.color, role: p.role, slot: p.slot }));
const readGrabs = (state: RoomState | null): GrabInfo[] =>
  [...(state?.grabs?.entries() ?? [])].map(([key, g]) => ({ key, owner: g.owner, body: g.body, slot: g.slot }));
const readSpectatorGrabs = (state: RoomState | null): boolean => Boolean(state?.spectatorGrabs);

export function usePlayers(client: PliantRoomClient | null): PlayerInfo[] {
  return useRoomView(client, readPlayers);
}

/** The grabs held in the room (who holds which body). */
export function useGrabs(client: PliantRoomClient | null): GrabInfo[] {
  return useRoomView(client, readGrabs);
}

export function useRoomFlags(client: PliantRoomClient | null): { spectatorGrabs: boolean } {
  return { spectatorGrabs: useRoomView(client, readSpectatorGrabs) };
}

const readUploads = (state: RoomState | null): UploadInfo[] =>
  [...(state?.uploads?.entries() ?? [])].map(([id, u]) => ({ id, name: u.name, stage: u.stage, progress: u.progress, ahead: u.ahead, secondsLeft: u.secondsLeft, x: u.x, y: u.y, z: u.z, size: u.size }));

/** Uploaded meshes being baked (placeholders with progress, or their place in the server's line). */
export function useUploads(client: PliantRoomClient | null): UploadInfo[] {
  return useRoomView(client, readUploads);
}

const readLeaving = (state: RoomState | null): string[] => [...(state?.bodies?.entries() ?? [])].filter(([, b]) => b.leaving).map(([id]) => id);

/** Bodies fading out before they leave the room (an added body making room for a newer one). */
export function useLeavingBodies(client: PliantRoomClient | null): string[] {
  return useRoomView(client, readLeaving);
}
