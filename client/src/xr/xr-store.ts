// The WebXR session store. Controller and hand models come from our own server (/profiles/), never a CDN, and
// the library's own grab and touch pointers are off: grabbing soft bodies is ours (interaction/). `?emulate=quest3`
// installs an emulated Meta Quest 3 (IWER) first, for desktops without a headset and for the browser tests.

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
    // Passthrough AR and hand tracking where the headset offers them.
    handTracking: true,
    // An emulated headset draws into a desktop window: full Quest 3 resolution would only cost CPU time.
    ...(emulated ? { frameBufferScaling: 0.25 } : {}),
  });
}
