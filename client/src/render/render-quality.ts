// Shadows, antialiasing, jelly's refraction and the studio light, chosen once before the canvas exists (antialiasing
// is fixed when a WebGL context is made). A browser drawing with software GL (no GPU acceleration: SwiftShader,
// llvmpipe, Windows' WARP) gets none: there they cost a third of the frame rate, and a room at two frames a second is
// worse than one without shadows. `?quality=high` or `?quality=low` overrides the choice.

export interface RenderQuality {
  shadows: boolean;
  antialias: boolean;
  /** Jelly shows what lies behind it, blurred (a second pass over the opaque scene: render/body-look.ts). */
  refraction: boolean;
  /** Light from a studio made in code on every surface (scene/room-scene.tsx); preparing it takes half a minute in software GL. */
  environment: boolean;
  /** The GPU the browser named (empty when it names none), shown by the debug hooks. */
  renderer: string;
}

const SOFTWARE_RENDERERS = /swiftshader|llvmpipe|softpipe|software|basic render driver/i;
/** What a browser says when it hides the GPU behind its own name: then the debug extension is asked. */
const GENERIC_RENDERERS = /^(webkit webgl|mozilla|generic renderer)/i;

/**
 * The renderer's name, from a throwaway context that is released at once. The debug extension only when the plain
 * name is a generic one (Firefox names the GPU plainly, and warns when the extension is asked for).
 */
function rendererName(): string {
  const canvas = document.createElement("canvas");
  const gl = canvas.getContext("webgl2") ?? canvas.getContext("webgl");
  if (!gl) return "";
  let name = String(gl.getParameter(gl.RENDERER) ?? "");
  if (!name || GENERIC_RENDERERS.test(name)) {
    const debug = gl.getExtension("WEBGL_debug_renderer_info");
    if (debug) name = String(gl.getParameter(debug.UNMASKED_RENDERER_WEBGL) ?? name);
  }
  gl.getExtension("WEBGL_lose_context")?.loseContext();
  return name;
}

let chosen: { search: string; quality: RenderQuality } | null = null;

/** The choice for a page's query, made once (asking the renderer's name makes a throwaway GPU context). */
export function chooseRenderQuality(search: string): RenderQuality {
  if (chosen?.search === search) return chosen.quality;
  const asked = new URLSearchParams(search).get("quality");
  const renderer = rendererName();
  const full = asked === "high" ? true : asked === "low" ? false : !SOFTWARE_RENDERERS.test(renderer);
  chosen = { search, quality: { shadows: full, antialias: full, refraction: full, environment: full, renderer } };
  return chosen.quality;
}
