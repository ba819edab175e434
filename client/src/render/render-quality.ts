// Shadows and antialiasing, chosen once before the canvas exists (antialiasing is fixed when a WebGL context is
// made). A browser drawing with software GL (no GPU acceleration: SwiftShader, llvmpipe, Windows' WARP) gets
// neither: there they cost a third of the frame rate, and a room at two frames a second is worse than one without
// shadows. `?quality=high` or `?quality=low` overrides the choice.

export interface RenderQuality {
  shadows: boolean;
  antialias: boolean;
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

export function chooseRenderQuality(search: string): RenderQuality {
  const asked = new URLSearchParams(search).get("quality");
  const renderer = rendererName();
  const full = asked === "high" ? true : asked === "low" ? false : !SOFTWARE_RENDERERS.test(renderer);
  return { shadows: full, antialias: full, renderer };
}
