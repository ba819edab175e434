// The overlay's panels (page-overlay.tsx puts them along the edges): connection state (with round trip, frame rate
// and simulation time behind the "stats" toggle or ?debug); loading progress; the join form, or its button alone on
// a phone; the Enter VR / Enter AR buttons and the camera switch; the characters' credits; the notices, each for a
// few seconds. What goes wrong is worded by visitor-messages.ts.

import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import type { PliantRoomClient } from "../../../shared/net";
import type { BakeLoader } from "../bake/bake-loader";
import type { ConnectionState } from "../room/room-connection";
import type { CameraMode } from "../view/spectator-camera";
import { frameStats } from "./frame-stats";
import { hudButton, hudPanel, hudQuietButton } from "./hud-style";
import { bodyLoadSentence, connectionSentence } from "./visitor-messages";

const panel = hudPanel;
const button = hudButton;
const STAGE_LABEL = { download: "downloading", fields: "shaping", weights: "preparing" } as const;
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

export function StatusPanel({ connection, players, loading, stats, onStats, compact = false }: { connection: ConnectionState; players: number; loading: string | null; stats: boolean; onStats: (on: boolean) => void; compact?: boolean }) {
  const problem = connectionSentence(connection.error);
  const connected = connection.status === "connected" && !loading;
  return (
    <div style={{ ...panel, padding: compact ? "5px 10px" : "6px 12px" }} data-testid="hud">
      <div style={{ whiteSpace: "nowrap" }}>
        {compact && <b style={{ marginRight: 8 }}>Pliant</b>}
        <span style={{ color: STATUS_COLOR[connection.status] }}>●</span>{" "}
        <span data-testid="connection-status">{connection.status}</span>
        {loading && <span data-testid="loading-status"> · {loading}</span>}
        {connected && !compact && <> · {connection.role === "player" ? "playing" : "watching"}</>}
        {connected && <> · {players} {players === 1 ? "player" : "players"}</>}
        {!compact && <>{" "}<StatsToggle stats={stats} onStats={onStats} /></>}
      </div>
      {stats && <Telemetry connection={connection} />}
      {problem && <div style={{ color: "#ffab91", maxWidth: 340, whiteSpace: "normal" }} data-testid="connection-error">{problem}</div>}
    </div>
  );
}

/** Shows or hides the round trip, frame rate and simulation time. */
export function StatsToggle({ stats, onStats }: { stats: boolean; onStats: (on: boolean) => void }) {
  return (
    <button onClick={() => onStats(!stats)} data-testid="stats-toggle" title="frame rate, round trip and simulation time" style={{ background: "none", border: "1px solid #556", borderRadius: 6, color: "inherit", font: "12px system-ui", padding: "1px 6px", cursor: "pointer" }}>
      {stats ? "hide stats" : "stats"}
    </button>
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
  const bodies = client?.room.state?.bodies;
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
          {progress!.stage === "error" ? bodyLoadSentence(String(progress!.message)) : `${STAGE_LABEL[progress!.stage as keyof typeof STAGE_LABEL] ?? "preparing"} a body… ${Math.round(100 * progress!.fraction)}%`}
        </div>
      ))}
    </div>
  );
}

/** The name and colour a visitor last joined with (remembered by the browser), or a fresh pick. */
export function rememberedPlayer(): { name: string; color: string } {
  return { name: localStorage.getItem("pliant-name") || "Guest", color: localStorage.getItem("pliant-color") ?? randomColor() };
}

export function JoinPanel({ onJoin, busy, error }: { onJoin: (name: string, color: string) => void; busy: boolean; error: string | null }) {
  const [name, setName] = useState(() => localStorage.getItem("pliant-name") ?? "");
  const [color, setColor] = useState(() => localStorage.getItem("pliant-color") ?? randomColor());
  return (
    <form
      style={{ ...panel, padding: "6px 8px", display: "flex", gap: 6, alignItems: "center", flexWrap: "wrap", maxWidth: 340 }}
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = name.trim() || "Guest";
        localStorage.setItem("pliant-name", trimmed);
        localStorage.setItem("pliant-color", color);
        onJoin(trimmed, color);
      }}
    >
      <input aria-label="name" placeholder="Your name" maxLength={24} value={name} onChange={(e) => setName(e.target.value)} style={{ padding: 6, borderRadius: 6, border: "1px solid #445", background: "#1b2029", color: "inherit", width: 110 }} />
      <input aria-label="colour" type="color" value={color} onChange={(e) => setColor(e.target.value)} style={{ width: 30, height: 30, border: 0, padding: 0, background: "none" }} />
      <button type="submit" style={button} disabled={busy}>{busy ? "Joining…" : "Join as player"}</button>
      {error && <JoinError error={error} />}
    </form>
  );
}

/** "Join as player" alone (the compact overlay): with the name and colour the browser remembers. */
export function JoinButton({ onJoin, busy, error }: { onJoin: (name: string, color: string) => void; busy: boolean; error: string | null }) {
  return (
    <div style={{ display: "flex", flexDirection: "column", alignItems: "flex-end", gap: 4 }}>
      <button style={{ ...button, padding: "6px 12px" }} disabled={busy} onClick={() => { const p = rememberedPlayer(); onJoin(p.name, p.color); }}>{busy ? "Joining…" : "Join as player"}</button>
      {error && <div style={{ ...panel, padding: "4px 8px", maxWidth: 260 }}><JoinError error={error} /></div>}
    </div>
  );
}

function JoinError({ error }: { error: string }) {
  return <div style={{ color: "#ffab91", width: "100%" }} data-testid="join-error">{error}</div>;
}

export function SessionButtons({ vr, ar, onEnter, cameraMode, onCameraMode }: { vr: boolean; ar: boolean; onEnter: (mode: "vr" | "ar") => void; cameraMode: CameraMode | null; onCameraMode: (mode: CameraMode) => void }) {
  return (
    <>
      {vr && <button style={button} onClick={() => onEnter("vr")}>Enter VR</button>}
      {ar && <button style={button} onClick={() => onEnter("ar")}>Enter AR</button>}
      {cameraMode && (
        <button style={hudQuietButton} onClick={() => onCameraMode(cameraMode === "orbit" ? "auto" : "orbit")}>
          {cameraMode === "orbit" ? "Auto camera" : "Orbit camera"}
        </button>
      )}
    </>
  );
}

/**
 * Who made the characters walking the room: their licences ask for it wherever they are shown. Small print at an
 * edge; `folded` (a phone's compact overlay): a "Credits" button that shows it.
 */
export function CharacterCredits({ client, folded = false, style }: { client: PliantRoomClient; folded?: boolean; style?: React.CSSProperties }) {
  useSyncExternalStore(client.subscribeBodies, () => client.bodiesVersion);
  const [open, setOpen] = useState(false);
  const credits = [...(client.room.state?.characters?.values() ?? [])].map((c) => c.credit).filter(Boolean);
  if (!credits.length) return null;
  const small: React.CSSProperties = { fontSize: 10, lineHeight: "13px", color: "rgba(232, 236, 241, 0.65)", textAlign: "right", ...style };
  if (folded && !open) {
    return <button onClick={() => setOpen(true)} style={{ ...small, background: "none", border: 0, padding: "2px 4px", cursor: "pointer", pointerEvents: "auto" }} data-testid="credits-toggle">Credits</button>;
  }
  return (
    <div data-testid="character-credits" style={{ ...small, pointerEvents: folded ? "auto" : "none" }} onClick={folded ? () => setOpen(false) : undefined}>
      {credits.map((credit) => <div key={credit}>{credit}</div>)}
    </div>
  );
}

/** How long a notice stays on screen, ms: long enough to read twice, short enough not to pile up over the room. */
const NOTICE_MS = 8000;
export interface Notice { key: number; text: string; at: number }
let noticeKeys = 0;

/** The page's notices: `push` a visitor sentence (null: nothing to show); each goes after NOTICE_MS. */
export function useNotices(): { notices: Notice[]; push: (text: string | null) => void } {
  const [notices, setNotices] = useState<Notice[]>([]);
  const push = useCallback((text: string | null) => {
    if (!text) return;
    // The same sentence again (a refusal repeated) stays one notice, shown for longer.
    setNotices((list) => [...list.filter((n) => n.text !== text).slice(-4), { key: noticeKeys++, text, at: performance.now() }]);
  }, []);
  useEffect(() => {
    if (!notices.length) return;
    const oldest = Math.min(...notices.map((n) => n.at));
    const timer = setTimeout(() => setNotices((list) => list.filter((n) => performance.now() - n.at < NOTICE_MS)), Math.max(0, oldest + NOTICE_MS - performance.now()) + 20);
    return () => clearTimeout(timer);
  }, [notices]);
  return { notices, push };
}

/** The latest notices (one on a compact screen), newest last. */
export function Notices({ notices, compact = false }: { notices: Notice[]; compact?: boolean }) {
  const shown = notices.slice(compact ? -1 : -3);
  if (!shown.length) return null;
  return (
    <div style={{ ...panel, padding: "5px 10px", font: "13px/1.35 system-ui, sans-serif", maxWidth: 360 }} data-testid="notices" aria-live="polite">
      {shown.map((n) => <div key={n.key}>{n.text}</div>)}
    </div>
  );
}

function randomColor(): string {
  const hues = ["#ff7043", "#ab47bc", "#26a69a", "#ffca28", "#5c6bc0", "#ec407a", "#9ccc65"];
  return hues[Math.floor(Math.random() * hues.length)];
}
