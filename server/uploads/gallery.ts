// The gallery of meshes shipped with the server, which visitors may add to the room without a file of their own
// (the page's "Add a mesh" panel, the headset's wrist menu): GET /gallery lists them, GET /gallery/FILE serves one.

import path from "node:path";
import type { Application } from "express";
import type { GalleryEntry } from "../../shared/net";
import { ASSET_CREDITS } from "../../shared/scene/asset-credits";

export const GALLERY: readonly GalleryEntry[] = Object.freeze([
  { name: "Spot", file: "spot.obj", credit: ASSET_CREDITS.spot },
  { name: "Teapot", file: "teapot.obj", credit: ASSET_CREDITS.teapot },
  { name: "Suzanne", file: "suzanne.obj", credit: ASSET_CREDITS.suzanne },
  { name: "Fox", file: "fox.glb", credit: ASSET_CREDITS.fox },
]);

export function installGalleryRoutes(app: Application, assetDirectory: string): void {
  app.get("/gallery", (_req, res) => void res.set("Cache-Control", "no-cache").json(GALLERY));
  app.get("/gallery/:file", (req, res) => {
    const entry = GALLERY.find((g) => g.file === req.params.file);
    if (!entry) return void res.status(404).type("text/plain").send("no such gallery mesh");
    res.sendFile(path.join(assetDirectory, entry.file), { maxAge: "1d" });
  });
}
