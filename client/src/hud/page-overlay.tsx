// Where the page's overlay sits: along the screen's edges, never over its middle, where the camera frames the
// table. Top left: the title and the connection; top right: what a visitor can do (join, VR or AR, the camera,
// reset, add a mesh); bottom left: the hints; bottom right: notices, the visitor's own uploads on their way, and
// the credits. On a compact screen (a phone either way up) the title and connection share one line, the rest of
// the controls wait behind "More", and one hint and one notice show at a time.

import { useState } from "react";
import type { PliantRoomClient } from "../../../shared/net";
import type { BakeLoader } from "../bake/bake-loader";
import type { ConnectionState } from "../room/room-connection";
import { DropZone, UploadPanel, UploadProgress, useUploadSender } from "../upload/upload-panel";
import type { CameraMode } from "../view/spectator-camera";
import { CharacterCredits, JoinButton, JoinPanel, LoadingPanel, Notices, SessionButtons, StatsToggle, StatusPanel, type Notice } from "./hud";
import { COMPACT_SCREEN, hudPanel, hudQuietButton, useMediaQuery } from "./hud-style";
import { ControlHints, ResetTableButton, TitleCard, type Device, type HintState } from "./onboarding";

const EDGE = 10;
/** A row of panels along the top or bottom edge; only the panels themselves take clicks. */
const edgeRow = (side: "top" | "bottom"): React.CSSProperties => ({
  position: "fixed", left: EDGE, right: EDGE, [side]: EDGE, display: "flex", gap: 8, justifyContent: "space-between",
  alignItems: side === "top" ? "flex-start" : "flex-end", pointerEvents: "none",
  // A narrow screen puts the right-hand panels under the left-hand ones rather than squeezing both.
  flexWrap: "wrap",
});
const column = (align: "flex-start" | "flex-end"): React.CSSProperties => ({ display: "flex", flexDirection: "column", gap: 6, alignItems: align, pointerEvents: "none", minWidth: 0 });
const row: React.CSSProperties = { display: "flex", gap: 6, flexWrap: "wrap", justifyContent: "flex-end", alignItems: "flex-start", pointerEvents: "auto" };

export interface PageOverlayProps {
  connection: ConnectionState;
  client: PliantRoomClient | null;
  loader: BakeLoader;
  players: number;
  loading: string | null;
  stats: boolean;
  onStats: (on: boolean) => void;
  canGrab: boolean;
  join: { onJoin: (name: string, color: string) => void; busy: boolean; error: string | null };
  xr: { vr: boolean; ar: boolean; onEnter: (mode: "vr" | "ar") => void };
  camera: { mode: CameraMode; onMode: (mode: CameraMode) => void };
  device: Device;
  hints: HintState;
  notices: Notice[];
  onNotice: (message: string) => void;
}

export function PageOverlay(p: PageOverlayProps) {
  const compact = useMediaQuery(COMPACT_SCREEN);
  const [more, setMore] = useState(false);
  const playing = p.client !== null && p.canGrab;
  const sender = useUploadSender(playing ? p.client : null, p.onNotice);
  const mayJoin = p.connection.role === "spectator" && p.connection.status === "connected";
  const status = <StatusPanel connection={p.connection} players={p.players} loading={p.loading} stats={p.stats} onStats={p.onStats} compact={compact} />;
  const camera = <SessionButtons vr={false} ar={false} onEnter={p.xr.onEnter} cameraMode={p.camera.mode} onCameraMode={p.camera.onMode} />;
  return (
    <>
      {sender.dragging && <DropZone />}
      <div style={edgeRow("top")} data-testid="overlay-top">
        <div style={{ ...column("flex-start"), flex: "0 1 auto" }}>
          {!compact && <TitleCard compact={p.hints.grabbed} />}
          {status}
          <LoadingPanel loader={p.loader} />
        </div>
        <div style={{ ...column("flex-end"), flex: "0 1 auto", marginLeft: "auto" }}>
          <div style={row}>
            {mayJoin && (compact ? <JoinButton {...p.join} /> : <JoinPanel {...p.join} />)}
            <SessionButtons vr={p.xr.vr} ar={p.xr.ar} onEnter={p.xr.onEnter} cameraMode={null} onCameraMode={p.camera.onMode} />
            {!compact && camera}
            {!compact && playing && <ResetTableButton onReset={() => p.client?.resetTable()} />}
            {!compact && playing && <UploadPanel sender={sender} />}
            {compact && (
              <button style={{ ...hudQuietButton, padding: "6px 12px" }} onClick={() => setMore(!more)} aria-expanded={more} data-testid="more">
                {more ? "Less" : "More"}
              </button>
            )}
          </div>
          {compact && more && (
            <div style={{ ...hudPanel, display: "flex", flexDirection: "column", gap: 6, alignItems: "flex-end", maxWidth: 340 }} data-testid="more-panel">
              {mayJoin && <JoinPanel {...p.join} />}
              <div style={row}>
                {camera}
                {playing && <ResetTableButton onReset={() => p.client?.resetTable()} />}
                <StatsToggle stats={p.stats} onStats={p.onStats} />
              </div>
              {playing && <UploadPanel sender={sender} />}
            </div>
          )}
        </div>
      </div>
      <div style={edgeRow("bottom")} data-testid="overlay-bottom">
        <div style={{ ...column("flex-start"), flex: "0 1 auto" }}>
          <ControlHints device={p.device} canGrab={p.canGrab} headset={p.xr.vr} done={p.hints} compact={compact} />
        </div>
        <div style={{ ...column("flex-end"), flex: "0 1 auto", marginLeft: "auto" }}>
          <Notices notices={p.notices} compact={compact} />
          <UploadProgress client={p.client} sender={sender} />
          {p.client && <CharacterCredits client={p.client} folded={compact} style={{ maxWidth: 560 }} />}
        </div>
      </div>
    </>
  );
}
