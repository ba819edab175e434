// The big screen at a stand (/?kiosk): no forms and no telemetry; the title, who is playing and what they are
// doing (bodies by the names people know them by), and a QR code that brings a phone or headset into the room, with a
// warning for the operator when that code is of an address no phone can reach.

import type { PliantRoomClient } from "../../../shared/net";
import { hudPanel } from "../hud/hud-style";
import type { PlayerInfo } from "../room/room-hooks";
import { useGrabs } from "../room/room-hooks";
import { CharacterCredits } from "../hud/hud";
import { bodyName, theName } from "../hud/visitor-messages";
import { JoinQr, UnreachableAddressWarning, useJoinAddress } from "./join-qr";

export function KioskOverlay({ client, players }: { client: PliantRoomClient | null; players: PlayerInfo[] }) {
  const url = useJoinAddress();
  const grabs = useGrabs(client);
  const playing = players.filter((p) => p.role === "player");
  return (
    <>
      <div style={{ position: "fixed", left: 24, top: 20, pointerEvents: "none" }} data-testid="kiosk-title">
        <div style={{ font: "800 44px system-ui, sans-serif", letterSpacing: 0.5, textShadow: "0 2px 12px #000a" }}>Pliant</div>
        <div style={{ font: "500 20px system-ui, sans-serif", opacity: 0.9, textShadow: "0 1px 8px #000a" }}>Squeeze, stretch and throw soft jelly, rubber and dough, together.</div>
      </div>
      {playing.length > 0 && (
        <div style={{ ...hudPanel, position: "fixed", left: 24, bottom: 24, font: "500 18px system-ui, sans-serif" }} data-testid="kiosk-players">
          {playing.map((p) => {
            const held = [...new Set(grabs.filter((g) => g.owner === p.sessionId).map((g) => theName(bodyName(client, g.body))))];
            return (
              <div key={p.sessionId}>
                <span style={{ color: p.color }}>●</span> {p.name}{held.length ? ` is pulling ${held.join(" and ")}` : ""}
              </div>
            );
          })}
        </div>
      )}
      {url && (
        <div style={{ ...hudPanel, position: "fixed", right: 24, bottom: 24, display: "flex", flexDirection: "column", alignItems: "center", gap: 8 }}>
          <JoinQr url={url} size={200} />
          <div style={{ font: "600 18px system-ui, sans-serif" }}>Scan to join</div>
          <div style={{ font: "13px ui-monospace, monospace", opacity: 0.8 }} data-testid="kiosk-url">{url}</div>
          <UnreachableAddressWarning url={url} />
        </div>
      )}
      {client && <CharacterCredits client={client} style={{ position: "fixed", right: 8, bottom: 4, maxWidth: "60%", fontSize: 11 }} />}
    </>
  );
}
