// What a visitor needs in the first ten seconds: what this is (a title and one line), how to play on the device in
// their hand (hints that go away once they have done it), and a way to put the table back.

import { useEffect, useState } from "react";
import { hudPanel, hudQuietButton } from "./hud-style";

export type Device = "mouse" | "touch";

/** A phone or tablet (a coarse pointer and no fine one), or a desktop. */
export function detectDevice(): Device {
  return matchMedia("(pointer: coarse)").matches && !matchMedia("(any-pointer: fine)").matches ? "touch" : "mouse";
}

export function TitleCard({ compact }: { compact?: boolean }) {
  return (
    <div style={{ ...hudPanel, padding: "6px 12px", pointerEvents: "none", maxWidth: 330 }} data-testid="title">
      <div style={{ font: "700 19px system-ui, sans-serif", letterSpacing: 0.3 }}>Pliant</div>
      {!compact && <div style={{ opacity: 0.85, font: "14px/1.35 system-ui, sans-serif" }}>{TAGLINE}</div>}
    </div>
  );
}

/** What this is, in one line. */
export const TAGLINE = "Soft jelly, rubber and dough you can squeeze, stretch and throw, live with everyone here.";

export interface HintState {
  /** The visitor has grabbed a body (the grab hint goes). */
  grabbed: boolean;
  /** The visitor has turned or zoomed the view (the look hint goes). */
  looked: boolean;
}

/**
 * Hints for the device in hand; each disappears once the visitor has done what it says. `compact` (a phone): the
 * first of them only, in a single line at the screen's edge.
 */
export function ControlHints({ device, canGrab, headset, done, compact = false }: { device: Device; canGrab: boolean; headset: boolean; done: HintState; compact?: boolean }) {
  const lines: { key: string; text: string }[] = [];
  if (!done.grabbed) {
    if (canGrab) lines.push({ key: "grab", text: device === "touch" ? "Touch a body and drag to pull it; let go to throw." : "Drag a body with the mouse to pull it; let go to throw." });
    else lines.push({ key: "join", text: "You are watching. Join as a player to grab the bodies." });
  }
  if (!done.looked) lines.push({ key: "look", text: device === "touch" ? "Drag the background to look around; pinch to zoom." : "Drag the background to look around; scroll to zoom." });
  if (headset && !done.grabbed) lines.push({ key: "vr", text: "In a headset: Enter VR, then squeeze the grip (or pinch your fingers) on a body." });
  // On a phone the "Join as player" button beside the title says what the join hint would.
  const shown = compact ? lines.filter((l) => l.key !== "join").slice(0, 1) : lines;
  if (!shown.length) return null;
  return (
    <div style={{ ...hudPanel, padding: "5px 10px", font: "13px/1.35 system-ui, sans-serif", pointerEvents: "none", maxWidth: 390 }} data-testid="hints">
      {shown.map((l) => <div key={l.key} data-hint={l.key}>{l.text}</div>)}
    </div>
  );
}

/** "Reset table": the server refuses it within its cooldown and says how long to wait (shown as a notice). */
export function ResetTableButton({ onReset }: { onReset: () => void }) {
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!busy) return;
    const timer = setTimeout(() => setBusy(false), 1500);
    return () => clearTimeout(timer);
  }, [busy]);
  return (
    <button
      style={hudQuietButton}
      disabled={busy}
      data-testid="reset-table"
      onClick={() => {
        setBusy(true);
        onReset();
      }}
    >
      Reset table
    </button>
  );
}
