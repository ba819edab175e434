// The WebXR session store. Controller and hand models come from our own server (/profiles/), never a CDN, and
// the library's own grab and touch pointers are off: grabbing soft bodies is ours (interaction/). `?emulate=quest3`
// installs an emulated Meta Quest 3 (IWER) first, for desktops without a headset and for the browser tests
// (`&sem` adds IWER's synthetic environment: planes and hit tests for mixed reality).

import { createXRStore, type XRStore } from "@react-three/xr";

export type AppXRStore = XRStore;

export interface EmulatedDevice {
  /** IWER's XRDevice: move its controllers and hands, press buttons. */
  device: unknown;
}

export async function installEmulatorIfAsked(): Promise<EmulatedDevice | undefined> {
  const asked = new URLSearchParams(location.search).get("emulate");
  if (!asked) return undefined;
  const { XRDevice, metaQuest3 } = await import("iwer");
  const device = new XRDevice(metaQuest3);
  // `&sem`: IWER's synthetic environment (planes, meshes, hit tests) for mixed reality; the page loads a room into
  // it with device.sem.loadEnvironment(json).
  if (new URLSearchParams(location.search).has("sem")) {
    const { SyntheticEnvironmentModule } = await import("@iwer/sem");
    // @iwer/sem 0.2 predates iwer 2.5's depth sensing (computeDepthBuffer), which Pliant does not request.
    device.installSEM(SyntheticEnvironmentModule as unknown as Parameters<typeof device.installSEM>[0]);
  }
  // Chromium has a native navigator.xr (with no headset behind it): replace it.
  device.installRuntime({ forceInstall: true });
  return { device };
}

export function createAppXRStore(emulated: boolean): AppXRStore {
  const baseAssetPath = new URL("profiles/", location.href.split(/[?#]/)[0]).href;
  const pointers = { grabPointer: false, touchPointer: false, teleportPointer: false } as const;
  return createXRStore({
    baseAssetPath,
    emulate: false,
    offerSession: false,
    controller: { ...pointers },
    hand: { ...pointers, rayPointer: false },
    // Passthrough AR and hand tracking where the headset offers them; in AR, hit tests and detected planes put the
    // room's table on a real one (table-alignment.tsx).
    handTracking: true,
    hitTest: true,
    planeDetection: true,
    // An emulated headset draws into a desktop window: full Quest 3 resolution would only cost CPU time.
    ...(emulated ? { frameBufferScaling: 0.25 } : {}),
  });
}
