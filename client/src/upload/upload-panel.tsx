// "Add a mesh": a visitor's own .glb, .gltf, .obj or .stl (dropped anywhere on the page, or picked), or one from
// the server's gallery, becomes a soft body for everyone. The button opens the gallery and the file picker, which
// close again once something is sent so the table is in view when the body lands; the visitor's own uploads'
// progress (sending, their place in the server's line, the bake) shows as a line at the screen's edge, and a
// refusal as a notice in the visitor's words (hud/visitor-messages.ts).

import { useCallback, useEffect, useState } from "react";
import type { GalleryEntry, PliantRoomClient, RoomState } from "../../../shared/net";
import { UPLOAD_LIMITS } from "../../../shared/net";
import { hudButton, hudPanel, hudQuietButton } from "../hud/hud-style";
import { uploadErrorSentence, uploadLabel } from "../hud/visitor-messages";
import { useRoomView } from "../room/room-hooks";
import { addGalleryMesh, addMeshFile, fetchGallery } from "./add-mesh";
import { uploadStatusLabel, type UploadStatus } from "./upload-status";

const ACCEPT = ".glb,.gltf,.obj,.stl";

export interface UploadSender {
  /** The name of what is being sent now, or null. */
  sending: string | null;
  /** A file is being dragged over the page. */
  dragging: boolean;
  sendFile(file: File): void;
  sendGallery(entry: GalleryEntry): void;
}

/** Sends files and gallery meshes (one at a time), and takes a file dropped anywhere on the page. */
export function useUploadSender(client: PliantRoomClient | null, onNotice: (message: string) => void): UploadSender {
  const [sending, setSending] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const send = useCallback(async (label: string, add: () => Promise<unknown>) => {
    setSending(label);
    try {
      await add();
    } catch (error) {
      onNotice(uploadErrorSentence(label, error));
    } finally {
      setSending(null);
    }
  }, [onNotice]);
  const sendFile = useCallback((file: File) => {
    if (client) void send(file.name, () => addMeshFile(client, file));
  }, [client, send]);
  const sendGallery = useCallback((entry: GalleryEntry) => {
    if (client) void send(entry.name, () => addGalleryMesh(client, entry));
  }, [client, send]);

  // A file dropped anywhere on the page.
  useEffect(() => {
    if (!client) return;
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
  }, [client, sendFile]);
  return { sending, dragging, sendFile, sendGallery };
}

/** The whole page, outlined, while a file is dragged over it. */
export function DropZone() {
  return (
    <div style={{ position: "fixed", inset: 0, border: "3px dashed #4fc3f7", background: "rgba(79, 195, 247, 0.12)", display: "grid", placeItems: "center", font: "600 20px system-ui", color: "#e8ecf1", pointerEvents: "none" }} data-testid="drop-zone">
      Drop to make it soft for everyone
    </div>
  );
}

/** "Add a mesh" and, once pressed, the gallery and the file picker (closed again when something is sent). */
export function UploadPanel({ sender }: { sender: UploadSender }) {
  const [open, setOpen] = useState(false);
  const [gallery, setGallery] = useState<GalleryEntry[]>([]);
  useEffect(() => {
    if (open && !gallery.length) void fetchGallery().then(setGallery).catch((error: unknown) => console.info("[pliant] gallery:", error));
  }, [open, gallery.length]);
  const pick = (send: () => void) => {
    send();
    setOpen(false);
  };
  return (
    <div style={{ display: "flex", flexDirection: "column", alignItems: "flex-end", gap: 6 }} data-testid="upload-panel">
      <button style={hudQuietButton} onClick={() => setOpen(!open)} data-testid="add-mesh" aria-expanded={open}>
        {open ? "Close" : "Add a mesh"}
      </button>
      {open && (
        <div style={{ ...hudPanel, display: "flex", flexDirection: "column", gap: 6, maxWidth: 320 }}>
          <div style={{ display: "flex", gap: 6, flexWrap: "wrap" }}>
            {gallery.map((entry) => (
              <button key={entry.file} title={entry.credit} style={{ ...hudButton, padding: "6px 10px" }} disabled={sender.sending !== null} data-testid={`gallery-${entry.file}`}
                onClick={() => pick(() => sender.sendGallery(entry))}>
                {entry.name}
              </button>
            ))}
          </div>
          <label style={{ font: "13px system-ui", opacity: 0.85 }}>
            or drop a .glb, .gltf, .obj or .stl file (up to {UPLOAD_LIMITS.maxBytes / 1024 / 1024} MB) anywhere, or{" "}
            <input type="file" accept={ACCEPT} data-testid="mesh-file" style={{ width: 180 }} onChange={(e) => { const f = e.target.files?.[0]; if (f) pick(() => sender.sendFile(f)); e.target.value = ""; }} />
          </label>
          <div style={{ font: "12px system-ui", opacity: 0.6 }}>Each visitor keeps {UPLOAD_LIMITS.bodiesPerPlayer} added bodies at most; the room holds {UPLOAD_LIMITS.softBodies}.</div>
        </div>
      )}
    </div>
  );
}

type OwnedUpload = UploadStatus & { id: string; name: string };

/** This visitor's uploads on their way (others' show on their placeholders only). */
function useOwnUploads(client: PliantRoomClient | null): OwnedUpload[] {
  const read = useCallback((state: RoomState | null) => {
    const uploads = state?.uploads;
    return [...(uploads?.entries() ?? [])].filter(([, u]) => u.owner === client?.sessionId)
      .map(([id, u]) => ({ id, name: u.name, stage: u.stage, progress: u.progress, ahead: u.ahead, secondsLeft: u.secondsLeft }));
  }, [client]);
  return useRoomView(client, read);
}

/** "sending beetle…", then "beetle: waiting: 2nd in line, about 12 s", one line each, at the screen's edge. */
export function UploadProgress({ client, sender }: { client: PliantRoomClient | null; sender: UploadSender }) {
  const uploads = useOwnUploads(client);
  if (!sender.sending && !uploads.length) return null;
  return (
    <div style={{ ...hudPanel, padding: "5px 10px", font: "13px/1.35 system-ui, sans-serif", maxWidth: 360 }} data-testid="upload-progress-panel">
      {sender.sending && <div data-testid="upload-sending">sending {uploadLabel(sender.sending)}…</div>}
      {uploads.map((u) => <div key={u.id} data-testid="upload-progress">{uploadLabel(u.name)}: {uploadStatusLabel(u)}</div>)}
    </div>
  );
}
