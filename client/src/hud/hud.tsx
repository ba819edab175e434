// The page's overlay: connection state (with round trip, frame rate and simulation time behind the "stats"
// toggle or ?debug); loading progress; the join form; the Enter VR / Enter AR buttons and the camera switch.

import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import type { PliantRoomClient } from "../../../shared/net";
import type { BakeLoader } from "../bake/bake-loader";
import type { ConnectionState } from "../room/room-connection";
import type { CameraMode } from "../view/spectator-camera";
import { frameStats } from "./frame-stats";
import { hudButton, hudPanel } from "./hud-style";

const panel = hudPanel;
const button = hudButton;
const STAGE_LABEL = { download: "downloading", fields: "computing the skinning weights of", weights: "preparing" } as const;
const STATUS_COLOR = { connecting: "#ffb300", connected: "#66bb6a", reconnecting: "#ffb300", failed: "#ef5350" } as const;

export function useHudNumbers(connection: ConnectionState) {
  const [numbers, setNumbers] = useState({ rtt: 0, fps: 0, simMs: 0, frameMs: 0 });
  useEffect(() => {
    const timer = setInterval(() => {
      setNumbers({
        rtt: connection.client?.rtt ?? 0,
        fps: frameStats.fps(),
        simMs: frameStats.mean(frameStats.simulation),
        frameMs: frameStats.mean(frameStats.simulation) + frameStats.mean(frameStats.scene) + frameStats.mean(frameStats.render),
      });
    }, 500);
    return () => clearInterval(timer);
  }, [connection.client]);
  return numbers;
}

export function StatusPanel({ connection, players, loading, stats, onStats }: { connection: ConnectionState; players: number; loading: string | null; stats: boolean; onStats: (on: boolean) => void }) {
  return (
    <div style={panel} data-testid="hud">
      <div>
        <span style={{ color: STATUS_COLOR[connection.status] }}>●</span>{" "}
        <span data-testid="connection-status">{connection.status}</span>
        {loading && <span data-testid="loading-status"> · {loading}</span>}
        {connection.status === "connected" && !loading && <> · {connection.role === "player" ? "playing" : "watching"} · {players} {players === 1 ? "player" : "players"}</>}
        {" "}
        <button onClick={() => onStats(!stats)} data-testid="stats-toggle" title="frame rate, round trip and simulation time" style={{ background: "none", border: "1px solid #556", borderRadius: 6, color: "inherit", font: "12px system-ui", padding: "1px 6px", cursor: "pointer" }}>
          {stats ? "hide stats" : "stats"}
        </button>
      </div>
      {stats && <Telemetry connection={connection} />}
      {connection.error && <div style={{ color: "#ffab91" }} data-testid="connection-error">{connection.error}</div>}
    </div>
  );
}

function Telemetry({ connection }: { connection: ConnectionState }) {
  const n = useHudNumbers(connection);
  return (
    <div style={{ opacity: 0.8, fontVariantNumeric: "tabular-nums" }} data-testid="telemetry">
      {n.rtt.toFixed(0)} ms RTT · {n.fps.toFixed(0)} fps · sim {n.simMs.toFixed(2)} ms · CPU {n.frameMs.toFixed(2)} ms
    </div>
  );
}

/**
 * "loading bodies 2/3" while the room's bodies are not all on screen yet; null once they are. A string snapshot:
 * the page re-renders when the text changes, not at every state patch or progress event.
 */
export function useLoadingText(loader: BakeLoader, client: PliantRoomClient | null): string | null {
  const subscribe = useCallback((listener: () => void) => {
    const unsubscribe = loader.subscribe(listener);
    client?.room.onStateChange(listener);
    return () => {
      unsubscribe();
      client?.room.onStateChange.remove(listener);
    };
  }, [loader, client]);
  return useSyncExternalStore(subscribe, () => loadingText(loader, client));
}

function loadingText(loader: BakeLoader, client: PliantRoomClient | null): string | null {
  const bodies = (client?.room.state as { bodies?: Map<string, { bake: string }> } | undefined)?.bodies;
  if (!client || !bodies || bodies.size === 0) return client ? "loading bodies" : null;
  let ready = 0;
  for (const body of bodies.values()) if (loader.get(body.bake)) ready++;
  return ready < bodies.size ? `loading bodies ${ready}/${bodies.size}` : null;
}

export function LoadingPanel({ loader }: { loader: BakeLoader }) {
  const [, force] = useState(0);
  useEffect(() => loader.subscribe(() => force((v) => v + 1)), [loader]);
  const rows = [...loader.progress].map(([hash, progress]) => ({ hash, progress })).filter((r) => r.progress.stage !== "ready");
  if (!rows.length) return null;
  return (
    <div style={panel} data-testid="loading">
      {rows.map(({ hash, progress }) => (
        <div key={hash}>
          {progress!.stage === "error" ? `body failed to load: ${progress!.message}` : `${STAGE_LABEL[progress!.stage as keyof typeof STAGE_LABEL] ?? "preparing"} body… ${Math.round(100 * progress!.fraction)}%`}
        </div>
      ))}
    </div>
  );
}

export function JoinPanel({ onJoin, busy, error }: { onJoin: (name: string, color: string) => void; busy: boolean; error: string | null }) {
  const [name, setName] = useState(() => localStorage.getItem("pliant-name") ?? "");
  const [color, setColor] = useState(() => localStorage.getItem("pliant-color") ?? randomColor());
  return (
    <form
      style={{ ...panel, display: "flex", gap: 8, alignItems: "center", flexWrap: "wrap" }}
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = name.trim() || "Guest";
        localStorage.setItem("pliant-name", trimmed);
        localStorage.setItem("pliant-color", color);
        onJoin(trimmed, color);
      }}
    >
      <input aria-label="name" placeholder="Your name" maxLength={24} value={name} onChange={(e) => setName(e.target.value)} style={{ padding: 7, borderRadius: 6, border: "1px solid #445", background: "#1b2029", color: "inherit", width: 130 }} />
      <input aria-label="colour" type="color" value={color} onChange={(e) => setColor(e.target.value)} style={{ width: 36, height: 32, border: 0, background: "none" }} />
      <button type="submit" style={button} disabled={busy}>{busy ? "Joining…" : "Join as player"}</button>
      {error && <div style={{ color: "#ffab91", width: "100%" }}>{error}</div>}
    </form>
  );
}

export function SessionButtons({ vr, ar, onEnter, cameraMode, onCameraMode }: { vr: boolean; ar: boolean; onEnter: (mode: "vr" | "ar") => void; cameraMode: CameraMode; onCameraMode: (mode: CameraMode) => void }) {
  return (
    <div style={{ display: "flex", gap: 8, pointerEvents: "auto" }}>
      {vr && <button style={button} onClick={() => onEnter("vr")}>Enter VR</button>}
      {ar && <button style={button} onClick={() => onEnter("ar")}>Enter AR</button>}
      <button style={{ ...button, background: "#2c3442", color: "#e8ecf1" }} onClick={() => onCameraMode(cameraMode === "orbit" ? "auto" : "orbit")}>
        {cameraMode === "orbit" ? "Auto camera" : "Orbit camera"}
      </button>
    </div>
  );
}

/** Who made the characters walking the room: their licences ask for it wherever they are shown. */
export function CharacterCredits({ client }: { client: PliantRoomClient }) {
  useSyncExternalStore(client.subscribeBodies, () => client.bodiesVersion);
  const state = client.room.state as { characters?: Map<string, { credit: string }> };
  const credits = [...(state.characters?.values() ?? [])].map((c) => c.credit).filter(Boolean);
  if (!credits.length) return null;
  return (
    <div data-testid="character-credits" style={{ position: "fixed", right: 8, bottom: 6, maxWidth: "60%", fontSize: 11, color: "rgba(232, 236, 241, 0.6)", textAlign: "right", pointerEvents: "none" }}>
      {credits.map((credit) => <div key={credit}>{credit}</div>)}
    </div>
  );
}

export function Notices({ messages }: { messages: string[] }) {
  if (!messages.length) return null;
  return <div style={panel}>{messages.slice(-3).map((m, k) => <div key={k}>{m}</div>)}</div>;
}

function randomColor(): string {
  const hues = ["#ff7043", "#ab47bc", "#26a69a", "#ffca28", "#5c6bc0", "#ec407a", "#9ccc65"];
  return hues[Math.floor(Math.random() * hues.length)];
}
