// The overlay's look, shared by its panels and buttons.

export const hudPanel: React.CSSProperties = { background: "rgba(17, 20, 26, 0.78)", borderRadius: 10, padding: "8px 12px", pointerEvents: "auto", backdropFilter: "blur(6px)" };
export const hudButton: React.CSSProperties = { background: "#4fc3f7", color: "#0b1118", border: 0, borderRadius: 8, padding: "8px 14px", font: "600 14px system-ui, sans-serif", cursor: "pointer" };
