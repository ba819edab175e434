// /admin: the operator's page. The token is typed in (kept for the tab only, never in the URL). Players with
// role and colour, kick; reset the table; each body's material; what each character does; spectator grabs; idle-reset minutes; the room's
// tick p99 and bytes per second; the QR code for headsets. Every action is a documented admin message.

import { useEffect, useState, useSyncExternalStore } from "react";
import { MATERIAL_NAMES } from "../../../shared/scene/materials";
import { CHARACTER_MODES, type CharacterMode, type RoomFigures } from "../../../shared/net/protocol";
import { JoinQr, UnreachableAddressWarning, useJoinAddress } from "../stand/join-qr";
import { adminErrorSentence, looksTechnical, readableName, sentence } from "../hud/visitor-messages";
import { AdminRoom } from "./admin-room";

const TOKEN_KEY = "pliant-admin-token";

export function AdminPage() {
  const [admin, setAdmin] = useState<AdminRoom | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState(() => sessionStorage.getItem(TOKEN_KEY) ?? "");
  const connect = async (value: string) => {
    setError(null);
    try {
      const joined = await AdminRoom.connect(value);
      sessionStorage.setItem(TOKEN_KEY, value);
      setAdmin(joined);
    } catch (e) {
      setError(adminErrorSentence(e));
    }
  };
  useEffect(() => () => void admin?.leave(), [admin]);
  return (
    <main>
      <h1>Pliant admin</h1>
      {!admin ? (
        <section>
          <form onSubmit={(e) => { e.preventDefault(); void connect(token); }} style={{ display: "flex", gap: 8, alignItems: "center" }}>
            <label>Admin token <input type="password" aria-label="admin token" value={token} onChange={(e) => setToken(e.target.value)} autoFocus /></label>
            <button className="primary" type="submit">Open</button>
          </form>
          <p className="muted">The server prints its token at start (or set ADMIN_TOKEN). It stays in this tab only.</p>
          {error && <p className="error" data-testid="admin-error">{error}</p>}
        </section>
      ) : <RoomControls admin={admin} />}
    </main>
  );
}

type PlayerRow = { sessionId: string; name: string; role: string; color: string; slot: number };
type BodyRow = { id: string; name: string; material: string };
type CharacterRow = { id: string; mode: string };
const CHARACTER_MODE_LABELS: Record<CharacterMode, string> = { auto: "walks its loop, stops to look around", walk: "walks", run: "runs", look: "looks around", stop: "stops where it is" };

function useRoomState(admin: AdminRoom) {
  const read = () => {
    const s = admin.room.state;
    return JSON.stringify({
      players: [...(s?.players?.entries() ?? [])].map(([sessionId, p]) => ({ sessionId, name: p.name, role: p.role, color: p.color, slot: p.slot })),
      bodies: [...(s?.bodies?.values() ?? [])].map((b) => ({ id: b.id, name: b.name, material: b.material })),
      characters: [...(s?.characters?.values() ?? [])].map((c) => ({ id: c.id, mode: c.mode })),
      spectatorGrabs: Boolean(s?.spectatorGrabs), idleResetMinutes: s?.idleResetMinutes ?? 0,
    });
  };
  const subscribe = (listener: () => void) => {
    admin.room.onStateChange(listener);
    return () => admin.room.onStateChange.remove(listener);
  };
  return JSON.parse(useSyncExternalStore(subscribe, read)) as { players: PlayerRow[]; bodies: BodyRow[]; characters: CharacterRow[]; spectatorGrabs: boolean; idleResetMinutes: number };
}

function useFigures(admin: AdminRoom): { room: RoomFigures | null; bytesPerSecond: number } {
  const [figures, setFigures] = useState<{ room: RoomFigures | null; bytesPerSecond: number }>({ room: null, bytesPerSecond: 0 });
  useEffect(() => {
    let last: { at: number; bytes: number } | null = null;
    const poll = async () => {
      const { at, rooms } = await admin.figures().catch(() => ({ at: Date.now(), rooms: [] as RoomFigures[] }));
      const room = rooms.find((r) => r.roomId === admin.room.roomId) ?? null;
      const rate = room && last && at > last.at ? ((room.snapshotBytes - last.bytes) * 1000) / (at - last.at) : 0;
      if (room) last = { at, bytes: room.snapshotBytes };
      setFigures({ room, bytesPerSecond: rate });
    };
    void poll();
    const timer = setInterval(() => void poll(), 2000);
    return () => clearInterval(timer);
  }, [admin]);
  return figures;
}

/** A connection's round-trip time as the admin page shows it ("–" until the server has measured it). */
function rttOf(room: RoomFigures | null, sessionId: string): string {
  const rtt = room?.players.find((p) => p.sessionId === sessionId)?.rttMs;
  return rtt == null ? "–" : `${Math.round(rtt)} ms`;
}

/** The room's answer to this page, plainly (a refused message's detail goes to the console). */
function adminNoticeText(message: string): string {
  if (!looksTechnical(message)) return sentence(message);
  console.info("[pliant] room notice:", message);
  return "The room refused a request from this page (the browser console has the details).";
}

function RoomControls({ admin }: { admin: AdminRoom }) {
  const state = useRoomState(admin);
  const { room, bytesPerSecond } = useFigures(admin);
  const url = useJoinAddress();
  const [log, setLog] = useState<string[]>([]);
  const [minutes, setMinutes] = useState<string>("");
  useEffect(() => admin.onNotice((n) => setLog((l) => [...l.slice(-5), adminNoticeText(n.message)])), [admin]);
  return (
    <>
      <section>
        <h2>Room {admin.room.roomId}</h2>
        <div data-testid="admin-figures">
          tick p99 {room ? room.tickMsP99.toFixed(1) : "–"} ms · overruns {room?.overruns ?? "–"} · {(bytesPerSecond / 1024).toFixed(1)} KiB/s of snapshots · {room?.clients ?? "–"} connections
        </div>
        <div style={{ display: "flex", gap: 8, marginTop: 8, flexWrap: "wrap", alignItems: "center" }}>
          <button className="primary" data-testid="admin-reset" onClick={() => admin.send({ action: "reset" })}>Reset table</button>
          <label><input type="checkbox" checked={state.spectatorGrabs} onChange={(e) => admin.send({ action: "spectator-grabs", allowed: e.target.checked })} /> spectators may grab</label>
          <form onSubmit={(e) => { e.preventDefault(); const m = Number(minutes); if (minutes.trim() !== "" && Number.isFinite(m)) admin.send({ action: "idle-reset", minutes: m }); }}>
            <label>idle reset after <input aria-label="idle reset minutes" style={{ width: 60 }} placeholder={String(state.idleResetMinutes)} value={minutes} onChange={(e) => setMinutes(e.target.value)} /> min</label>{" "}
            <button type="submit">Set</button>
          </form>
        </div>
        {log.length > 0 && <div className="muted" data-testid="admin-log">{log.map((m, k) => <div key={k}>{m}</div>)}</div>}
      </section>
      <section>
        <h2>People ({state.players.length})</h2>
        <table>
          <thead><tr><th>name</th><th>role</th><th>colour</th><th>RTT</th><th>session</th><th /></tr></thead>
          <tbody>
            {state.players.map((p) => (
              <tr key={p.sessionId} data-player={p.name}>
                <td>{p.name}</td><td>{p.role}</td>
                <td><span style={{ color: p.color }}>●</span> {p.color}</td>
                <td data-testid="admin-rtt">{rttOf(room, p.sessionId)}</td>
                <td className="muted">{p.sessionId}</td>
                <td>{p.sessionId !== admin.room.sessionId && <button onClick={() => admin.send({ action: "kick", sessionId: p.sessionId })}>Kick</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section>
        <h2>Bodies</h2>
        {state.bodies.map((b) => (
          <div key={b.id} style={{ margin: "4px 0" }} title={b.id}>
            {readableName(b.name || b.id)}{" "}
            <select aria-label={`${b.id} material`} value={b.material} onChange={(e) => admin.send({ action: "material", body: b.id, material: e.target.value })}>
              {MATERIAL_NAMES.map((m) => <option key={m} value={m}>{m}</option>)}
            </select>
          </div>
        ))}
        {state.characters.map((c) => (
          <div key={c.id} style={{ margin: "4px 0" }}>
            {c.id}{" "}
            <select aria-label={`${c.id} mode`} value={c.mode} onChange={(e) => admin.send({ action: "character", character: c.id, mode: e.target.value as CharacterMode })}>
              {CHARACTER_MODES.map((m) => <option key={m} value={m}>{CHARACTER_MODE_LABELS[m]}</option>)}
            </select>
          </div>
        ))}
      </section>
      {url && (
        <section style={{ display: "flex", gap: 16, alignItems: "center" }}>
          <JoinQr url={url} size={160} />
          <div>
            <div>Headsets and phones: scan, or open <b>{url}</b></div>
            <UnreachableAddressWarning url={url} style={{ marginTop: 8, maxWidth: 420 }} />
          </div>
        </section>
      )}
    </>
  );
}
