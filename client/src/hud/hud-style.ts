// The overlay's look, shared by its panels and buttons, and when it folds into its compact form.

import { useSyncExternalStore } from "react";

export const hudPanel: React.CSSProperties = { background: "rgba(17, 20, 26, 0.78)", borderRadius: 10, padding: "8px 12px", pointerEvents: "auto", backdropFilter: "blur(6px)" };
export const hudButton: React.CSSProperties = { background: "#4fc3f7", color: "#0b1118", border: 0, borderRadius: 8, padding: "8px 14px", font: "600 14px system-ui, sans-serif", cursor: "pointer", whiteSpace: "nowrap" };
/** A secondary button (camera, reset, add): dark, so the one bright button is the one to press first. */
export const hudQuietButton: React.CSSProperties = { ...hudButton, background: "#2c3442", color: "#e8ecf1" };

/**
 * Screens where the overlay folds up (a phone held either way, a small window): the title and connection on one
 * line, the rest behind "More", one notice at a time. The table needs the middle of such a screen to itself.
 */
export const COMPACT_SCREEN = "(max-height: 480px), (max-width: 600px)";

/** Whether a media query matches now, following changes (a phone turned round). */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (listener) => {
      const list = matchMedia(query);
      list.addEventListener("change", listener);
      return () => list.removeEventListener("change", listener);
    },
    () => matchMedia(query).matches,
  );
}
