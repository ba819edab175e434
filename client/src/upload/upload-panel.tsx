// "Add a mesh": a visitor's own .glb, .gltf, .obj or .stl (dropped anywhere on the page, or picked), or one from
// the server's gallery, becomes a soft body for everyone. The panel shows each upload's progress (sending, its
// place in the server's line, then the room's bake stages) and the server's reason when one is refused.

import { useCallback, useEffect, useState } from "react";
import type { GalleryEntry, PliantRoomClient } from "../../../shared/net";
import { UPLOAD_LIMITS } from "../../../shared/net";
import { hudButton, hudPanel } from "../hud/hud-style";
import { useUploads } from "../room/room-hooks";
import { addGalleryMesh, addMeshFile, fetchGallery } from "./add-mesh";
import { uploadStatusLabel } from "./upload-status";

const ACCEPT = ".glb,.gltf,.obj,.stl";

export function UploadPanel({ client, onNotice }: { client: PliantRoomClient; onNotice: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const [gallery, setGallery] = useState<GalleryEntry[]>([]);
  const [sending, setSending] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const uploads = useUploads(client);

  useEffect(() => {
    if (open && !gallery.length) void fetchGallery().then(setGallery).catch(() => undefined);
  }, [open, gallery.length]);

  const send = useCallback(async (label: string, add: () => Promise<unknown>) => {
    setSending(label);
    try {
      await add();
    } catch (error) {
      onNotice(`${label} was not added: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setSending(null);
    }
  }, [onNotice]);
  const sendFile = useCallback((file: File) => void send(file.name, () => addMeshFile(client, file)), [client, send]);

  // A file dropped anywhere on the page.
  useEffect(() => {
    const over = (event: DragEvent) => {
      if (!event.dataTransfer?.types.includes("Files")) return;
      event.preventDefault();
      setDragging(true);
    };
    const leave = (event: DragEvent) => {
      if (event.relatedTarget === null) setDragging(false);
    };
    const drop = (event: DragEvent) => {
      const file = event.dataTransfer?.files[0];
      setDragging(false);
      if (!file) return;
      event.preventDefault();
      sendFile(file);
    };
    addEventListener("dragover", over);
    addEventListener("dragleave", leave);
    addEventListener("drop", drop);
    return () => {
      removeEventListener("dragover", over);
      removeEventListener("dragleave", leave);
      removeEventListener("drop", drop);
    };
  }, [sendFile]);

  return (
    <>
      {dragging && (
        <div style={{ position: "fixed", inset: 0, border: "3px dashed #4fc3f7", background: "rgba(79, 195, 247, 0.12)", display: "grid", placeItems: "center", font: "600 20px system-ui", color: "#e8ecf1", pointerEvents: "none" }} data-testid="drop-zone">
          Drop to make it soft for everyone
        </div>
      )}
      <div style={{ ...hudPanel, display: "flex", flexDirection: "column", gap: 6, maxWidth: 330 }} data-testid="upload-panel">
        <button style={{ ...hudButton, background: "#2c3442", color: "#e8ecf1" }} onClick={() => setOpen(!open)} data-testid="add-mesh">
          {open ? "Close" : "Add a mesh"}
        </button>
        {open && (
          <>
            <div style={{ display: "flex", gap: 6, flexWrap: "wrap" }}>
              {gallery.map((entry) => (
                <button key={entry.file} title={entry.credit} style={{ ...hudButton, padding: "6px 10px" }} disabled={sending !== null} data-testid={`gallery-${entry.file}`}
                  onClick={() => void send(entry.name, () => addGalleryMesh(client, entry))}>
                  {entry.name}
                </button>
              ))}
            </div>
            <label style={{ font: "13px system-ui", opacity: 0.85 }}>
              or drop a .glb, .gltf, .obj or .stl file (up to {UPLOAD_LIMITS.maxBytes / 1024 / 1024} MB) anywhere, or{" "}
              <input type="file" accept={ACCEPT} data-testid="mesh-file" style={{ width: 180 }} onChange={(e) => { const f = e.target.files?.[0]; if (f) sendFile(f); e.target.value = ""; }} />
            </label>
            <div style={{ font: "12px system-ui", opacity: 0.6 }}>Each visitor keeps {UPLOAD_LIMITS.bodiesPerPlayer} added bodies at most; the room holds {UPLOAD_LIMITS.softBodies}.</div>
          </>
        )}
        {sending && <div data-testid="upload-sending">sending {sending}…</div>}
        {uploads.map((u) => <div key={u.id} data-testid="upload-progress">{u.name}: {uploadStatusLabel(u)}</div>)}
      </div>
    </>
  );
}
