import { createRoot } from "react-dom/client";
import { App } from "./app";
import { createAppXRStore, installEmulatorIfAsked } from "./xr/xr-store";

// The emulated headset (if asked for) must be installed before the XR store looks for WebXR.
const emulated = await installEmulatorIfAsked();
const store = createAppXRStore(Boolean(emulated));
createRoot(document.getElementById("root")!).render(
  // No StrictMode: its double effects would open and drop a second room connection at start.
  <App store={store} emulated={emulated} />,
);
