// Who made the meshes the server ships, as the pages credit them (the gallery, the room's characters).

export const ASSET_CREDITS = Object.freeze({
  spot: "Spot by Keenan Crane, CC0 1.0",
  teapot: "Utah teapot by Martin Newell, public domain",
  suzanne: "Suzanne, Blender's test monkey, free to use",
  fox: "Fox: model CC0 by PixelMannen; rigging and animation by @tomkranis, CC-BY 4.0; glTF conversion by @AsoboStudio and @scurest (Khronos glTF sample models)",
});
