// Builds the headset / spectator app and the admin page into client/dist, which the server hosts (npm start builds it first).
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { precompress } from "./precompress-plugin.js";

export default defineConfig({
  root: import.meta.dirname,
  // Brotli and gzip copies beside the built files, kept by content hash between builds in .cache/precompressed.
  plugins: [react(), precompress(`${import.meta.dirname}/../.cache/precompressed`)],
  // Relative asset URLs: the app works under any path the server is reached by.
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // One 60 Hz app: a large three.js + physics chunk is expected, and it is cached.
    chunkSizeWarningLimit: 4096,
    // The room (index.html, also the kiosk at ?kiosk) and the operator's page (/admin).
    rollupOptions: { input: { main: `${import.meta.dirname}/index.html`, admin: `${import.meta.dirname}/admin.html` } },
  },
  worker: { format: "es" },
});
