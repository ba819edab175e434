// Adding a mesh from the page: a ticket from the room, then the file to POST /meshes (shared/net/mesh-upload.ts).

import { uploadMesh, type GalleryEntry, type PliantRoomClient, type UploadedMesh } from "../../../shared/net";


const base = () => location.href.split(/[?#]/)[0];

export async function fetchGallery(): Promise<GalleryEntry[]> {
  const response = await fetch(new URL("gallery", base()));
  if (!response.ok) throw new Error(`the gallery did not load (HTTP ${response.status})`);
  return (await response.json()) as GalleryEntry[];
}

export async function addMeshFile(client: PliantRoomClient, file: File): Promise<UploadedMesh> {
  const { ticket } = await client.requestUploadTicket();
  return uploadMesh(base(), ticket, file.name, file);
}

export async function addGalleryMesh(client: PliantRoomClient, entry: GalleryEntry): Promise<UploadedMesh> {
  const response = await fetch(new URL(`gallery/${entry.file}`, base()));
  if (!response.ok) throw new Error(`the gallery's ${entry.name} did not load (HTTP ${response.status})`);
  const { ticket } = await client.requestUploadTicket();
  return uploadMesh(base(), ticket, entry.file, new Uint8Array(await response.arrayBuffer()), entry.name);
}
