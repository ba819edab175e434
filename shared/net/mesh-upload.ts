// Sends a mesh file to POST /meshes with an upload ticket (PliantRoomClient.requestUploadTicket), as the page does
// for a dropped file or a gallery pick. Isomorphic: fetch is in browsers and Node alike.

import { meshFormatFromName, type MeshFormat } from "../geometry";

/** The Content-Type POST /meshes expects for each format. */
export const MESH_CONTENT_TYPE: Readonly<Record<MeshFormat, string>> = Object.freeze({
  glb: "model/gltf-binary",
  gltf: "model/gltf+json",
  obj: "model/obj",
  stl: "model/stl",
});

export interface UploadedMesh {
  /** The id it will have in the room state once baked: in `bodies`, or in `characters` for a rigged file. */
  id: string;
  hash: string;
  kind: "body" | "character";
}

/**
 * Uploads `bytes` named `fileName` (its extension gives the format; an unknown one throws the reason). Resolves
 * once the server has parsed it (the body, or the character a skinned file becomes, appears in the room state when
 * baked); rejects with the server's error.
 */
export async function uploadMesh(httpBase: string, ticket: string, fileName: string, bytes: Uint8Array | Blob, name = fileName.replace(/\.[^.]*$/, "")): Promise<UploadedMesh> {
  const format = meshFormatFromName(fileName);
  const url = new URL("meshes", httpBase.endsWith("/") ? httpBase : `${httpBase}/`);
  url.searchParams.set("ticket", ticket);
  url.searchParams.set("name", name);
  const response = await fetch(url, { method: "POST", headers: { "Content-Type": MESH_CONTENT_TYPE[format] }, body: bytes as RequestInit["body"] });
  const answer = (await response.json().catch(() => ({}))) as { id?: string; hash?: string; kind?: string; error?: string };
  if (response.status !== 202 || !answer.id || !answer.hash) throw new Error(answer.error ?? `the upload failed (HTTP ${response.status})`);
  return { id: answer.id, hash: answer.hash, kind: answer.kind === "character" ? "character" : "body" };
}
